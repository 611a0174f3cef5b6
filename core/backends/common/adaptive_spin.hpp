// SPDX-License-Identifier: MIT
// AdaptiveSpin: how long an event-driven waiter spins before it sleeps. A futex sleep and wake-up
// costs microseconds, far more than a message that is already on its way; spinning for about that
// long first at most doubles the cost of a wait that had to sleep anyway, and saves the sleep
// whenever the answer comes soon. The budget adapts: a wait that ends while spinning keeps the
// full budget, each wait that had to sleep halves it (down to none: an idle path, or a peer that
// needs this CPU, costs no spinning), and every 16th wait spins the full budget again to find out
// whether spinning pays again.
#pragma once

#include <atomic>
#include <cstdint>

namespace takyon::detail {

/// The most an event-driven wait spins before it sleeps.
inline constexpr int64_t kEventSpinMaxNs = 20'000;

class AdaptiveSpin {
 public:
  /// Nanoseconds the next wait may spin before sleeping. Any thread.
  [[nodiscard]] int64_t budget_ns() noexcept {
    const int64_t budget = budget_ns_.load(std::memory_order_relaxed);
    if (budget < kEventSpinMaxNs && (waits_.fetch_add(1, std::memory_order_relaxed) & 15u) == 0) {
      return kEventSpinMaxNs;  // a probe: does spinning pay again?
    }
    return budget;
  }
  /// A wait ended while spinning: the budget is worth keeping.
  void spun() noexcept { budget_ns_.store(kEventSpinMaxNs, std::memory_order_relaxed); }
  /// A wait had to sleep: spin less next time (below 1 us, not at all).
  void slept() noexcept {
    const int64_t half = budget_ns_.load(std::memory_order_relaxed) / 2;
    budget_ns_.store(half < 1'000 ? 0 : half, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> budget_ns_{kEventSpinMaxNs};
  std::atomic<uint32_t> waits_{0};
};

}  // namespace takyon::detail
