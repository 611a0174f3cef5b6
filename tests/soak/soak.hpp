// SPDX-License-Identifier: MIT
// The path API soak: its options, the byte pattern of every message, and the two drivers.
#pragma once

#include <cstdint>
#include <string>

#include "takyon/takyon_providers.h"

namespace takyon::soak {

/// What one run soaks and for how long.
struct Options {
  std::string provider;           ///< a row of the provider table (the sending half for a datagram pair)
  uint64_t messages = 100000;     ///< messages from A to B (each connected one is answered by B)
  uint64_t seed = 1;              ///< every random choice of both endpoints follows from it
  double seconds = 0;             ///< > 0: start no new segment after this long, whatever `messages` says
  uint64_t max_bytes = 262144;    ///< largest buffer a segment may declare
  uint64_t max_segment = 100000;  ///< most messages one path carries before it is destroyed and made anew
  uint32_t path_id = 0;           ///< the ID the paths use (unique per run)
  /// > 0: message `inject_repeat` carries the content of the message before it (connected) or is sent
  /// twice (datagram), so that a run shows that the checks catch a repeated message.
  uint64_t inject_repeat = 0;
};

/// What a run did, for the summary line.
struct Totals {
  uint64_t segments = 0;   ///< paths created and destroyed (per endpoint)
  uint64_t messages = 0;   ///< messages A to B checked (connected) or sent (datagram)
  uint64_t replies = 0;    ///< messages B to A checked (connected only)
  uint64_t bytes = 0;      ///< payload bytes checked, both directions
  uint64_t received = 0;   ///< datagrams that arrived intact (datagram only)
  uint64_t lost = 0;       ///< datagrams that never arrived (datagram only)
  uint64_t reordered = 0;  ///< datagrams that arrived after a later one (datagram only)
};

/// splitmix64's finalizer: a bijection of 64-bit words, so distinct inputs give distinct outputs.
[[nodiscard]] constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The key of message `seq` in direction `dir` (0: A to B, 1: B to A). Word 0 of a message's pattern
/// is its key and keys are distinct for distinct (seq, dir): a message of 8 bytes or more that is
/// lost, repeated, stale or out of order cannot pass the check of the one expected.
[[nodiscard]] constexpr uint64_t message_key(uint64_t seed, uint64_t seq, int dir) {
  return mix64(mix64(seed) ^ mix64((seq << 1) | static_cast<uint64_t>(dir & 1)));
}

/// Writes `bytes` bytes of the pattern of `key` at `data`: little-endian words key + j * odd constant,
/// so every 8-byte word of a message differs from every other (a shifted copy fails too).
void fill_pattern(uint8_t* data, uint64_t bytes, uint64_t key);

/// "" when `data` holds the pattern of `key`, else where the first wrong byte is, what was expected
/// there and how many bytes differ.
[[nodiscard]] std::string check_pattern(const uint8_t* data, uint64_t bytes, uint64_t key);

/// A message's size and where it lies in the send and receive buffers.
struct Shape {
  uint64_t bytes = 0;
  uint64_t src_offset = 0;
  uint64_t dest_offset = 0;
};

/// The shape of message `seq` in direction `dir`: mostly small, sometimes up to the buffers' size,
/// now and then under 8 bytes or empty; offsets anywhere the message fits. `same_offset`: the
/// provider shares buffers (dest_offset = src_offset); `dest_zero`: datagrams land at offset 0;
/// `min_bytes`: the smallest size allowed (datagrams carry an 8-byte sequence number).
[[nodiscard]] Shape shape_of(uint64_t seed, uint64_t seq, int dir, uint64_t send_bytes, uint64_t recv_bytes,
                             uint64_t max_message, bool same_offset, bool dest_zero, uint64_t min_bytes);

/// Soaks a reliable connected provider: segments of random length, each on a fresh path with random
/// buffers, window, polling, completion and timeouts, every message answered and every byte checked.
/// Endpoint B runs as a thread (threads-only providers) or as a fork()ed child. Prints what failed to
/// stderr; returns true when every message of both directions arrived intact.
[[nodiscard]] bool soak_connected(const TakyonProviderInfo& info, const Options& options, Totals& totals);

/// Soaks a connectionless pair (UnicastSendSocket/UnicastRecvSocket, the Multicast pair) on loopback
/// as two threads: sequence numbers in every datagram; corruption, duplicates and out-of-range
/// numbers fail, losses and reordering are counted. True when nothing arrived wrong and at least a
/// tenth of the datagrams arrived.
[[nodiscard]] bool soak_datagram(const TakyonProviderInfo& info, const Options& options, Totals& totals);

}  // namespace takyon::soak
