// SPDX-License-Identifier: MIT
// Helpers for the socket provider tests: free loopback ports, raw sockets, groups unique per process.
#pragma once

#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace takyon::test {

/// A raw socket closed on scope exit.
class RawSocket {
 public:
  explicit RawSocket(int type) : fd_(socket(AF_INET, type | SOCK_CLOEXEC, 0)) {}
  ~RawSocket() {
    if (fd_ >= 0) close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  [[nodiscard]] int fd() const { return fd_; }
  /// Binds 127.0.0.1:port (0: any free port); returns the bound port, or 0 on failure.
  uint16_t bind_loopback(uint16_t port = 0) const {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return 0;
    socklen_t len = sizeof(addr);
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
    return ntohs(addr.sin_port);
  }

 private:
  int fd_;
};

/// A loopback port that was free a moment ago (bound to port 0, then released).
inline uint16_t free_port(int type = SOCK_STREAM) {
  RawSocket probe(type);
  return probe.bind_loopback();
}

/// An administratively scoped multicast group that concurrent test processes do not share.
inline std::string unique_group() {
  const unsigned pid = static_cast<unsigned>(getpid());
  return "239.255." + std::to_string(100 + pid % 150) + "." + std::to_string(1 + (pid / 150) % 250);
}

/// Test name suffix for suites parameterized on polling (true) or event driven (false).
inline std::string polling_param_name(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "Polling" : "Event";
}

}  // namespace takyon::test
