// SPDX-License-Identifier: MIT
// Small socket helpers shared by the stream (TCP, Unix) and datagram (UDP) providers: address
// parsing, deadline-bounded waits, full reads/writes, descriptor ownership.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <string>
#include <utility>

#include "deadline.hpp"
#include "error_log.hpp"

namespace takyon::detail {

/// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// Parses a dotted IPv4 address ("127.0.0.1"); names the bad value on failure.
Status parse_ipv4(const std::string& text, const char* what, in_addr& out, ErrorLog& log);

/// "a.b.c.d:port".
std::string endpoint_text(const sockaddr_in& addr);

/// Waits until `fd` is readable/writable (`events` as for poll()) or the deadline passes, in
/// slices no longer than `slice_ns` (0: no limit). kOk, kTimedOut, or kSystem.
Status wait_fd(int fd, short events, Deadline deadline, ErrorLog& log, int64_t slice_ns = 0);

/// Makes `fd` non-blocking and close-on-exec.
Status set_nonblocking(int fd, ErrorLog& log);

}  // namespace takyon::detail
