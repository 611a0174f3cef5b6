// SPDX-License-Identifier: MIT
// The measurement loop every test shares: warm up, size the run from the warm-up, time samples.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "stats.hpp"

namespace takyon::bench {

/// How long to measure one size of one test.
struct Budget {
  double warmup_s = 0.010;   ///< Untimed warm-up (doubling runs until this much elapsed).
  double measure_s = 0.040;  ///< Timed part, when iters == 0.
  std::uint64_t iters = 0;   ///< Fixed timed iterations (--iters); 0: sized from measure_s.
  std::uint64_t min_samples = 10;
  std::uint64_t max_samples = 200000;
};

/// Something to measure. run(samples, per_sample, out) executes samples * per_sample iterations
/// and appends, for each sample, the nanoseconds its per_sample iterations took.
struct Workload {
  std::function<void(std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out)> run;
  double messages_per_time = 1;         ///< An iteration's time / this = per-message figure (2: RTT/2).
  std::uint64_t messages_per_iter = 1;  ///< What --iters counts: 1 for a round trip, W for a window.
  bool batch = false;                   ///< Time tiny iterations in batches (a clock read is not free).
};

/// Warms up, picks the batch size and sample count, runs, and returns per-message statistics.
Summary measure(const Workload& workload, const Budget& budget);

/// Called between the parts of a sliced measurement, after part `part` of `parts` (0-based): the
/// place for something else to measure in turns with it (ucx_perftest runs, see ucx_compare.hpp).
using AfterPart = std::function<void(std::uint64_t part, std::uint64_t parts)>;

/// Two workloads measured in turns: each warmed up and sized as measure() does, then their timed
/// samples run in `slices` alternating parts (first, second, first, ...; fewer if either has fewer
/// samples) and are summarised per
/// workload. A change of the machine during the pair (another process starting, the host moving
/// a vCPU) then weighs on both, so their ratio stays meaningful. `after_part`, if set, runs after
/// each part (both workloads' share of it).
std::pair<Summary, Summary> measure_alternating(const Workload& first, const Workload& second,
                                                const Budget& budget, int slices,
                                                const AfterPart& after_part = {});

/// measure(), with the timed samples run in `slices` parts (fewer if there are fewer samples) and
/// `after_part` run after each part.
Summary measure_sliced(const Workload& workload, const Budget& budget, int slices,
                       const AfterPart& after_part);

}  // namespace takyon::bench
