// SPDX-License-Identifier: MIT
// Endpoint A of the path tests: latency and bandwidth workloads driven over one path.
#pragma once

#include <cstdint>

#include "measure.hpp"
#include "path_protocol.hpp"

namespace takyon::bench {

/// Drives endpoint A. Each run() first sends B a Command saying what to expect and waits for B's
/// reply, then runs one untimed iteration, then the timed samples.
class PathDriver {
 public:
  PathDriver(takyon::Path& path, CachelinePingPong& line) : path_(path), line_(line) {}

  /// The latency floor between the same two sides: B leaves the path for a cache-line echo;
  /// one iteration = one round trip, per-message = RTT/2.
  Workload cacheline_floor();

  /// Ping-pong on buffer 0 both ways; one iteration = one round trip, per-message = RTT/2.
  Workload latency(std::uint64_t bytes);
  /// `window` sends round robin over the kWindowBuffers A->B buffers, then one zero-byte ack
  /// B->A; one iteration = one window, per-message = window time / window. Windows shorter than
  /// ~2 us are timed several at a time, like the ping-pong.
  Workload bandwidth(std::uint64_t bytes, std::uint64_t window);
  /// One-sided ping-pong on buffer 0 both ways (bytes >= 8): a takyonWrite whose last 8-byte word
  /// is the round's number, which the other side polls in its receive buffer; per-message = RTT/2.
  /// Only where writes need no call from the peer (TakyonPathCapabilities).
  Workload write_latency(std::uint64_t bytes);
  /// Ping-pong of write_piggyback()/recv() carrying the round's number, checked on both sides.
  Workload piggyback_latency(std::uint64_t bytes);
  /// Tells B to destroy its endpoint.
  void quit();

 private:
  void send_command(const Command& command);
  takyon::Path& path_;
  CachelinePingPong& line_;
};

/// Messages per bandwidth window for `bytes`: 64 small messages, fewer big ones (at least one
/// per buffer) so a window stays near 16 MiB and a 4 MiB sweep stays quick.
std::uint64_t window_messages(std::uint64_t bytes);

}  // namespace takyon::bench
