// SPDX-License-Identifier: MIT
// Control-channel I/O and sequence stamps of the socket tests.
#include "socket_protocol.hpp"

#include <endian.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace takyon::bench {

void stamp(std::byte* data, std::uint64_t bytes, std::uint64_t value) {
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, 8));
  const std::uint64_t le = htole64(value);
  std::memcpy(data, &le, n);
}

std::uint64_t read_stamp(const std::byte* data, std::uint64_t bytes, std::uint64_t near) {
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, 8));
  if (n == 0) return near;
  std::uint64_t le = 0;
  std::memcpy(&le, data, n);
  const std::uint64_t value = le64toh(le);
  if (n == 8) return value;
  // Only the low 8n bits: take the value with those bits nearest to `near`.
  const std::uint64_t span = std::uint64_t{1} << (8 * n);
  std::uint64_t candidate = (near & ~(span - 1)) | value;
  if (candidate > near && candidate - near > span / 2 && candidate >= span) {
    candidate -= span;
  } else if (candidate < near && near - candidate > span / 2) {
    candidate += span;
  }
  return candidate;
}

void ctl_write(int fd, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const std::byte*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "control channel: the other process went away");
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void ctl_read(int fd, void* data, std::size_t bytes) {
  auto* p = static_cast<std::byte*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, p, bytes, 0);
    if (n == 0) throw std::runtime_error("control channel: the other process went away");
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "control channel");
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

bool ctl_end_pending(int fd) {
  for (;;) {
    char c = 0;
    const ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 1) return true;
    if (n == 0) throw std::runtime_error("control channel: endpoint A went away");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    throw std::system_error(errno, std::generic_category(), "control channel");
  }
}

}  // namespace takyon::bench
