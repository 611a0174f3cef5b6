// SPDX-License-Identifier: MIT
// The process behind a rendezvous connection (see peer_process.hpp).
#include "peer_process.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace takyon::mpi::launcher {
namespace {

/// The parent of `pid` from /proc/<pid>/stat ("pid (comm) state ppid ..."), or -1.
pid_t parent_of(pid_t pid) noexcept {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return -1;
  const std::string_view stat(buf, static_cast<size_t>(n));
  // The command name may hold anything, ')' included: the fields start after the last one.
  const size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos || paren + 4 >= stat.size()) return -1;
  const char* first = stat.data() + paren + 4;  // past ") S "
  const char* last = stat.data() + stat.size();
  int ppid = -1;
  const auto [end, ec] = std::from_chars(first, last, ppid);
  if (ec != std::errc() || end == first) return -1;
  return static_cast<pid_t>(ppid);
}

}  // namespace

std::optional<PeerCredentials> peer_credentials(int fd) noexcept {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return std::nullopt;
  return PeerCredentials{cred.pid, cred.uid};
}

bool descends_from(pid_t pid, pid_t ancestor) noexcept {
  for (int generation = 0; generation < 64 && pid > 1; ++generation) {
    if (pid == ancestor) return true;
    pid = parent_of(pid);
  }
  return pid == ancestor;
}

}  // namespace takyon::mpi::launcher
