// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the rendezvous client and the launcher.
#include "socket_util.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace takyon::mpi::detail {

std::string errno_text(int err) {
  return std::strerror(err);
}

int send_all(int fd, std::string_view data) noexcept {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

socklen_t abstract_unix_address(std::string_view text, sockaddr_un& sa) noexcept {
  // sun_path holds the NUL that marks an abstract name, then the name (not NUL-terminated).
  if (text.size() < 2 || text[0] != '@' || text.size() > sizeof sa.sun_path ||
      text.find('\0') != std::string_view::npos) {
    return 0;
  }
  sa = sockaddr_un{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path + 1, text.data() + 1, text.size() - 1);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + text.size());
}

}  // namespace takyon::mpi::detail
