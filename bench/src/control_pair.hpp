// SPDX-License-Identifier: MIT
// The control channel of the two-process tests (socket and Ucx providers): an AF_UNIX socket pair
// made before the fork, so that commands never travel on the links under test.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <exception>
#include <system_error>

namespace takyon::bench {

/// B -> A over the control channel once its links are open.
inline constexpr char kPeerReady = 'R';

/// Both ends of the control channel; each process closes the other's end after the fork.
class ControlPair {
 public:
  ControlPair() {
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_.data()) != 0) {
      throw std::system_error(errno, std::generic_category(), "socketpair for the control channel");
    }
  }
  ~ControlPair() {
    close_end(0);
    close_end(1);
  }
  ControlPair(const ControlPair&) = delete;
  ControlPair& operator=(const ControlPair&) = delete;
  ControlPair(ControlPair&&) = delete;
  ControlPair& operator=(ControlPair&&) = delete;

  /// This process's end (0: A, 1: B), closing the other one.
  int keep(int end) {
    close_end(1 - end);
    return fds_[static_cast<std::size_t>(end)];
  }
  /// Closes end `end` if the scope it lives in is left by an exception.
  class CloseOnUnwind {
   public:
    CloseOnUnwind(ControlPair& pair, int end) : pair_(pair), end_(end) {}
    ~CloseOnUnwind() {
      if (std::uncaught_exceptions() > exceptions_) pair_.close_end(end_);
    }
    CloseOnUnwind(const CloseOnUnwind&) = delete;
    CloseOnUnwind& operator=(const CloseOnUnwind&) = delete;
    CloseOnUnwind(CloseOnUnwind&&) = delete;
    CloseOnUnwind& operator=(CloseOnUnwind&&) = delete;

   private:
    ControlPair& pair_;
    int end_;
    int exceptions_ = std::uncaught_exceptions();
  };

  void close_end(int end) {
    const auto i = static_cast<std::size_t>(end);
    if (fds_[i] >= 0) ::close(fds_[i]);
    fds_[i] = -1;
  }

 private:
  std::array<int, 2> fds_ = {-1, -1};
};

}  // namespace takyon::bench
