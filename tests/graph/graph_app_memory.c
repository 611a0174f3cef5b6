/* SPDX-License-Identifier: MIT */
/* A C program that defines appAllocateMemory/appFreeMemory: libtakyon's weak references call them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "takyon/takyon_extensions.h"

static int g_allocations = 0;
static int g_frees = 0;
static void *g_addr = NULL;

void *appAllocateMemory(const char *name, const char *where, uint64_t bytes, void **user_data_ret) {
  if (strcmp(name, "block") != 0 || strcmp(where, "CPU") != 0 || bytes != 256) return NULL;
  g_allocations++;
  *user_data_ret = &g_allocations;
  g_addr = malloc((size_t)bytes);
  return g_addr;
}

void appFreeMemory(const char *where, void *user_data, void *addr) {
  if (strcmp(where, "CPU") == 0 && user_data == &g_allocations && addr == g_addr) g_frees++;
  free(addr);
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  TakyonGraph *graph = takyonLoadGraphDescription(0, argv[1]);
  if (graph == NULL) {
    fprintf(stderr, "FAIL: load: %s\n", takyonExtensionError());
    return 1;
  }
  const TakyonBuffer *buffer = &graph->process_list[0].buffer_list[0];
  const size_t expected = (size_t)g_addr + 128;
  int ok = g_allocations == 1 && buffer->addr == g_addr &&
           graph->path_list[0].attrsA.sender_addr_list[0] == expected;
  takyonFreeGraphDescription(graph, 0);
  ok = ok && g_frees == 1;
  if (!ok) {
    fprintf(stderr, "FAIL: allocations=%d frees=%d\n", g_allocations, g_frees);
    return 1;
  }
  printf("PASS: appAllocateMemory and appFreeMemory were called once each\n");
  return 0;
}
