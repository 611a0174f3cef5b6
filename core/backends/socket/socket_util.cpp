// SPDX-License-Identifier: MIT
// Socket helpers implementation.
#include "backends/socket/socket_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace takyon::detail {

void Fd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Status parse_ipv4(const std::string& text, const char* what, in_addr& out, ErrorLog& log) {
  if (inet_pton(AF_INET, text.c_str(), &out) != 1) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "%s '%s' is not a dotted IPv4 address", what, text.c_str());
  }
  return Status::kOk;
}

std::string endpoint_text(const sockaddr_in& addr) {
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof(ip));
  return strf("%s:%u", ip, static_cast<unsigned>(ntohs(addr.sin_port)));
}

Status wait_fd(int fd, short events, Deadline deadline, ErrorLog& log, int64_t slice_ns) {
  for (;;) {
    const int64_t now = now_ns();
    int64_t wait_ns = deadline.remaining_ns(now);
    if (slice_ns > 0) wait_ns = std::min(wait_ns, slice_ns);
    const int timeout_ms = deadline.is_forever() && slice_ns == 0
                               ? -1
                               : static_cast<int>(std::min<int64_t>((wait_ns + 999'999) / 1'000'000, INT32_MAX));
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready > 0) return Status::kOk;  // includes POLLERR/POLLHUP: the next call reports them
    if (ready < 0 && errno != EINTR) {
      const int err = errno;
      return TAKYON_FAIL(log, Status::kSystem, "poll failed: %s", errno_text(err).c_str());
    }
    if (deadline.expired()) return Status::kTimedOut;
    if (slice_ns > 0 && ready == 0) return Status::kTimedOut;  // the caller's slice ended
  }
}

Status set_nonblocking(int fd, ErrorLog& log) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
    const int err = errno;
    return TAKYON_FAIL(log, Status::kSystem, "fcntl(O_NONBLOCK) failed: %s", errno_text(err).c_str());
  }
  return Status::kOk;
}

}  // namespace takyon::detail
