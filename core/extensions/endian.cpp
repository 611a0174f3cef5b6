// SPDX-License-Identifier: MIT
// takyonEndianIsBig / takyonEndianSwap{2,4,8}Byte (unaligned data allowed).
#include <cstring>

#include "takyon/takyon_extensions.h"

namespace {

template <typename T, T (*Swap)(T)>
void swap_all(void* data, uint64_t count) {
  auto* bytes = static_cast<unsigned char*>(data);
  for (uint64_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, bytes + i * sizeof(T), sizeof(T));
    value = Swap(value);
    std::memcpy(bytes + i * sizeof(T), &value, sizeof(T));
  }
}

uint16_t swap16(uint16_t v) {
  return __builtin_bswap16(v);
}
uint32_t swap32(uint32_t v) {
  return __builtin_bswap32(v);
}
uint64_t swap64(uint64_t v) {
  return __builtin_bswap64(v);
}

}  // namespace

extern "C" {

bool takyonEndianIsBig(void) {
  const uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 0;
}

void takyonEndianSwap2Byte(void* data, uint64_t num_elements) {
  swap_all<uint16_t, swap16>(data, num_elements);
}
void takyonEndianSwap4Byte(void* data, uint64_t num_elements) {
  swap_all<uint32_t, swap32>(data, num_elements);
}
void takyonEndianSwap8Byte(void* data, uint64_t num_elements) {
  swap_all<uint64_t, swap64>(data, num_elements);
}

}  // extern "C"
