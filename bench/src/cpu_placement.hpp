// SPDX-License-Identifier: MIT
// Where the two endpoints run: two CPUs of the allowed set, pinned with sched_setaffinity.
#pragma once

#include <string>
#include <vector>

namespace takyon::bench {

/// The CPUs of endpoint A (the timing side, also the floors' first side) and endpoint B.
/// -1: not pinned (fewer than two CPUs allowed).
struct CpuPlacement {
  int cpu_a = -1;
  int cpu_b = -1;
  int allowed_cpus = 0;

  [[nodiscard]] bool pinned() const noexcept { return cpu_a >= 0 && cpu_b >= 0; }
  /// "A on CPU 0, B on CPU 1" or why nothing is pinned.
  [[nodiscard]] std::string describe() const;
};

/// Picks two CPUs the process may run on, preferring two physical cores of one package
/// (not SMT siblings), so the latency floor and the path tests see the same cache distance.
CpuPlacement choose_cpus();

/// CPUs for `members` collective members: member 0 on choose_cpus()'s A, member 1 on its B (the
/// pair the point-to-point baseline runs on), the others round-robin over the allowed CPUs in the
/// order A, B, the rest. All -1 with fewer than two CPUs allowed.
std::vector<int> member_cpus(int members);

/// Pins the calling thread to `cpu` (no-op for -1). Prints a warning if the kernel refuses.
void pin_current_thread(int cpu);

}  // namespace takyon::bench
