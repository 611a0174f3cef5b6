// SPDX-License-Identifier: MIT
// takyon-bench --collectives: barrier, reduce, allreduce, bcast and alltoall latency over a graph
// of N threads or processes, each next to the point-to-point latency of the same run.
#pragma once

#include "options.hpp"

namespace takyon::bench {

/// Runs the collective sweep these options ask for, prints its tables and writes --csv/--json.
/// Returns the exit status (0, or 2 if a run failed or a file could not be written). Call with
/// no other threads running (it forks).
int run_collectives(const Options& options);

}  // namespace takyon::bench
