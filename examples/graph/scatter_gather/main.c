/* SPDX-License-Identifier: MIT */
/*
 * scatter_gather: root[0] scatters one contiguous buffer (a graph Buffer) in equal parts to the
 * worker instances, each worker checks and processes its part, and the parts are gathered back
 * into another contiguous graph Buffer that the gather paths use as their receive memory. The root
 * checks the gathered result (see scatter_gather_task.c).
 *
 *   scatter_gather <process_id> <graph_file> [cycles]
 *   scatter_gather 0 graph_mt.txt
 *   scatter_gather 2 graph_mp.txt & scatter_gather 1 graph_mp.txt & scatter_gather 0 graph_mp.txt
 *
 * main() follows the user's guide: load the graph (1A), start one thread per group instance of
 * this process (1C), wait for them (1D), free the graph (1F). Each thread creates its paths (3A),
 * runs its group's task (3B) and destroys its paths (3C). Every check failure or Takyon error
 * prints why and ends the process with EXIT_FAILURE; "PASSED" means every check passed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_memory.h"
#include "graph_example.h"
#include "scatter_gather_task.h"

static TakyonGraph *L_graph = NULL;
static int L_cycles = 0;

// Step 3: one thread per group instance
static void *thread_entry_function(void *user_data) {
  TakyonThread *thread_info = (TakyonThread *)user_data;
  int group_id = thread_info->group_id;

  // 3A: create this instance's endpoint of every path it is on
  if (!takyonCreateGroupPaths(L_graph, group_id))
    graphFailExtension(L_graph, group_id, "takyonCreateGroupPaths");

  // 3B: run the group's task
  TakyonGroup *group = takyonGetGroup(L_graph, group_id);
  if (strcmp(group->name, "root") == 0) {
    rootTask(L_graph, group_id, L_cycles);
  } else if (strcmp(group->name, "worker") == 0) {
    workerTask(L_graph, group_id, L_cycles);
  } else {
    graphFail(L_graph, group_id, "no task for group '%s'", group->name);
  }

  // 3C: destroy the paths
  if (!takyonDestroyGroupPaths(L_graph, group_id))
    graphFailExtension(L_graph, group_id, "takyonDestroyGroupPaths");
  return NULL;
}

int main(int argc, char **argv) {
  int process_id;
  const char *filename;
  graphParseCommandLine(argc, argv, 20, &process_id, &filename, &L_cycles);

  // 1A: load the graph; this also allocates this process's Buffers (appAllocateMemory)
  printf("Loading Takyon graph file '%s' as process %d...\n", filename, process_id);
  L_graph = takyonLoadGraphDescription(process_id, filename);
  if (L_graph == NULL) {
    fprintf(stderr, "FAILED: takyonLoadGraphDescription: %s\n", takyonExtensionError());
    return EXIT_FAILURE;
  }
  if (process_id >= L_graph->process_count) {
    fprintf(stderr, "FAILED: the graph has no process %d (it has %d)\n", process_id, L_graph->process_count);
    takyonFreeGraphDescription(L_graph, process_id);
    return EXIT_FAILURE;
  }
  TakyonProcess *process = &L_graph->process_list[process_id];

  // 1C: start one thread per group instance of this process
  for (int i = 0; i < process->thread_count; i++) {
    TakyonThread *thread_info = &process->thread_list[i];
    if (pthread_create(&thread_info->thread_handle, NULL, thread_entry_function, thread_info) != 0) {
      fprintf(stderr, "FAILED: pthread_create\n");
      return EXIT_FAILURE;
    }
  }

  // 1D: wait for them (a failing thread ends the process itself, with EXIT_FAILURE)
  for (int i = 0; i < process->thread_count; i++) {
    pthread_join(process->thread_list[i].thread_handle, NULL);
  }

  // 1F: free the Buffers (appFreeMemory) and the graph
  takyonFreeGraphDescription(L_graph, process_id);
  printf("PASSED: process %d, %d cycles\n", process_id, L_cycles);
  return EXIT_SUCCESS;
}
