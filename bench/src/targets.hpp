// SPDX-License-Identifier: MIT
// The performance targets the issue sets, evaluated from a run's records.
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace takyon::bench {

enum class Verdict { kPass, kMiss, kSkip };

struct TargetResult {
  std::string id;  ///< "latency_vs_floor", "bandwidth_vs_memcpy", "pointer_size_independent",
                   ///< "socket_latency_vs_plain", "socket_bandwidth_vs_plain",
                   ///< "ucx_latency_vs_perftest", "ucx_bandwidth_vs_perftest",
                   ///< "write_latency_vs_floor", "piggyback_latency_vs_floor".
  std::string provider;
  std::string mode;
  std::string description;  ///< One line: what was compared, the measured ratio and the limit.
  double value = 0;         ///< Measured ratio (0 when skipped).
  double limit = 0;
  bool at_most = true;  ///< true: value <= limit passes; false: value >= limit passes.
  Verdict verdict = Verdict::kSkip;
};

/// Evaluates, for the providers the run covered (p50 against p50, each test against the floor
/// measured next to it), in polling mode:
///  - InterThreadMemcpy, InterProcessMemcpy: 8 B one-way latency <= 1.6x cache-line floor;
///  - InterProcessMemcpy: 1 MiB bandwidth >= 0.8x memcpy;
///  - InterThreadPointer, InterProcessPointer: 4 MiB one-way latency <= 1.2x 8 B latency (if
///    the floors next to the two sizes differ by over 2x, the host changed the machine in
///    between, and each latency is taken as a multiple of its own floor instead);
/// and in polling and in event mode each, against the plain socket measured next to them:
///  - InterProcessSocket (plain Unix stream), Socket (plain TCP): 8 B one-way latency <= 1.1x
///    plain, 1 MiB bandwidth >= 0.95x plain;
/// and with `vs_ucx_perftest`, in polling mode (ucx_perftest polls), against UCX's best measured
/// next to them (ucx_compare.hpp):
///  - UcxTcp (UCX_TLS=tcp), UcxShm (UCX_TLS=sysv or posix, the better): 8 B one-way latency
///    <= 1.1x the lower of ucp_put_lat and tag_lat, 1 MiB bandwidth >= 0.95x the higher of
///    ucp_put_bw and tag_bw.
/// Targets whose sizes or mode were not measured are kSkip.
std::vector<TargetResult> evaluate_targets(const Results& results, const std::vector<std::string>& providers,
                                           bool vs_ucx_perftest);

/// "PASS", "MISS" or "SKIP".
const char* verdict_name(Verdict verdict);

}  // namespace takyon::bench
