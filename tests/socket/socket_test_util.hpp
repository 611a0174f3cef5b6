// SPDX-License-Identifier: MIT
// Helpers for the socket provider tests: free loopback ports, raw sockets, groups unique per process.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// Claims `port` for this test process until it exits, by binding an abstract Unix socket named after it
/// (the kernel drops the name when the process dies, however it dies). False if another test process, or
/// an earlier call in this one, holds it.
inline bool claim_port_for_process(uint16_t port) {
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const std::string name = "takyon-test-port-" + std::to_string(port);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract namespace
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    close(fd);
    return false;
  }
  return true;  // fd stays open on purpose: the claim lasts as long as the process
}

/// A loopback port that was free a moment ago (bound, then released) and that no other call in any
/// concurrently running test process has been given. Without the claim, two ctest processes could be
/// handed the same port, and a datagram one of them sends to a port its peer program has not bound yet
/// would land in the other's receiver. The ports lie in 10000-19999, below the kernel's ephemeral range
/// (32768 and up here), so no socket's implicit bind (a first sendto, a connect) takes one meanwhile,
/// and apart from tests/mpi/slurm's daemons (20000-31999).
inline uint16_t free_port(int type = SOCK_STREAM) {
  constexpr unsigned kFirst = 10000;
  constexpr unsigned kCount = 10000;
  const unsigned start =
      (static_cast<unsigned>(getpid()) * 7919U + static_cast<unsigned>(time(nullptr))) % kCount;
  for (unsigned i = 0; i < kCount; ++i) {
    const auto want = static_cast<uint16_t>(kFirst + (start + i * 4099U) % kCount);  // 4099: prime, steps all
    RawSocket probe(type);
    if (probe.bind_loopback(want) != want) continue;
    if (claim_port_for_process(want)) return want;
  }
  return 0;
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
