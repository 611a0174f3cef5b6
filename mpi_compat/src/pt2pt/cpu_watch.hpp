// SPDX-License-Identifier: MIT
// Ranks that end up on one CPU although each could have its own. A waiting rank spins (Backoff),
// and a spinning rank starves a peer queued on its CPU until its time slice ends: an 8-byte
// ping-pong between two unbound ranks that the kernel left on one CPU then takes a time slice per
// hop instead of a cache-line transfer. So every few dozen idle polls a waiting rank notes its CPU
// in its inbox header (InboxHeader::cpu) and looks at one same-host peer's note: a peer that last
// waited on this CPU is runnable here and cannot run until this rank lets go. An unbound rank away
// from its home CPU (its place in cpus_cores_first order, where --bind-to core would have put it)
// then moves home, which gives the CPU to the peer; a rank at home, or one that may not move,
// yields.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace takyon::mpi {

class CpuWatch {
 public:
  /// MPI_Init, for a rank with same-host peers reached through inboxes and no more ranks on the host
  /// than CPUs: its own note, its peers' notes, and its home CPU (-1: bound, or placement left to the
  /// kernel: it never moves, only yields).
  static void start(std::atomic<std::int32_t>* mine, std::vector<std::atomic<std::int32_t>*> peers, int home);
  /// MPI_Finalize: the notes are unmapped after it.
  static void stop();
  /// For Backoff, every few dozen idle polls: true when this rank should yield the CPU now.
  [[nodiscard]] static bool crowded();
};

}  // namespace takyon::mpi
