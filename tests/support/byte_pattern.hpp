// SPDX-License-Identifier: MIT
// Byte patterns that depend on message index, buffer and position, so misplaced or stale bytes show.
#pragma once

#include <cstdint>
#include <string>

namespace takyon::test {

/// Fills `bytes` bytes at `data` with the pattern of message `message` in buffer `buffer`.
/// Byte k (counted from the message start) differs between messages, buffers and positions.
void fill_pattern(void* data, uint64_t bytes, uint64_t message, int buffer);

/// "" if `data` holds that pattern, else a description of the first mismatch (offset, expected,
/// actual, and how many bytes differ).
std::string check_pattern(const void* data, uint64_t bytes, uint64_t message, int buffer);

/// A constant filler for bytes outside a message, and its check ("" if intact).
inline constexpr uint8_t kGuardByte = 0xA5;
void fill_guard(void* data, uint64_t bytes);
std::string check_guard(const void* data, uint64_t bytes);

}  // namespace takyon::test
