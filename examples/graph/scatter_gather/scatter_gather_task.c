/* SPDX-License-Identifier: MIT */
/*
 * SCATTER "scatter" from root[0] to the N workers, GATHER "gather" from the workers back to root[0].
 *
 * The graph gives every scatter path the same send buffer, the whole Buffer 'scatter', and every
 * gather path the same receive buffer, the whole Buffer 'gather' (as the user's guide's
 * scatterSendTask/gatherRecvTask expect). Worker i's part is `part` bytes at offset i * part in
 * both: the root sends it with source offset i * part, the worker sends its result with
 * destination offset i * part.
 *
 *   root:     fills 'scatter' with input(cycle, k) for every uint32 k, scatters, gathers, and checks
 *             every value of 'gather' against process(input(cycle, k)) and every part's size/offset
 *   worker i: checks that its part holds input(cycle, i * values_per_part + j), writes
 *             process(value) for every value into its gather send buffer and sends it
 *
 * One buffer per path is enough: the root scatters again only after it has gathered (so every
 * worker has finished with its part), and a worker sends again only after the next scatter (so the
 * root has checked the previous results).
 */
#include "scatter_gather_task.h"

#include <stdio.h>
#include <stdlib.h>

#include "graph_example.h"

static uint32_t input(int cycle, uint64_t k) {
  return (uint32_t)cycle * 100003u + (uint32_t)k;
}
static uint32_t process(uint32_t v) {
  return v * 2u + 1u;
}  // the workers' "processing"

void rootTask(TakyonGraph *graph, int group_id, int ncycles) {
  TakyonScatterSrc *scatter = takyonGetScatterSrc(graph, "scatter", group_id);
  if (scatter == NULL) graphFailExtension(graph, group_id, "takyonGetScatterSrc(\"scatter\")");
  TakyonGatherDest *gather = takyonGetGatherDest(graph, "gather", group_id);
  if (gather == NULL) graphFailExtension(graph, group_id, "takyonGetGatherDest(\"gather\")");
  int nworkers = scatter->npaths;
  if (gather->npaths != nworkers)
    graphFail(graph, group_id, "scatter has %d paths, gather %d", nworkers, gather->npaths);

  // The contiguous buffers behind every path (the graph's Buffers 'scatter' and 'gather')
  uint32_t *send_values = (uint32_t *)scatter->path_list[0]->attrs.sender_addr_list[0];
  const uint32_t *gathered = (const uint32_t *)gather->path_list[0]->attrs.recver_addr_list[0];
  uint64_t total_bytes = scatter->path_list[0]->attrs.sender_max_bytes_list[0];
  uint64_t part = total_bytes / (uint64_t)nworkers;
  uint64_t nvalues = total_bytes / sizeof(uint32_t);
  for (int i = 0; i < nworkers; i++) {
    if ((uint32_t *)scatter->path_list[i]->attrs.sender_addr_list[0] != send_values ||
        (const uint32_t *)gather->path_list[i]->attrs.recver_addr_list[0] != gathered) {
      graphFail(graph, group_id, "path %d does not use the shared 'scatter'/'gather' buffers", i);
    }
  }

  uint64_t *nbytes_list = malloc((size_t)nworkers * sizeof(uint64_t));
  uint64_t *soffset_list = malloc((size_t)nworkers * sizeof(uint64_t));
  uint64_t *doffset_list = malloc((size_t)nworkers * sizeof(uint64_t));
  uint64_t *offset_list = malloc((size_t)nworkers * sizeof(uint64_t));
  if (nbytes_list == NULL || soffset_list == NULL || doffset_list == NULL || offset_list == NULL) {
    graphFail(graph, group_id, "out of memory");
  }

  for (int cycle = 0; cycle < ncycles; cycle++) {
    // Fill the whole scatter buffer, then send worker i the part at offset i * part
    for (uint64_t k = 0; k < nvalues; k++) send_values[k] = input(cycle, k);
    for (int i = 0; i < nworkers; i++) {
      nbytes_list[i] = part;
      soffset_list[i] = (uint64_t)i * part;
      doffset_list[i] = 0;
    }
    if (!takyonScatterSend(scatter, 0, nbytes_list, soffset_list, doffset_list)) {
      graphFailExtension(graph, group_id, "takyonScatterSend");
    }

    // Gather every worker's result into the gather buffer and check it all
    if (!takyonGatherRecv(gather, 0, nbytes_list, offset_list))
      graphFailExtension(graph, group_id, "takyonGatherRecv");
    for (int i = 0; i < nworkers; i++) {
      if (nbytes_list[i] != part || offset_list[i] != (uint64_t)i * part) {
        graphFail(graph, group_id,
                  "cycle %d: worker %d's part is %llu bytes at offset %llu, expected %llu at %llu", cycle, i,
                  (unsigned long long)nbytes_list[i], (unsigned long long)offset_list[i],
                  (unsigned long long)part, (unsigned long long)((uint64_t)i * part));
      }
    }
    for (uint64_t k = 0; k < nvalues; k++) {
      if (gathered[k] != process(input(cycle, k))) {
        graphFail(graph, group_id, "cycle %d: gathered value %llu is %u, expected %u", cycle,
                  (unsigned long long)k, gathered[k], process(input(cycle, k)));
      }
    }
  }

  free(nbytes_list);
  free(soffset_list);
  free(doffset_list);
  free(offset_list);
  takyonScatterSrcFinalize(scatter);
  takyonGatherDestFinalize(gather);
  printf("root[0]: %d scatters and gathers over %d workers checked\n", ncycles, nworkers);
}

