// SPDX-License-Identifier: MIT
// The records a run produces (path tests and floors), as the reports and targets read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stats.hpp"

namespace takyon::bench {

namespace test_name {
/// --collectives: collective_p2p, collective_barrier, collective_reduce, ... (collective_member.hpp).
inline constexpr std::string_view kCollectivePrefix = "collective_";
inline constexpr std::string_view kLatency = "latency";      ///< One-way = RTT/2.
inline constexpr std::string_view kBandwidth = "bandwidth";  ///< Windowed streaming.
/// One-sided ping-pong (ucx_perftest put_lat's pattern): takyonWrite into the peer's receive
/// buffer, whose last word the peer polls in memory; one-way = RTT/2. Providers whose writes need
/// no call from the peer, polling mode, 8 B.
inline constexpr std::string_view kWriteLatency = "write_latency";
/// Ping-pong of takyonWritePiggyback / takyonRecvPiggyback (the value checked); one-way = RTT/2.
inline constexpr std::string_view kPiggybackLatency = "piggyback_latency";
/// Windows of started one-sided writes (takyonWriteStart) from one send buffer into one peer
/// receive buffer, each window closed by the finish test (takyonIsOneSidedFinished): ucx_perftest
/// ucp_put_bw's pattern. Ucx providers, at the sizes compared with ucx_perftest; the peer waits in
/// takyonRecv() meanwhile. ratio_to_floor: against ucx_perftest's ucp_put_bw (bandwidth / UCX's
/// best over the transports), where it ran.
inline constexpr std::string_view kWriteBandwidth = "write_bandwidth";
/// Spin ping-pong, one-way, between the path's two threads or processes, measured just before
/// the latency of the same size.
inline constexpr std::string_view kFloorCacheline = "floor_cacheline";
/// memcpy per message with the bandwidth test's buffers and window, measured just before it.
inline constexpr std::string_view kFloorMemcpy = "floor_memcpy";
// Socket providers: the same ping-pong and windowed stream on a plain socket (blocking send/recv
// written directly on the system calls) between the same two processes, measured just before the
// provider's test of the same size: plain_tcp_* (Socket), plain_unix_* (InterProcessSocket),
// plain_udp_* (Unicast, Multicast). See socket_providers.hpp.
inline constexpr std::string_view kPlainPrefix = "plain_";
inline constexpr std::string_view kLatencySuffix = "_latency";
inline constexpr std::string_view kBandwidthSuffix = "_bandwidth";
// --vs-ucx-perftest (Ucx providers): UCX's own benchmark over the same transports, run in slices
// between the provider's test of the same size: ucx_perftest_<tls>_<test> (tls "tcp", "sysv",
// "posix"; test "ucp_put_lat", "tag_bw", ...), and the best of the compared tests over the
// transports (latency: lowest of ucp_put_lat and tag_lat; bandwidth: highest of ucp_put_bw and
// tag_bw). See ucx_compare.hpp.
inline constexpr std::string_view kUcxPerftestPrefix = "ucx_perftest_";
inline constexpr std::string_view kUcxPerftestBandwidthSuffix = "_bw";
inline constexpr std::string_view kUcxBestLatency = "ucx_perftest_best_latency";
inline constexpr std::string_view kUcxBestBandwidth = "ucx_perftest_best_bandwidth";
}  // namespace test_name

/// One measured size of one test. Times are per message, in nanoseconds.
struct Record {
  std::string provider;  ///< "InterProcessMemcpy"; floors carry the run they were measured for.
  std::string mode;      ///< "polling" or "event".
  std::string test;      ///< One of test_name.
  std::uint64_t bytes = 0;
  Summary summary;
  /// Latency: p50 / cache-line floor p50 (lower is better, 1.0 is the floor).
  /// Bandwidth: memcpy p50 / p50 = bandwidth / memcpy bandwidth (higher is better).
  /// Socket providers: the same against the plain socket baseline (latency p50 / plain p50;
  /// plain p50 / bandwidth p50 = bandwidth / plain bandwidth).
  /// ucx_perftest_* records: the provider's figure of this size against this one (latency p50 /
  /// UCX's p50; provider bandwidth / UCX bandwidth).
  double ratio_to_floor = 1.0;
  std::uint64_t window = 0;  ///< Messages per window (bandwidth, floor_memcpy), else 0.
  /// Datagram streams (Unicast, Multicast and their plain UDP baseline): messages sent minus
  /// messages received over all runs of this size, warm-up included (negative: duplicates).
  /// Meaningful only if has_loss.
  std::int64_t lost = 0;
  bool has_loss = false;
  /// collective_* records (--collectives): the model's latency in p2p one-way hops (barrier and
  /// allreduce 2 x tree depth, reduce and bcast the depth, alltoall and p2p 1); JSON only.
  double model_ratio = 0;
  /// ucx_perftest_best_*: the record the best figure came from ("ucx_perftest_posix_ucp_put_lat");
  /// JSON only.
  std::string from;

  [[nodiscard]] bool has_bandwidth() const noexcept {
    return test == test_name::kBandwidth || test == test_name::kFloorMemcpy ||
           test == test_name::kWriteBandwidth ||
           (test.ends_with(test_name::kBandwidthSuffix) && test.starts_with(test_name::kPlainPrefix)) ||
           (test.starts_with(test_name::kUcxPerftestPrefix) &&
            (test.ends_with(test_name::kUcxPerftestBandwidthSuffix) || test == test_name::kUcxBestBandwidth));
  }
  /// Decimal MB/s from the p50 time (bytes per microsecond).
  [[nodiscard]] double bandwidth_mbps() const noexcept {
    return summary.p50 > 0 ? static_cast<double>(bytes) * 1e3 / summary.p50 : 0.0;
  }
};

/// A record of one measured size (ratio, window and loss left at their defaults).
inline Record make_record(const std::string& provider, const std::string& mode, std::string_view test,
                          std::uint64_t bytes, const Summary& summary) {
  Record r;
  r.provider = provider;
  r.mode = mode;
  r.test = std::string(test);
  r.bytes = bytes;
  r.summary = summary;
  return r;
}

struct Results {
  std::vector<Record> records;
  std::vector<std::string> errors;    ///< Runs that failed, with the reason.
  std::vector<std::string> warnings;  ///< Runs whose numbers are suspect (an unsteady floor).

  /// The record with these keys, or nullptr.
  [[nodiscard]] const Record* find(std::string_view provider, std::string_view mode, std::string_view test,
                                   std::uint64_t bytes) const {
    for (const Record& r : records) {
      if (r.provider == provider && r.mode == mode && r.test == test && r.bytes == bytes) return &r;
    }
    return nullptr;
  }
};

/// "polling" or "event".
inline std::string mode_name(bool polling) {
  return polling ? "polling" : "event";
}

}  // namespace takyon::bench
