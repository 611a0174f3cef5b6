/* SPDX-License-Identifier: MIT */
/*
 * hello_world_graph: the smallest graph application. Two instances of the group "hello" share one
 * path; each cycle hello[0] greets hello[1] (A to B) and hello[1] answers (B to A). Both sides
 * check every greeting they receive, byte for byte.
 *
 *   hello_world_graph <process_id> <graph_file> [cycles]
 *   hello_world_graph 0 graph_mt.txt                                 both instances as threads
 *   hello_world_graph 1 graph_mp.txt & hello_world_graph 0 graph_mp.txt    one process each
 *
 * main() follows the user's guide: load the graph (1A), start one thread per group instance of
 * this process (1C), wait for them (1D), free the graph (1F). Each thread creates its paths
 * (3A), runs its group's task (3B) and destroys its paths (3C).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_memory.h"
#include "graph_example.h"

static TakyonGraph *L_graph = NULL;
static int L_cycles = 0;

// The text each side sends in a cycle; the receiver builds the same text to check what arrived.
static void greeting(char *text, size_t size, int from_instance, int cycle) {
  snprintf(text, size, "Hello from hello[%d], cycle %d", from_instance, cycle);
}

static void helloTask(TakyonGraph *graph, int group_id, int ncycles) {
  // The graph's ONE2ONE collective "hello" holds the one path: hello[0] is its source (endpoint A).
  TakyonCollectiveOne2One *one2one = takyonGetOne2One(graph, "hello", group_id);
  if (one2one == NULL) graphFailExtension(graph, group_id, "takyonGetOne2One(\"hello\")");
  int instance = takyonGetGroupInstance(graph, group_id);
  bool is_sender = one2one->num_src_paths == 1;  // hello[0] speaks first
  TakyonPath *path = is_sender ? one2one->src_path_list[0] : one2one->dest_path_list[0];
  char *send_text = (char *)path->attrs.sender_addr_list[0];
  const char *recv_text = (const char *)path->attrs.recver_addr_list[0];
  uint64_t max_bytes = path->attrs.sender_max_bytes_list[0];
  int peer = 1 - instance;

  for (int cycle = 0; cycle < ncycles; cycle++) {
    if (is_sender) {
      // Greet, then wait for the answer. The strict ping-pong also makes this safe on the Pointer
      // providers, where the send buffer is the peer's receive buffer.
      greeting(send_text, (size_t)max_bytes, instance, cycle);
      graphSend(graph, group_id, path, 0, strlen(send_text) + 1, 0, 0);
    }

    // Receive the peer's greeting and check every byte of it
    uint64_t bytes = 0, offset = 0;
    graphRecv(graph, group_id, path, 0, &bytes, &offset);
    char expected[128];
    greeting(expected, sizeof(expected), peer, cycle);
    if (offset != 0 || bytes != strlen(expected) + 1 || memcmp(recv_text, expected, bytes) != 0) {
      graphFail(graph, group_id, "cycle %d: received %llu bytes at offset %llu '%.*s', expected '%s'", cycle,
                (unsigned long long)bytes, (unsigned long long)offset, (int)bytes, recv_text, expected);
    }
    printf("hello[%d] got: %s\n", instance, recv_text);

    if (!is_sender) {
      greeting(send_text, (size_t)max_bytes, instance, cycle);
      graphSend(graph, group_id, path, 0, strlen(send_text) + 1, 0, 0);
    }
  }

  takyonOne2OneFinalize(one2one);
}

// Step 3: one thread per group instance
static void *thread_entry_function(void *user_data) {
  TakyonThread *thread_info = (TakyonThread *)user_data;
  int group_id = thread_info->group_id;

  // 3A: create this instance's endpoint of every path it is on
  if (!takyonCreateGroupPaths(L_graph, group_id))
    graphFailExtension(L_graph, group_id, "takyonCreateGroupPaths");

  // 3B: run the group's task
  TakyonGroup *group = takyonGetGroup(L_graph, group_id);
  if (strcmp(group->name, "hello") == 0) {
    helloTask(L_graph, group_id, L_cycles);
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
  graphParseCommandLine(argc, argv, 5, &process_id, &filename, &L_cycles);

  // 1A: load the graph; this also allocates this process's Buffers (appAllocateMemory)
  printf("Loading Takyon graph file '%s' as process %d...\n", filename, process_id);
  L_graph = takyonLoadGraphDescription(process_id, filename);
  if (L_graph == NULL) {
    fprintf(stderr, "FAILED: takyonLoadGraphDescription: %s\n", takyonExtensionError());
    return EXIT_FAILURE;
  }
  takyonPrintGraph(L_graph);  // a quick way to check what was loaded
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
