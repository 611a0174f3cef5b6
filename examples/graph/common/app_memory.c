/* SPDX-License-Identifier: MIT */
/* The graph examples' memory functions for the graph file's Buffers section (see app_memory.h). */
#include "app_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *appAllocateMemory(const char *name, const char *where, uint64_t bytes, void **user_data_ret) {
  *user_data_ret = NULL;
  if (strcmp(where, "CPU") == 0) {
    // Ordinary CPU memory
    void *addr = malloc((size_t)bytes);
    if (addr == NULL)
      fprintf(stderr, "appAllocateMemory: no memory for buffer '%s' (%llu bytes)\n", name,
              (unsigned long long)bytes);
    return addr;
  }
  if (strcmp(where, "MMAP") == 0) {
    // Memory that other processes can map by name. The pid makes the name unique to this run, so
    // two runs of the same graph on one machine never remove each other's map; drop it when
    // another program must open the map by the buffer's name.
    char map_name[TAKYON_MAX_MMAP_NAME_CHARS];
    snprintf(map_name, sizeof(map_name), "%s-%ld", name, (long)getpid());
    void *addr = NULL;
    TakyonMmapHandle mmap_handle = NULL;
    takyonMmapAlloc(map_name, bytes, &addr, &mmap_handle);  // prints the reason on failure
    *user_data_ret = mmap_handle;
    return addr;
  }
  if (strncmp(where, "CUDA:", 5) == 0) {
    // A CUDA build would do cudaSetDevice(n) and cudaMalloc() here.
    fprintf(stderr, "appAllocateMemory: buffer '%s' wants '%s', but this example is built without CUDA\n",
            name, where);
    return NULL;
  }
  fprintf(stderr, "appAllocateMemory: buffer '%s': unknown Where '%s' (CPU, MMAP or CUDA:<n>)\n", name,
          where);
  return NULL;
}

void appFreeMemory(const char *where, void *user_data, void *addr) {
  if (strcmp(where, "CPU") == 0) {
    free(addr);
  } else if (strcmp(where, "MMAP") == 0) {
    takyonMmapFree((TakyonMmapHandle)user_data);
  }
  // CUDA: never allocated (see appAllocateMemory)
}
