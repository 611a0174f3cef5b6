/* SPDX-License-Identifier: MIT */
/*
 * A pipeline over the ONE2ONE collective "pipeline" (PathSrcIds 0:A 1:A 2:A ...): each stage
 * receives on its one destination path (none for stage[0]) and sends on its one source path (none
 * for the last stage).
 *
 *   stage[0]        generates a message of count(cycle) uint32 values: generate(cycle, i)
 *   stage[k], k>0   receives it, checks its size and applies transform(k, v) = v * 3 + k to every value;
 *                   the middle stages send the result on, the last stage checks every value against
 *                   the whole chain computed here from generate()
 *
 * Flow control: each path has 2 data buffers A to B and 2 zero-byte buffers B to A. Message `cycle`
 * uses buffer cycle % 2 both ways; after a stage has finished with data buffer b it sends a
 * zero-byte "buffer b is free" message back on buffer b, and the sender waits for it before
 * filling buffer b again. While the receiver works on one buffer, the sender fills the other.
 * (This is what makes the InterThreadPointer path safe too: there the sender writes straight into
 * the receiver's buffer.)
 */
#include "pipeline_task.h"

#include <stdio.h>

#include "graph_example.h"

#define MAX_VALUES 256

static uint32_t count(int cycle) {
  return 64 + (uint32_t)(cycle * 37) % (MAX_VALUES - 63);
}  // 64 .. 256
static uint32_t generate(int cycle, uint32_t i) {
  return (uint32_t)cycle * 65536u + i;
}
static uint32_t transform(int stage, uint32_t v) {
  return v * 3u + (uint32_t)stage;
}  // mod 2^32

void pipelineTask(TakyonGraph *graph, int group_id, int ncycles) {
  TakyonCollectiveOne2One *pipeline = takyonGetOne2One(graph, "pipeline", group_id);
  if (pipeline == NULL) graphFailExtension(graph, group_id, "takyonGetOne2One(\"pipeline\")");
  if (pipeline->num_src_paths > 1 || pipeline->num_dest_paths > 1) {
    graphFail(graph, group_id, "a pipeline stage has at most one path in and one out (%d in, %d out)",
              pipeline->num_dest_paths, pipeline->num_src_paths);
  }
  int stage = takyonGetGroupInstance(graph, group_id);
  TakyonPath *in = pipeline->num_dest_paths == 1 ? pipeline->dest_path_list[0] : NULL;  // NULL: first stage
  TakyonPath *out = pipeline->num_src_paths == 1 ? pipeline->src_path_list[0] : NULL;   // NULL: last stage
  TakyonPath *any = in != NULL ? in : out;
  if (any == NULL) graphFail(graph, group_id, "this stage has no path");
  int nbufs = any->attrs.nbufs_AtoB;
  if (out != NULL && (out->attrs.nbufs_BtoA != nbufs ||
                      out->attrs.sender_max_bytes_list[0] < MAX_VALUES * sizeof(uint32_t))) {
    graphFail(graph, group_id, "each pipeline path needs as many buffers B to A as A to B, of %d values",
              MAX_VALUES);
  }

  for (int cycle = 0; cycle < ncycles; cycle++) {
    int buffer = cycle % nbufs;
    uint32_t n = count(cycle);
    const uint32_t *input = NULL;

    if (in != NULL) {
      // Wait for the message and check its size
      uint64_t bytes = 0, offset = 0;
      graphRecv(graph, group_id, in, buffer, &bytes, &offset);
      if (bytes != n * sizeof(uint32_t) || offset != 0) {
        graphFail(graph, group_id, "cycle %d: received %llu bytes at offset %llu, expected %u values at 0",
                  cycle, (unsigned long long)bytes, (unsigned long long)offset, n);
      }
      input = (const uint32_t *)in->attrs.recver_addr_list[buffer];
    }

    if (out != NULL) {
      // Wait until the next stage has freed this buffer (it has, the first nbufs times)
      if (cycle >= nbufs) graphRecv(graph, group_id, out, buffer, NULL, NULL);
      uint32_t *output = (uint32_t *)out->attrs.sender_addr_list[buffer];
      for (uint32_t i = 0; i < n; i++)
        output[i] = in == NULL ? generate(cycle, i) : transform(stage, input[i]);
      graphSend(graph, group_id, out, buffer, n * sizeof(uint32_t), 0, 0);
    } else {
      // The last stage: transform too, then check every value against the whole chain
      for (uint32_t i = 0; i < n; i++) {
        uint32_t result = transform(stage, input[i]);
        uint32_t expected = generate(cycle, i);
        for (int k = 1; k <= stage; k++) expected = transform(k, expected);
        if (result != expected) {
          graphFail(graph, group_id, "cycle %d: value %u is %u, expected %u", cycle, i, result, expected);
        }
      }
    }

    // Done with the input buffer: tell the previous stage it may fill it again
    if (in != NULL) graphSend(graph, group_id, in, buffer, 0, 0, 0);
  }

  // Collect the last "buffer free" messages, so no message is left in flight when the paths go
  if (out != NULL) {
    int first = ncycles > nbufs ? ncycles - nbufs : 0;
    for (int cycle = first; cycle < ncycles; cycle++)
      graphRecv(graph, group_id, out, cycle % nbufs, NULL, NULL);
  }

  takyonOne2OneFinalize(pipeline);
  printf("stage[%d]: %d messages %s\n", stage, ncycles,
         in == NULL    ? "generated"
         : out == NULL ? "checked"
                       : "transformed and passed on");
}
