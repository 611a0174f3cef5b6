// SPDX-License-Identifier: MIT
// The soak's byte pattern and message shapes: cheap enough to fill and check every byte of 10^7 messages.
#include <cstdio>
#include <cstring>

#include "soak/soak.hpp"

namespace takyon::soak {
namespace {

constexpr uint64_t kStep = 0xD1B54A32D192ED03ull;  // odd: word j = key + j * kStep never repeats in a message

uint8_t pattern_byte(uint64_t key, uint64_t k) {
  const uint64_t word = key + (k >> 3) * kStep;
  return static_cast<uint8_t>(word >> ((k & 7u) * 8u));
}

uint64_t to_little(uint64_t word) {
  if constexpr (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) return __builtin_bswap64(word);
  return word;
}

// A uniform value in [lo, hi] from random bits r.
uint64_t in_range(uint64_t r, uint64_t lo, uint64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = hi - lo;
  return span == UINT64_MAX ? r : lo + r % (span + 1);
}

// Log-uniform in [lo, hi] (lo >= 1): small values as likely per octave as large ones.
uint64_t log_uniform(uint64_t r, uint64_t lo, uint64_t hi) {
  if (hi <= lo) return lo;
  const int bits_hi = 64 - __builtin_clzll(hi);
  const int bits = 1 + static_cast<int>((r & 0xFF) % static_cast<uint64_t>(bits_hi));
  const uint64_t top = bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  const uint64_t bottom = uint64_t{1} << (bits - 1);
  const uint64_t v = in_range(r >> 8, bottom, top);
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace

void fill_pattern(uint8_t* data, uint64_t bytes, uint64_t key) {
  uint64_t k = 0;
  uint64_t word = key;
  for (; k + 8 <= bytes; k += 8, word += kStep) {
    const uint64_t le = to_little(word);
    std::memcpy(data + k, &le, 8);
  }
  for (; k < bytes; ++k) data[k] = pattern_byte(key, k);
}

std::string check_pattern(const uint8_t* data, uint64_t bytes, uint64_t key) {
  bool same = true;
  uint64_t k = 0;
  uint64_t word = key;
  for (; k + 8 <= bytes; k += 8, word += kStep) {
    uint64_t actual = 0;
    std::memcpy(&actual, data + k, 8);
    if (actual != to_little(word)) {
      same = false;
      break;
    }
  }
  for (; same && k < bytes; ++k) same = data[k] == pattern_byte(key, k);
  if (same) return {};
  uint64_t first = bytes;
  uint64_t wrong = 0;
  for (k = 0; k < bytes; ++k) {
    if (data[k] == pattern_byte(key, k)) continue;
    if (first == bytes) first = k;
    ++wrong;
  }
  char text[200];
  std::snprintf(text, sizeof(text), "byte %llu of %llu is 0x%02x, expected 0x%02x (%llu bytes differ)",
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(bytes), data[first],
                pattern_byte(key, first), static_cast<unsigned long long>(wrong));
  return text;
}

Shape shape_of(uint64_t seed, uint64_t seq, int dir, uint64_t send_bytes, uint64_t recv_bytes,
               uint64_t max_message, bool same_offset, bool dest_zero, uint64_t min_bytes) {
  const uint64_t r0 = mix64(message_key(seed, seq, dir) ^ 0x5EEDull);
  const uint64_t r1 = mix64(r0);
  const uint64_t r2 = mix64(r1);
  const uint64_t r3 = mix64(r2);
  uint64_t limit = send_bytes < recv_bytes ? send_bytes : recv_bytes;
  if (max_message != 0 && max_message < limit) limit = max_message;
  Shape shape;
  const uint64_t kind = r0 % 100;
  if (kind < 2) {
    shape.bytes = in_range(r1, 0, 7);  // empty and sub-word messages: the edges of the copy loops
  } else if (kind < 70) {
    shape.bytes = in_range(r1, 8, 256);
  } else if (kind < 95) {
    shape.bytes = log_uniform(r1, 257, 4096);
  } else {
    shape.bytes = log_uniform(r1, 4097, limit > 4097 ? limit : 4097);
  }
  if (shape.bytes < min_bytes) shape.bytes = min_bytes;
  if (shape.bytes > limit) shape.bytes = limit;
  const uint64_t src_room = (same_offset ? limit : send_bytes) - shape.bytes;
  const uint64_t dest_room = (same_offset ? limit : recv_bytes) - shape.bytes;
  // Offsets: often 0 or word aligned, otherwise anywhere (unaligned copies).
  const auto offset = [](uint64_t r, uint64_t room) -> uint64_t {
    switch (r % 4) {
      case 0:
        return 0;
      case 1:
        return in_range(r >> 2, 0, room) & ~uint64_t{7};
      default:
        return in_range(r >> 2, 0, room);
    }
  };
  shape.src_offset = offset(r2, src_room);
  shape.dest_offset = dest_zero ? 0 : (same_offset ? shape.src_offset : offset(r3, dest_room));
  return shape;
}

}  // namespace takyon::soak
