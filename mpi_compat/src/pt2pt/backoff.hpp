// SPDX-License-Identifier: MIT
// How a blocked rank waits: spin (polling is the fast path), then sched_yield so an oversubscribed
// node (4 ranks on 2 cores) lets the rank we wait for run, then short sleeps. While spinning it
// checks that no same-host peer waits for its CPU (CpuWatch). Reports every few
// milliseconds so the caller can check its peers are still alive.
#pragma once

#include <sched.h>
#include <time.h>

#include <cstdint>

#include "pt2pt/cpu_watch.hpp"

namespace takyon::mpi {

inline std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ULL + std::uint64_t(ts.tv_nsec);
}

class Backoff {
 public:
  /// The phases of a wait, in nanoseconds (knobs TAKYON_MPI_SPIN_US, _WATCH_US, _YIELD_MS, _SLEEP_US,
  /// _LIVENESS_MS; MPI_Init sets them with configure()).
  struct Timing {
    std::uint64_t spin_ns = 30'000;       ///< pure polling first (a core of our own)
    std::uint64_t watch_ns = 2'000;       ///< from then on, CpuWatch checks every 64 polls
    std::uint64_t yield_ns = 50'000'000;  ///< then sched_yield between polls
    std::uint64_t sleep_ns = 20'000;      ///< then nanosleep this long between polls
    std::uint64_t check_ns = 5'000'000;   ///< liveness check period
  };
  static void configure(const Timing& t) { timing() = t; }

  /// More ranks on this node than CPUs: yield at once instead of spinning on the core a peer needs.
  static void set_oversubscribed(bool on) { oversubscribed() = on; }
  [[nodiscard]] static bool is_oversubscribed() { return oversubscribed(); }

  /// Called after a poll that found nothing; returns true when a liveness check is due.
  bool idle() {
    if (oversubscribed() && phase_ == 0) phase_ = 1;
    if ((++polls_ & 63U) != 0 && phase_ == 0) return false;
    std::uint64_t now = monotonic_ns();
    if (start_ == 0) start_ = last_check_ = now;
    std::uint64_t waited = now - start_;
    const Timing& t = timing();
    if (waited >= t.yield_ns) {
      timespec ts{long(t.sleep_ns / 1'000'000'000), long(t.sleep_ns % 1'000'000'000)};
      nanosleep(&ts, nullptr);
      phase_ = 2;
    } else if (waited >= t.spin_ns || phase_ == 1) {
      sched_yield();
      phase_ = 1;
    } else if (waited >= t.watch_ns && CpuWatch::crowded()) {
      sched_yield();  // a same-host peer waits for this CPU
    }
    if (now - last_check_ >= t.check_ns) {
      last_check_ = now;
      return true;
    }
    return false;
  }
  /// Something happened: spin again.
  void reset() {
    polls_ = 0;
    phase_ = 0;
    start_ = 0;
  }

 private:
  static Timing& timing() {
    static Timing value;
    return value;
  }
  static bool& oversubscribed() {
    static bool value = false;
    return value;
  }
  std::uint32_t polls_ = 0;
  int phase_ = 0;
  std::uint64_t start_ = 0;
  std::uint64_t last_check_ = 0;
};

}  // namespace takyon::mpi
