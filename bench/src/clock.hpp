// SPDX-License-Identifier: MIT
// Monotonic nanosecond clock and the CPU's spin-wait hint, shared by every measurement.
#pragma once

#include <chrono>
#include <cstdint>

namespace takyon::bench {

/// Nanoseconds on the monotonic clock (vDSO: no system call, but not free either).
inline std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The pause hint a polling loop issues between loads of a shared line.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Keeps the compiler from dropping stores nobody reads (memcpy into a never-read buffer).
inline void clobber_memory() noexcept {
  asm volatile("" ::: "memory");
}

}  // namespace takyon::bench
