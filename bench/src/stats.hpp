// SPDX-License-Identifier: MIT
// Per-message statistics (p50, p99, min, mean) of a measurement's samples.
#pragma once

#include <cstdint>
#include <vector>

namespace takyon::bench {

/// Per-message times in nanoseconds and how many iterations produced them.
struct Summary {
  double p50 = 0;
  double p99 = 0;
  double min = 0;
  double mean = 0;
  std::uint64_t iterations = 0;  ///< Round trips (latency) or messages (bandwidth, memcpy).
};

/// Nearest-rank percentiles of `per_message_ns` (taken by value: it is sorted).
Summary summarize(std::vector<double> per_message_ns, std::uint64_t iterations);

}  // namespace takyon::bench
