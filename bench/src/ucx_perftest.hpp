// SPDX-License-Identifier: MIT
// One run of UCX's own benchmark, ucx_perftest (Debian package ucx-utils): a server and a client
// process on this host, and the figures of the client's "Final:" line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace takyon::bench {

/// The "Final:" line of ucx_perftest 1.13, column by column. What the columns mean (from UCX's
/// libperf.c, ucx_perf_calc_result, and perftest.c, print_progress):
///  - latency: for ping-pong tests (*_lat) the round-trip time divided by 2, i.e. one-way, like
///    takyon-bench's RTT/2; "typical" is the 50th percentile (-R 50, the default) of the last
///    iterations UCX keeps (its timing queue), "overall" the mean over the whole run;
///  - bandwidth: bytes per second divided by 1024*1024, i.e. MiB/s although the heading says
///    "MB/s" (checked by measuring: overall time per iteration x overall "MB/s" = size / 2^20);
///    takyon-bench reports decimal MB/s (bytes per microsecond), so it multiplies by 1.048576.
struct PerftestFinal {
  double iterations = 0;
  double latency_typical_us = 0;
  double latency_average_us = 0;  ///< Of the last report interval.
  double latency_overall_us = 0;  ///< Of the whole run (for *_bw tests: time per iteration).
  double bandwidth_average_mib = 0;
  double bandwidth_overall_mib = 0;  ///< MiB/s.
  double msgrate_average = 0;
  double msgrate_overall = 0;
};

/// Finds the "Final:" line in a client's output and reads its eight numbers; false if there is
/// no such line or it does not hold eight numbers.
bool parse_perftest_final(std::string_view output, PerftestFinal& out);

/// What to run; both processes get UCX_TLS=tls.
struct PerftestRun {
  std::string tls;   ///< "tcp", "sysv", "posix".
  std::string test;  ///< "tag_lat", "ucp_put_bw", ...
  std::uint64_t bytes = 8;
  std::uint64_t iters = 1000;  ///< -n
  std::uint64_t warmup = 100;  ///< -w
  int server_cpu = -1;         ///< -c; -1: not pinned
  int client_cpu = -1;
  double timeout_s = 30;  ///< For the whole run: starting, connecting, measuring.
};

/// The ucx_perftest to run: $TAKYON_BENCH_UCX_PERFTEST if set, else the first ucx_perftest on
/// PATH; "" if there is none.
std::string find_ucx_perftest();

/// "UCX 1.13.1": the version ucx_info (next to `executable`, else on PATH) reports; "UCX version
/// unknown" if it cannot tell.
std::string ucx_perftest_version(const std::string& executable);

/// "UCX_TLS=tcp ucx_perftest 127.0.0.1 -p <port> -t tag_lat -s 8 -n 1000 -w 100 -c 0": the client's
/// command line as a shell would take it (port 0: not chosen yet).
std::string perftest_client_command(const std::string& executable, const PerftestRun& run, int port);

/// Runs the server (`UCX_TLS=<tls> ucx_perftest -p <port>`) on a loopback port that was free a
/// moment ago, waits until it listens, runs the client, and waits for both, all within
/// run.timeout_s. Any failure (a process exiting with an error, no "Final:" line, the timeout)
/// kills and reaps both processes and throws std::runtime_error with the client's command line
/// and the tail of both outputs; a server that could not listen is retried once on another port.
PerftestFinal run_ucx_perftest(const std::string& executable, const PerftestRun& run);

}  // namespace takyon::bench
