// SPDX-License-Identifier: MIT
// The soak drivers' side channel (a socketpair between endpoint A and B, outside Takyon) and helpers.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <unistd.h>

namespace takyon::soak {

/// Writes one plain struct whole; false when the peer has gone.
template <typename T>
bool put(int fd, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* p = reinterpret_cast<const char*>(&value);
  size_t left = sizeof(T);
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

/// Reads one plain struct whole; false when the peer has gone.
template <typename T>
bool get(int fd, T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto* p = reinterpret_cast<char*>(&value);
  size_t left = sizeof(T);
  while (left > 0) {
    const ssize_t n = read(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

/// A fixed-size text for the channel (a report's reason).
struct Text {
  char text[2048] = {};
  void set(const std::string& s) {
    const size_t n = s.size() < sizeof(text) - 1 ? s.size() : sizeof(text) - 1;
    s.copy(text, n);
    text[n] = '\0';
  }
};

/// /dev/shm entries whose name holds "takyon" and `id` as a whole '-'-delimited field: what a path
/// with that ID left behind.
std::string shm_leftovers(uint32_t id);

/// Open file descriptors of this process.
int open_fd_count();

/// A port on 127.0.0.1 that was free a moment ago (bound to 0 and released), of socket `type`.
uint16_t loopback_port(int type);

}  // namespace takyon::soak
