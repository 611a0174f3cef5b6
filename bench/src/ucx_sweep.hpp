// SPDX-License-Identifier: MIT
// The run of a Ucx configuration: two processes, the provider's path, its baseline (plain TCP, or
// the floors for shared memory) and, with --vs-ucx-perftest, ucx_perftest in slices between.
#pragma once

#include <string>

#include "results.hpp"
#include "sweep.hpp"
#include "ucx_providers.hpp"

namespace takyon::bench {

/// One Ucx configuration in one mode: endpoint B in a forked process on cpu_b, endpoint A here, a
/// control channel made before the fork (B waits on it, without spinning, between runs), and for
/// each size:
///  - UcxTcp: plain TCP latency and the provider's in kBaselineSlices alternating slices, then
///    the same for bandwidth (socket table, records plain_tcp_*);
///  - UcxShm, UcxShmAm: the cache-line floor between the two processes, latency, the memcpy
///    floor, bandwidth (shared-memory table, records floor_*).
/// With setup.ucx_perftest set, at the compared sizes (ucx_compare.hpp) the provider's latency and
/// bandwidth samples are split into parts with one slice of each ucx_perftest test run between
/// them; a comparison table follows the provider's table and the ucx_perftest_* records are
/// added. A failure is recorded in results.errors and printed; returns false then. Call with no
/// other threads running (it forks).
bool run_ucx_sweep(const std::string& provider, UcxKind kind, bool polling, const SweepSetup& setup,
                   Results& results);

}  // namespace takyon::bench
