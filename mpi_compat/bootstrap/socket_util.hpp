// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the rendezvous client and the launcher.
#pragma once

#include <string>
#include <string_view>

namespace takyon::mpi::detail {

/// Owns a file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// strerror(err) as a std::string.
[[nodiscard]] std::string errno_text(int err);

/// Writes all of data to a socket (blocking, MSG_NOSIGNAL, retries EINTR). Returns 0 or an errno.
[[nodiscard]] int send_all(int fd, std::string_view data) noexcept;

/// Parses "a.b.c.d:port" (IPv4). Returns false when it is not one.
[[nodiscard]] bool parse_ipv4_endpoint(std::string_view text, unsigned& addr_be, unsigned short& port_be);

}  // namespace takyon::mpi::detail
