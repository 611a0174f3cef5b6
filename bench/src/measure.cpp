// SPDX-License-Identifier: MIT
// Warm-up, batch sizing and sample timing shared by the floors and the path tests.
#include "measure.hpp"

#include <algorithm>
#include <cmath>

#include "clock.hpp"

namespace takyon::bench {
namespace {

// A batched sample lasts at least this long, so one clock read costs ~1% of it.
constexpr double kMinSampleNs = 2000.0;
constexpr std::uint64_t kMaxBatch = 256;
constexpr std::uint64_t kMaxWarmupIterations = std::uint64_t{1} << 22;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

Summary measure(const Workload& workload, const Budget& budget) {
  std::vector<double> sample_ns;

  // Warm-up: doubling runs until the warm-up time is spent; the last run estimates one iteration.
  const double warmup_ns = budget.warmup_s * 1e9;
  double spent_ns = 0;
  double iteration_ns = 0;
  for (std::uint64_t n = 1;; n *= 2) {
    sample_ns.clear();
    const std::int64_t start = now_ns();
    workload.run(1, n, sample_ns);
    const auto elapsed = static_cast<double>(now_ns() - start);
    spent_ns += elapsed;
    iteration_ns = std::max(elapsed / static_cast<double>(n), 1.0);
    if (spent_ns >= warmup_ns || n >= kMaxWarmupIterations) break;
  }

  std::uint64_t per_sample = 1;
  if (workload.batch) {
    const auto wanted = static_cast<std::uint64_t>(std::ceil(kMinSampleNs / iteration_ns));
    per_sample = std::clamp<std::uint64_t>(wanted, 1, kMaxBatch);
  }
  std::uint64_t samples = 0;
  if (budget.iters > 0) {
    const std::uint64_t iterations = ceil_div(budget.iters, workload.messages_per_iter);
    samples = ceil_div(iterations, per_sample);
  } else {
    const double sample_time = iteration_ns * static_cast<double>(per_sample);
    const auto wanted = static_cast<std::uint64_t>(budget.measure_s * 1e9 / sample_time);
    samples = std::clamp(wanted, budget.min_samples, budget.max_samples);
  }

  sample_ns.clear();
  sample_ns.reserve(samples);
  workload.run(samples, per_sample, sample_ns);

  const double divisor = static_cast<double>(per_sample) * workload.messages_per_time;
  for (double& ns : sample_ns) ns /= divisor;
  return summarize(std::move(sample_ns), samples * per_sample * workload.messages_per_iter);
}

}  // namespace takyon::bench
