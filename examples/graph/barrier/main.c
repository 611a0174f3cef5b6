/* SPDX-License-Identifier: MIT */
/*
 * barrier: the guide's barrierTask() on a tree of any shape (graph_mt.txt: the 11-instance uneven
 * tree, graph_mp.txt: 5 instances in 3 processes), run many cycles while cycling the paths'
 * buffers, with checks that fail if a barrier releases anyone early (see barrier_task.c).
 *
 *   barrier <process_id> <graph_file> [cycles]
 *   barrier 0 graph_mt.txt
 *   barrier 2 graph_mp.txt & barrier 1 graph_mp.txt & barrier 0 graph_mp.txt
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
#include "barrier_task.h"
#include "graph_example.h"

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
  if (strcmp(group->name, "node") == 0) {
    barrierTask(L_graph, group_id, L_cycles);
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
  graphParseCommandLine(argc, argv, 200, &process_id, &filename, &L_cycles);

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
