/* SPDX-License-Identifier: MIT */
/*
 * The user's guide's barrierTask(), extended with two checks that fail if a barrier ever lets an
 * instance out before every instance has entered it:
 *
 * 1. Within each process: every instance of this process adds 1 to a shared counter just before
 *    entering barrier `cycle`. Leaving it, the counter must be at least (cycle + 1) * local (all
 *    local instances have entered) and at most (cycle + 2) * local (none is past the next barrier).
 *
 * 2. Across processes, through the data exchanged: before entering barrier `cycle`, every
 *    instance sends a token {cycle, instance} to the next instance of a ring (the ONE2ONE
 *    collective "ring"). After leaving the barrier each instance receives its predecessor's token
 *    with a receive start timeout of 0 (set for the ring paths in the graph file): it must already
 *    be there, since the predecessor sent it before entering the barrier.
 *
 * Each cycle a different instance is made 2 ms late, so an early release would be caught.
 */
#include "barrier_task.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "graph_example.h"

static atomic_int L_entered = 0;  // barrier entries of this process's instances, all cycles

// How many instances of group_id's group run in group_id's process (threads sharing L_entered).
static int localInstances(TakyonGraph *graph, int group_id) {
  TakyonGroup *group = takyonGetGroup(graph, group_id);
  for (int p = 0; p < graph->process_count; p++) {
    TakyonProcess *process = &graph->process_list[p];
    int count = 0;
    bool mine = false;
    for (int t = 0; t < process->thread_count; t++) {
      if (takyonGetGroup(graph, process->thread_list[t].group_id) == group) count++;
      if (process->thread_list[t].group_id == group_id) mine = true;
    }
    if (mine) return count;
  }
  return 0;
}

void barrierTask(TakyonGraph *graph, int group_id, int ncycles) {
  // Get information about the barrier
  TakyonCollectiveBarrier *barrier = takyonGetBarrier(graph, "barrier", group_id);
  if (barrier == NULL) graphFailExtension(graph, group_id, "takyonGetBarrier(\"barrier\")");
  int barrier_buffer = 0;
  int barrier_nbufs;
  if (barrier->parent_path != NULL) {
    // Every instance but the root has a parent
    barrier_nbufs = barrier->parent_path->attrs.nbufs_AtoB;
  } else {
    // The root of the tree has children only
    barrier_nbufs = barrier->child_path_list[0]->attrs.nbufs_AtoB;
  }

  // The ring used to check the barrier: one path to the next instance, one from the previous
  TakyonCollectiveOne2One *ring = takyonGetOne2One(graph, "ring", group_id);
  if (ring == NULL) graphFailExtension(graph, group_id, "takyonGetOne2One(\"ring\")");
  if (ring->num_src_paths != 1 || ring->num_dest_paths != 1) {
    graphFail(graph, group_id, "the ring must give each instance one path out and one in (%d out, %d in)",
              ring->num_src_paths, ring->num_dest_paths);
  }
  TakyonPath *to_next = ring->src_path_list[0];
  TakyonPath *from_previous = ring->dest_path_list[0];
  int ring_nbufs = to_next->attrs.nbufs_AtoB;  // 2: a token may arrive one cycle ahead of its reader
  if (ring_nbufs < 2) graphFail(graph, group_id, "the ring paths need 2 buffers A to B, not %d", ring_nbufs);

  int instance = takyonGetGroupInstance(graph, group_id);
  int ninstances = takyonGetGroup(graph, group_id)->instances;
  int previous = (instance + ninstances - 1) % ninstances;
  int local = localInstances(graph, group_id);

  // Run the barrier multiple times
  for (int cycle = 0; cycle < ncycles; cycle++) {
    if (cycle % ninstances == instance) takyonSleep(0.002);  // this cycle's latecomer

    // Token to the next instance, then count this entry, then the barrier
    int ring_buffer = cycle % ring_nbufs;
    int32_t *token = (int32_t *)to_next->attrs.sender_addr_list[ring_buffer];
    token[0] = cycle;
    token[1] = instance;
    graphSend(graph, group_id, to_next, ring_buffer, 2 * sizeof(int32_t), 0, 0);
    atomic_fetch_add(&L_entered, 1);

    // Run the collective barrier
    if (!takyonBarrierRun(barrier, barrier_buffer)) graphFailExtension(graph, group_id, "takyonBarrierRun");
    // Go to next buffer
    barrier_buffer = (barrier_buffer + 1) % barrier_nbufs;

    // Check 1: every instance of this process entered this barrier, none passed the next one
    int entered = atomic_load(&L_entered);
    if (entered < (cycle + 1) * local || entered > (cycle + 2) * local) {
      graphFail(graph, group_id,
                "cycle %d: left the barrier with %d entries counted in this process, expected %d to %d",
                cycle, entered, (cycle + 1) * local, (cycle + 2) * local);
    }

    // Check 2: the previous instance's token for this cycle is already here
    uint64_t bytes = 0;
    bool timed_out = false;
    if (!takyonRecv(from_previous, ring_buffer, &bytes, NULL, &timed_out)) {
      graphFail(graph, group_id, "takyonRecv(ring): %s", from_previous->attrs.error_message);
    }
    if (timed_out) {
      graphFail(graph, group_id,
                "cycle %d: left the barrier before node[%d] entered it (its token is not here)", cycle,
                previous);
    }
    const int32_t *got = (const int32_t *)from_previous->attrs.recver_addr_list[ring_buffer];
    if (bytes != 2 * sizeof(int32_t) || got[0] != cycle || got[1] != previous) {
      graphFail(graph, group_id, "cycle %d: ring token {%d, %d} (%llu bytes), expected {%d, %d}", cycle,
                got[0], got[1], (unsigned long long)bytes, cycle, previous);
    }
  }

  // Deallocate barrier resources
  takyonBarrierFinalize(barrier);
  takyonOne2OneFinalize(ring);
  printf("node[%d]: %d barriers checked\n", instance, ncycles);
}
