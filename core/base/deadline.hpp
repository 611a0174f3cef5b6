// SPDX-License-Identifier: MIT
// Deadline: a timeout in seconds (TAKYON_WAIT_FOREVER, 0 = try once) turned into a point in time.
#pragma once

#include <time.h>

#include <cstdint>

namespace takyon::detail {

/// CLOCK_MONOTONIC in nanoseconds (vDSO: no system call).
inline int64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class Deadline {
 public:
  /// Negative seconds: never expires. 0: already expired (callers still try once), without a clock read.
  static Deadline after(double seconds) noexcept {
    Deadline d;
    if (seconds < 0) {
      d.end_ns_ = kForever;
    } else if (seconds == 0) {
      d.end_ns_ = kImmediate;
    } else {
      d.end_ns_ = now_ns() + static_cast<int64_t>(seconds * 1e9);
    }
    return d;
  }
  static Deadline forever() noexcept { return after(-1.0); }

  [[nodiscard]] bool is_forever() const noexcept { return end_ns_ == kForever; }
  /// A zero timeout: look once, never wait (expired from the start).
  [[nodiscard]] bool is_immediate() const noexcept { return end_ns_ == kImmediate; }
  [[nodiscard]] bool expired(int64_t now) const noexcept { return end_ns_ != kForever && now >= end_ns_; }
  [[nodiscard]] bool expired() const noexcept { return expired(now_ns()); }
  /// Nanoseconds left (0 if expired, INT64_MAX if forever).
  [[nodiscard]] int64_t remaining_ns(int64_t now) const noexcept {
    if (end_ns_ == kForever) return kForever;
    return end_ns_ > now ? end_ns_ - now : 0;
  }

 private:
  static constexpr int64_t kForever = INT64_MAX;
  static constexpr int64_t kImmediate = INT64_MIN;
  int64_t end_ns_ = kForever;
};

}  // namespace takyon::detail
