// SPDX-License-Identifier: MIT
// Polling waits, shared by every native backend: spin flat out for a while, then yield the CPU
// between checks so that more endpoints than cores still make progress.
#pragma once

#include <sched.h>

#include <cstdint>

namespace takyon::detail {

/// How long a polling waiter spins before it starts yielding.
inline constexpr int64_t kSpinBeforeYieldNs = 50'000;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// One step of a polling wait that began at `since_ns`: a pause while young, a yield after.
inline void spin_step(int64_t since_ns, int64_t now_ns) noexcept {
  if (now_ns - since_ns > kSpinBeforeYieldNs) {
    sched_yield();
  } else {
    cpu_relax();
  }
}

}  // namespace takyon::detail
