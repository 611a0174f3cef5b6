// SPDX-License-Identifier: MIT
// Nearest-rank percentiles over the samples of one measurement.
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace takyon::bench {
namespace {

double nearest_rank(const std::vector<double>& sorted, double fraction) {
  const double rank = std::ceil(fraction * static_cast<double>(sorted.size()));
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

Summary summarize(std::vector<double> per_message_ns, std::uint64_t iterations) {
  Summary out;
  out.iterations = iterations;
  if (per_message_ns.empty()) return out;
  std::sort(per_message_ns.begin(), per_message_ns.end());
  out.p50 = nearest_rank(per_message_ns, 0.50);
  out.p99 = nearest_rank(per_message_ns, 0.99);
  out.min = per_message_ns.front();
  out.mean = std::accumulate(per_message_ns.begin(), per_message_ns.end(), 0.0) /
             static_cast<double>(per_message_ns.size());
  return out;
}

}  // namespace takyon::bench
