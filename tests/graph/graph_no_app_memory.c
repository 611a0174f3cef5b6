/* SPDX-License-Identifier: MIT */
/* A C program without appAllocateMemory/appFreeMemory: it links, loads graphs without Buffers, and
   gets a clear error for a graph with Buffers. */
#include <stdio.h>
#include <string.h>

#include "takyon/takyon_extensions.h"

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  TakyonGraph *graph = takyonLoadGraphDescription(0, argv[2]);
  if (graph == NULL) {
    fprintf(stderr, "FAIL: a graph without Buffers: %s\n", takyonExtensionError());
    return 1;
  }
  takyonFreeGraphDescription(graph, 0);
  graph = takyonLoadGraphDescription(0, argv[1]);
  if (graph != NULL) {
    fprintf(stderr, "FAIL: a graph with Buffers loaded without appAllocateMemory\n");
    takyonFreeGraphDescription(graph, 0);
    return 1;
  }
  if (strstr(takyonExtensionError(), "buffer 'block' needs appAllocateMemory()") == NULL) {
    fprintf(stderr, "FAIL: unexpected message: %s\n", takyonExtensionError());
    return 1;
  }
  printf("PASS: linked and ran without appAllocateMemory\n");
  return 0;
}
