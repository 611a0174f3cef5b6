// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the rendezvous client and the launcher.
#include "socket_util.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
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

bool parse_ipv4_endpoint(std::string_view text, unsigned& addr_be, unsigned short& port_be) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  const std::string host(text.substr(0, colon));
  const std::string_view port_text = text.substr(colon + 1);
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return false;
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
    return false;
  addr_be = addr.s_addr;
  port_be = htons(static_cast<unsigned short>(port));
  return true;
}

}  // namespace takyon::mpi::detail
