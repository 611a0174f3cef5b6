// SPDX-License-Identifier: MIT
// Warm-up, batch sizing and sample timing shared by the floors, the path tests and the socket
// tests (which time a provider and its plain baseline in turns).
#include "measure.hpp"

#include <algorithm>
#include <cmath>

#include "clock.hpp"

namespace takyon::bench {
namespace {

// A batched sample lasts at least this long, so that one clock read is a negligible part of it.
constexpr double kMinSampleNs = 2000.0;
constexpr std::uint64_t kMaxBatch = 256;
constexpr std::uint64_t kMaxWarmupIterations = std::uint64_t{1} << 22;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

// How a workload is timed: iterations per sample and samples, sized from its warm-up.
struct Plan {
  std::uint64_t per_sample = 1;
  std::uint64_t samples = 0;
};

// Warm-up: doubling runs until the warm-up time is spent; the last run estimates one iteration.
Plan warm_up(const Workload& workload, const Budget& budget) {
  std::vector<double> sample_ns;
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

  Plan plan;
  if (workload.batch) {
    const auto wanted = static_cast<std::uint64_t>(std::ceil(kMinSampleNs / iteration_ns));
    plan.per_sample = std::clamp<std::uint64_t>(wanted, 1, kMaxBatch);
  }
  if (budget.iters > 0) {
    const std::uint64_t iterations = ceil_div(budget.iters, workload.messages_per_iter);
    plan.samples = ceil_div(iterations, plan.per_sample);
  } else {
    const double sample_time = iteration_ns * static_cast<double>(plan.per_sample);
    const auto wanted = static_cast<std::uint64_t>(budget.measure_s * 1e9 / sample_time);
    plan.samples = std::clamp(wanted, budget.min_samples, budget.max_samples);
  }
  return plan;
}

Summary per_message(const Workload& workload, const Plan& plan, std::vector<double> sample_ns) {
  const double divisor = static_cast<double>(plan.per_sample) * workload.messages_per_time;
  for (double& ns : sample_ns) ns /= divisor;
  const auto samples = static_cast<std::uint64_t>(sample_ns.size());
  return summarize(std::move(sample_ns), samples * plan.per_sample * workload.messages_per_iter);
}

}  // namespace

Summary measure(const Workload& workload, const Budget& budget) {
  const Plan plan = warm_up(workload, budget);
  std::vector<double> sample_ns;
  sample_ns.reserve(plan.samples);
  workload.run(plan.samples, plan.per_sample, sample_ns);
  return per_message(workload, plan, std::move(sample_ns));
}

std::pair<Summary, Summary> measure_alternating(const Workload& first, const Workload& second,
                                                const Budget& budget, int slices,
                                                const AfterPart& after_part) {
  const Plan plans[2] = {warm_up(first, budget), warm_up(second, budget)};
  const Workload* workloads[2] = {&first, &second};
  std::vector<double> sample_ns[2];
  // No more parts than samples: every part of both holds at least one.
  const std::uint64_t parts = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::max(slices, 1)), 1,
                                                        std::min(plans[0].samples, plans[1].samples));
  for (std::uint64_t part = 0; part < parts; ++part) {
    for (int w = 0; w < 2; ++w) {
      // Part `part` of the samples: the remainder goes to the last part.
      const std::uint64_t count =
          plans[w].samples / parts + (part + 1 == parts ? plans[w].samples % parts : 0);
      if (count > 0) workloads[w]->run(count, plans[w].per_sample, sample_ns[w]);
    }
    if (after_part) after_part(part, parts);
  }
  return {per_message(first, plans[0], std::move(sample_ns[0])),
          per_message(second, plans[1], std::move(sample_ns[1]))};
}

Summary measure_sliced(const Workload& workload, const Budget& budget, int slices,
                       const AfterPart& after_part) {
  const Plan plan = warm_up(workload, budget);
  std::vector<double> sample_ns;
  sample_ns.reserve(plan.samples);
  const std::uint64_t parts = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::max(slices, 1)), 1,
                                                        std::max<std::uint64_t>(plan.samples, 1));
  for (std::uint64_t part = 0; part < parts; ++part) {
    const std::uint64_t count = plan.samples / parts + (part + 1 == parts ? plan.samples % parts : 0);
    if (count > 0) workload.run(count, plan.per_sample, sample_ns);
    if (after_part) after_part(part, parts);
  }
  return per_message(workload, plan, std::move(sample_ns));
}

}  // namespace takyon::bench
