// SPDX-License-Identifier: MIT
// splitmix64-based byte patterns and their checks.
#include "support/byte_pattern.hpp"

#include <cstdio>
#include <cstring>

namespace takyon::test {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t seed_of(uint64_t message, int buffer) {
  return splitmix64(message * 0x100000001B3ull ^
                    (static_cast<uint64_t>(static_cast<uint32_t>(buffer)) << 48));
}

uint8_t pattern_byte(uint64_t seed, uint64_t k) {
  const uint64_t word = splitmix64(seed + (k >> 3));
  return static_cast<uint8_t>(word >> ((k & 7u) * 8u));
}

}  // namespace

void fill_pattern(void* data, uint64_t bytes, uint64_t message, int buffer) {
  auto* out = static_cast<uint8_t*>(data);
  const uint64_t seed = seed_of(message, buffer);
  uint64_t k = 0;
  for (; k + 8 <= bytes; k += 8) {
    const uint64_t word = splitmix64(seed + (k >> 3));
    for (unsigned b = 0; b < 8; ++b) out[k + b] = static_cast<uint8_t>(word >> (b * 8u));
  }
  for (; k < bytes; ++k) out[k] = pattern_byte(seed, k);
}

std::string check_pattern(const void* data, uint64_t bytes, uint64_t message, int buffer) {
  const auto* in = static_cast<const uint8_t*>(data);
  const uint64_t seed = seed_of(message, buffer);
  // Fast path: whole words compared at once; fall back to a byte scan to describe a mismatch.
  bool same = true;
  uint64_t k = 0;
  for (; k + 8 <= bytes && same; k += 8) {
    const uint64_t expected = splitmix64(seed + (k >> 3));
    uint64_t actual = 0;
    std::memcpy(&actual, in + k, 8);
    if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) actual = __builtin_bswap64(actual);
    same = actual == expected;
  }
  for (; k < bytes && same; ++k) same = in[k] == pattern_byte(seed, k);
  if (same) return {};
  uint64_t first = bytes;
  uint64_t wrong = 0;
  for (k = 0; k < bytes; ++k) {
    if (in[k] != pattern_byte(seed, k)) {
      if (first == bytes) first = k;
      ++wrong;
    }
  }
  char text[256];
  std::snprintf(text, sizeof(text),
                "pattern of message %llu buffer %d: %llu of %llu bytes differ; first at byte %llu: "
                "expected 0x%02x, got 0x%02x",
                static_cast<unsigned long long>(message), buffer, static_cast<unsigned long long>(wrong),
                static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(first),
                pattern_byte(seed, first), in[first]);
  return text;
}

void fill_guard(void* data, uint64_t bytes) {
  std::memset(data, kGuardByte, bytes);
}

std::string check_guard(const void* data, uint64_t bytes) {
  const auto* in = static_cast<const uint8_t*>(data);
  for (uint64_t k = 0; k < bytes; ++k) {
    if (in[k] != kGuardByte) {
      char text[160];
      std::snprintf(text, sizeof(text), "guard byte %llu of %llu was overwritten: 0x%02x",
                    static_cast<unsigned long long>(k), static_cast<unsigned long long>(bytes), in[k]);
      return text;
    }
  }
  return {};
}

}  // namespace takyon::test
