// SPDX-License-Identifier: MIT
// Wall-clock measurement for timeout and latency checks.
#pragma once

#include <chrono>

namespace takyon::test {

/// Timeout (seconds) the helpers use wherever a test does not care: long enough never to expire
/// in a healthy run, short enough that a hang fails the test instead of the ctest timeout.
inline constexpr double kDefaultTimeout = 10.0;

/// Seconds on the monotonic clock (arbitrary origin).
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(now_s()) {}
  void restart() { start_ = now_s(); }
  [[nodiscard]] double seconds() const { return now_s() - start_; }

 private:
  double start_;
};

}  // namespace takyon::test
