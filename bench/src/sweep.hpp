// SPDX-License-Identifier: MIT
// The run itself: each provider in each mode over the size sweep, each test next to its floor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_placement.hpp"
#include "measure.hpp"
#include "memcpy_floor.hpp"
#include "options.hpp"
#include "results.hpp"

namespace takyon::bench {

struct SweepSetup {
  const Options& options;
  const CpuPlacement& placement;
  std::vector<std::uint64_t> sizes;
  Budget budget;
  MemcpyFloor& copier;       ///< kWindowBuffers buffer pairs of the largest size, reused by every run.
  std::string ucx_perftest;  ///< --vs-ucx-perftest: the ucx_perftest executable; "" otherwise.
};

/// The time budget per size and test for these options (--quick, --iters).
Budget make_budget(const Options& options);

/// The cache-line floor's budget: it is steady within milliseconds, so 15 ms per size suffice,
/// even with --quick.
Budget floor_budget(const Budget& tests);

/// A path -ID= unique among concurrently running processes (like the tests' IDs): the pid in
/// the high bits, a counter in the low ones.
std::uint32_t next_path_id();

/// One provider in one mode: endpoint B in a thread or forked process on cpu_b, endpoint A here
/// (pinned to cpu_a by the caller), and for each size, back to back: the cache-line floor
/// (between the same two sides), latency, the memcpy floor, bandwidth. Floors are measured next
/// to their tests because on a VM the host may move a vCPU or load the memory mid-sweep, moving
/// both floors by a fraction or several-fold. Prints the table; if its cache-line floor moved by more
/// than 2x, measures the table once more and keeps the steadier one (warning in
/// results.warnings if that is still unsteady). Records everything under this provider and mode.
/// A failure is recorded in results.errors and printed; returns false then. Call with no other
/// threads running (it forks).
bool run_path_sweep(const std::string& provider, bool polling, const SweepSetup& setup, Results& results);

}  // namespace takyon::bench