void workerTask(TakyonGraph *graph, int group_id, int ncycles) {
  TakyonScatterDest *scatter = takyonGetScatterDest(graph, "scatter", group_id);
  if (scatter == NULL) graphFailExtension(graph, group_id, "takyonGetScatterDest(\"scatter\")");
  TakyonGatherSrc *gather = takyonGetGatherSrc(graph, "gather", group_id);
  if (gather == NULL) graphFailExtension(graph, group_id, "takyonGetGatherSrc(\"gather\")");
  int index = scatter->path_index;  // this worker's part, also its place in the gather
  if (gather->path_index != index) {
    graphFail(graph, group_id, "scatter index %d but gather index %d: list the paths in the same order",
              index, gather->path_index);
  }
  uint64_t part = scatter->path->attrs.recver_max_bytes_list[0];
  uint64_t values_per_part = part / sizeof(uint32_t);
  const uint32_t *received = (const uint32_t *)scatter->path->attrs.recver_addr_list[0];
  uint32_t *result = (uint32_t *)gather->path->attrs.sender_addr_list[0];

  for (int cycle = 0; cycle < ncycles; cycle++) {
    // Wait for this worker's part and check it
    uint64_t nbytes = 0, offset = 0;
    if (!takyonScatterRecv(scatter, 0, &nbytes, &offset))
      graphFailExtension(graph, group_id, "takyonScatterRecv");
    if (nbytes != part || offset != 0) {
      graphFail(graph, group_id, "cycle %d: received %llu bytes at offset %llu, expected %llu at 0", cycle,
                (unsigned long long)nbytes, (unsigned long long)offset, (unsigned long long)part);
    }
    for (uint64_t j = 0; j < values_per_part; j++) {
      uint32_t expected = input(cycle, (uint64_t)index * values_per_part + j);
      if (received[j] != expected) {
        graphFail(graph, group_id, "cycle %d: value %llu of my part is %u, expected %u", cycle,
                  (unsigned long long)j, received[j], expected);
      }
      // Process it into the gather send buffer
      result[j] = process(received[j]);
    }

    // Send the result to its place in the root's gather buffer
    if (!takyonGatherSend(gather, 0, part, 0, (uint64_t)index * part)) {
      graphFailExtension(graph, group_id, "takyonGatherSend");
    }
  }

  takyonScatterDestFinalize(scatter);
  takyonGatherSrcFinalize(gather);
  printf("worker[%d]: %d parts checked and processed\n", takyonGetGroupInstance(graph, group_id), ncycles);
}
