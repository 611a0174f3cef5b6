// SPDX-License-Identifier: MIT
// The netns peers' messages: an 8-byte sequence number, then a pattern derived from it; sizes too.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "support/byte_pattern.hpp"

namespace takyon::test::netns {

/// Every message starts with its sequence number (little-endian), so the receiver can tell which
/// message arrived even on a path that drops or reorders.
inline constexpr uint64_t kSeqBytes = 8;

/// A stream of messages: which pattern family and which sizes. Both peers and the test build the
/// same one from the same arguments.
struct MessageStream {
  uint64_t min_bytes = kSeqBytes;
  uint64_t max_bytes = 4096;
  int salt = 0;  ///< Tells the directions of one path apart (their bytes differ).
  /// Spread the sizes evenly over the powers of two between min_bytes and max_bytes instead of
  /// evenly over the bytes: each power of two gets about as many messages, so with 8 B..4 MiB a
  /// transport's small-message and large-message protocols both carry many of them.
  bool log_sizes = false;

  /// Message `seq`'s size: every tenth message is max_bytes (the limit is exercised), the others
  /// are spread over [min_bytes, max_bytes].
  [[nodiscard]] uint64_t size_of(uint64_t seq) const {
    if (seq % 10 == 0 || max_bytes <= min_bytes) return max_bytes;
    uint64_t x = seq * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(salt) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    if (!log_sizes) return min_bytes + x % (max_bytes - min_bytes + 1);
    // A power of two [2^(k-1), 2^k) between those of min and max, then a size within it.
    const int low = static_cast<int>(std::bit_width(min_bytes));
    const int high = static_cast<int>(std::bit_width(max_bytes));
    const int k = low + static_cast<int>((x >> 8) % static_cast<uint64_t>(high - low + 1));
    const uint64_t base = uint64_t{1} << (k - 1);
    const uint64_t size = base + (x >> 36) % base;
    return size < min_bytes ? min_bytes : size > max_bytes ? max_bytes : size;
  }

  /// Writes message `seq` (size_of(seq) bytes) at `data`.
  void write(void* data, uint64_t seq) const {
    auto* out = static_cast<uint8_t*>(data);
    for (uint64_t k = 0; k < kSeqBytes; ++k) out[k] = static_cast<uint8_t>(seq >> (8 * k));
    fill_pattern(out + kSeqBytes, size_of(seq) - kSeqBytes, seq, salt);
  }

  /// The sequence number a message carries (only meaningful when bytes >= kSeqBytes).
  [[nodiscard]] static uint64_t seq_of(const void* data) {
    const auto* in = static_cast<const uint8_t*>(data);
    uint64_t seq = 0;
    for (uint64_t k = 0; k < kSeqBytes; ++k) seq |= static_cast<uint64_t>(in[k]) << (8 * k);
    return seq;
  }

  /// "" if the `bytes` bytes at `data` are exactly message seq_of(data), else what is wrong.
  [[nodiscard]] std::string check(const void* data, uint64_t bytes) const {
    if (bytes < kSeqBytes) return "a message of " + std::to_string(bytes) + " bytes has no sequence number";
    const uint64_t seq = seq_of(data);
    if (bytes != size_of(seq)) {
      return "message " + std::to_string(seq) + " has " + std::to_string(bytes) + " bytes, expected " +
             std::to_string(size_of(seq));
    }
    return check_pattern(static_cast<const uint8_t*>(data) + kSeqBytes, bytes - kSeqBytes, seq, salt);
  }

  /// Total bytes of messages [0, count).
  [[nodiscard]] uint64_t total_bytes(uint64_t count) const {
    uint64_t sum = 0;
    for (uint64_t seq = 0; seq < count; ++seq) sum += size_of(seq);
    return sum;
  }
};

}  // namespace takyon::test::netns
