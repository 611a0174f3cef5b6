/* SPDX-License-Identifier: MIT */
/*
 * Distributed max and sum over the REDUCE collective "reduce", with scatter_result so that every
 * instance receives the results. Each cycle every instance contributes NELEMENTS int64 values
 * that depend on its instance, the cycle and the element (contribution() below), and checks both
 * results against the values it computes itself from every instance's contribution.
 *
 * Where the data lives:
 *   root (no parent path):  its own array `data`, which takyonReduceRoot() overwrites with the result
 *   every other instance:   contribution at offset 0 of the send buffer of its parent path; the
 *                           result arrives at offset 0 of the receive buffer of its parent path
 * Buffer 0 of the paths carries the max reduction, buffer 1 the sum.
 */
#include "reduce_task.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "graph_example.h"

#define NELEMENTS 16
#define MAX_BUFFER 0
#define SUM_BUFFER 1

// The reduction functions: a[i] = a[i] op b[i]
static void maxFunction(uint64_t nelements, void *a, void *b) {
  int64_t *x = (int64_t *)a;
  const int64_t *y = (const int64_t *)b;
  for (uint64_t i = 0; i < nelements; i++) {
    if (y[i] > x[i]) x[i] = y[i];
  }
}

static void sumFunction(uint64_t nelements, void *a, void *b) {
  int64_t *x = (int64_t *)a;
  const int64_t *y = (const int64_t *)b;
  for (uint64_t i = 0; i < nelements; i++) x[i] += y[i];
}

// Instance `instance`'s value for element i in `cycle`: the largest comes from a different instance
// for different elements and cycles, and some values are negative.
static int64_t contribution(int instance, int cycle, int i) {
  return (int64_t)((instance * 37 + cycle * 11 + i * 5) % 97) * 1000 - 40000 + instance;
}

static void fillContribution(int64_t *values, int instance, int cycle) {
  for (int i = 0; i < NELEMENTS; i++) values[i] = contribution(instance, cycle, i);
}

// Checks a result against the max or the sum of every instance's contribution, computed here.
static void checkResult(TakyonGraph *graph, int group_id, const int64_t *result, bool is_max, int ninstances,
                        int cycle) {
  for (int i = 0; i < NELEMENTS; i++) {
    int64_t expected = is_max ? contribution(0, cycle, i) : 0;
    for (int k = 0; k < ninstances; k++) {
      int64_t value = contribution(k, cycle, i);
      if (is_max) {
        if (value > expected) expected = value;
      } else {
        expected += value;
      }
    }
    if (result[i] != expected) {
      graphFail(graph, group_id, "cycle %d: %s[%d] = %" PRId64 ", expected %" PRId64, cycle,
                is_max ? "max" : "sum", i, result[i], expected);
    }
  }
}

void reduceTask(TakyonGraph *graph, int group_id, int ncycles) {
  TakyonCollectiveReduce *reduce = takyonGetReduce(graph, "reduce", group_id);
  if (reduce == NULL) graphFailExtension(graph, group_id, "takyonGetReduce(\"reduce\")");
  int instance = takyonGetGroupInstance(graph, group_id);
  int ninstances = takyonGetGroup(graph, group_id)->instances;
  bool is_root = reduce->parent_path == NULL;
  const uint64_t bytes = NELEMENTS * sizeof(int64_t);

  // Every path of the tree needs buffers 0 and 1 both ways, each large enough for the values
  TakyonPath *path = is_root ? reduce->child_path_list[0] : reduce->parent_path;
  if (path->attrs.nbufs_AtoB < 2 || path->attrs.nbufs_BtoA < 2 ||
      path->attrs.sender_max_bytes_list[0] < bytes) {
    graphFail(graph, group_id, "the reduce paths need 2 buffers each way of at least %llu bytes",
              (unsigned long long)bytes);
  }

  for (int cycle = 0; cycle < ncycles; cycle++) {
    int64_t max_result[NELEMENTS];
    int64_t sum_result[NELEMENTS];
    if (is_root) {
      // The root reduces into its own arrays, then sends the results back down the tree
      fillContribution(max_result, instance, cycle);
      fillContribution(sum_result, instance, cycle);
      if (!takyonReduceRoot(reduce, MAX_BUFFER, NELEMENTS, sizeof(int64_t), maxFunction, max_result, true)) {
        graphFailExtension(graph, group_id, "takyonReduceRoot(max)");
      }
      if (!takyonReduceRoot(reduce, SUM_BUFFER, NELEMENTS, sizeof(int64_t), sumFunction, sum_result, true)) {
        graphFailExtension(graph, group_id, "takyonReduceRoot(sum)");
      }
    } else {
      // The others put their contribution in the parent path's send buffer; the result comes back
      // in its receive buffer
      TakyonPath *parent = reduce->parent_path;
      fillContribution((int64_t *)parent->attrs.sender_addr_list[MAX_BUFFER], instance, cycle);
      if (!takyonReduceChild(reduce, MAX_BUFFER, NELEMENTS, sizeof(int64_t), maxFunction, true)) {
        graphFailExtension(graph, group_id, "takyonReduceChild(max)");
      }
      memcpy(max_result, (const void *)parent->attrs.recver_addr_list[MAX_BUFFER], bytes);
      fillContribution((int64_t *)parent->attrs.sender_addr_list[SUM_BUFFER], instance, cycle);
      if (!takyonReduceChild(reduce, SUM_BUFFER, NELEMENTS, sizeof(int64_t), sumFunction, true)) {
        graphFailExtension(graph, group_id, "takyonReduceChild(sum)");
      }
      memcpy(sum_result, (const void *)parent->attrs.recver_addr_list[SUM_BUFFER], bytes);
    }
    checkResult(graph, group_id, max_result, true, ninstances, cycle);
    checkResult(graph, group_id, sum_result, false, ninstances, cycle);
  }

  takyonReduceFinalize(reduce);
  printf("node[%d]: %d max and %d sum reductions checked%s\n", instance, ncycles, ncycles,
         is_root ? " (root)" : "");
}
