// SPDX-License-Identifier: MIT
// The socket tests: endpoint A's workloads and endpoint B's serving loop, each run either over the
// provider's link or over the plain socket baseline with the same code.
#pragma once

#include <cstdint>

#include "measure.hpp"
#include "path_protocol.hpp"
#include "socket_link.hpp"
#include "socket_protocol.hpp"

namespace takyon::bench {

/// What bandwidth runs saw on a link (connected links: messages sent, nothing else).
struct StreamStats {
  std::uint64_t sent = 0;    ///< Stream messages A sent.
  std::int64_t lost = 0;     ///< Messages sent minus messages B received (negative: duplicates).
  std::uint64_t late = 0;    ///< Messages that arrived after B had acknowledged their window.
  std::uint64_t stalls = 0;  ///< Windows whose acknowledgement A waited kAckWaitS for in vain.
};

/// Endpoint A. Each run sends B a Command over the control channel `ctl` and waits for B's
/// 'taken', runs one untimed iteration, the timed samples, then exchanges the end-of-run report.
class SocketDriver {
 public:
  SocketDriver(int ctl, Link& provider, Link& plain) : ctl_(ctl), provider_(provider), plain_(plain) {}

  /// Ping-pong on slot 0 both ways; one iteration = one round trip, per-message = RTT/2.
  /// Connectionless: a pong missing for kPongWaitS fails the run.
  Workload latency(bool plain, std::uint64_t bytes);
  /// `window` messages round robin over the kWindowBuffers slots, then B's acknowledgement on
  /// slot 0 (0 bytes; connectionless: 8 bytes carrying the window's number); one iteration = one
  /// window. Connectionless messages carry their window's number (read_stamp); B acknowledges a
  /// window when it has all of it, or after kDatagramSliceS of silence with part of it.
  Workload bandwidth(bool plain, std::uint64_t bytes, std::uint64_t window);
  /// Summed over the bandwidth runs (warm-up included) on the plain or the provider's link
  /// since reset_stream_stats().
  [[nodiscard]] const StreamStats& stream_stats(bool plain) const { return stream_[plain ? 1 : 0]; }
  void reset_stream_stats() { stream_[0] = stream_[1] = StreamStats{}; }
  /// The cache-line floor between the two processes (shared-memory Ucx providers): B leaves its
  /// control-channel wait to echo on `line` (shared before the fork) until A stops it; one
  /// iteration = one round trip, per-message = RTT/2.
  Workload cacheline_floor(CachelinePingPong& line) const;
  /// Windows of started one-sided writes over the provider's link (Link::write_window), B inside
  /// a receive meanwhile; one message per write, like bandwidth().
  Workload write_bandwidth(std::uint64_t bytes, std::uint64_t window);
  /// Tells B to leave its loop.
  void quit() const;

 private:
  void begin(const Command& command) const;
  RunReport end(Link& link, bool drain) const;
  int ctl_;
  Link& provider_;
  Link& plain_;
  StreamStats stream_[2];  // provider, plain
};

/// Endpoint B: serves A's commands on `ctl` until kQuit; `line` answers kCachelineFloor (null:
/// that command is an error). Throws on any error.
void run_socket_peer(int ctl, Link& provider, Link& plain, CachelinePingPong* line = nullptr);

/// Throws away what waits in a connectionless link's receive queue (a datagram that arrived after
/// its run gave up on it); returns at the first slice without one.
void drain_link(Link& link);

}  // namespace takyon::bench
