// SPDX-License-Identifier: MIT
// What endpoint A tells endpoint B before each measured run, and the path layout both build.
#pragma once

#include <cstdint>
#include <string>

#include "cacheline_pingpong.hpp"
#include "takyon/takyon.hpp"

namespace takyon::bench {

/// Buffers A -> B: the bandwidth test keeps up to this many messages in flight.
inline constexpr int kWindowBuffers = 4;

/// A command, sent by A in A->B buffer 0 before each run; B copies it out, answers with zero
/// bytes B->A (the buffer is free again), then plays its side `count` times.
struct Command {
  /// kPlain*: the socket tests' baseline, the same test on the plain socket (socket_peer.cpp).
  enum class Op : std::uint32_t {
    kLatency = 1,
    kBandwidth = 2,
    kCachelineFloor = 3,
    kQuit = 4,
    kPlainLatency = 5,
    kPlainBandwidth = 6,
    kWriteLatency = 7,
    kPiggybackLatency = 8,
    kWriteBandwidth = 9,
  };
  static constexpr std::uint32_t kMagic = 0x54424e43;  // "TBNC"
  std::uint32_t magic = kMagic;
  Op op = Op::kQuit;
  std::uint64_t bytes = 0;   ///< Message size.
  std::uint64_t count = 0;   ///< Round trips (latencies) or windows (bandwidth).
  std::uint64_t window = 0;  ///< Messages per window (bandwidth).
};

/// The path of one provider/mode run: kWindowBuffers buffers A->B, one B->A (pongs and acks),
/// each of `buffer_bytes`, blocking sends, waits without timeout (a dead peer is reported by
/// the core as a disconnect).
takyon::PathOptions bench_path_options(const std::string& interconnect, bool endpoint_a, bool polling,
                                       std::uint64_t buffer_bytes);

/// Writes every send buffer of this endpoint once. Takyon allocates untouched anonymous memory:
/// until written, every page of it maps the kernel's shared zero page, and copies out of it run
/// from L1 instead of memory -- faster than the memcpy floor and than any real application.
void fill_send_buffers(takyon::Path& path);

/// Endpoint B: creates its endpoint and serves commands until kQuit (kCachelineFloor: echo on
/// `line` until A stops it). Throws on any error.
void run_path_peer(const takyon::PathOptions& options, CachelinePingPong& line);

/// The one-sided ping-pong's two halves: write `bytes` of send buffer 0 into the peer's receive
/// buffer 0, its last aligned word set to `round`; spin until this side's receive buffer 0 shows
/// `round` in that word.
void write_round(takyon::Path& path, std::uint64_t bytes, std::uint64_t round);
void wait_round(takyon::Path& path, std::uint64_t bytes, std::uint64_t round);

/// recv() that treats a start timeout as an error (the bench waits forever, so it is one).
takyon::Received recv_message(takyon::Path& path, int buffer);

/// send() that treats a start timeout as an error.
void send_message(takyon::Path& path, int buffer, std::uint64_t bytes);

}  // namespace takyon::bench
