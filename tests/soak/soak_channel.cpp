// SPDX-License-Identifier: MIT
// What a soak segment may leave behind (shared memory, descriptors) and free loopback ports.
#include "soak/soak_channel.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <filesystem>
#include <string_view>

namespace takyon::soak {
namespace {

bool has_id_field(std::string_view name, const std::string& field) {
  size_t pos = 0;
  while ((pos = name.find(field, pos)) != std::string_view::npos) {
    const size_t end = pos + field.size();
    const bool left_ok = pos > 0 && name[pos - 1] == '-';
    const bool right_ok = end == name.size() || name[end] == '-' || name[end] == '.' || name[end] == '_';
    if (left_ok && right_ok) return true;
    pos = end;
  }
  return false;
}

}  // namespace

std::string shm_leftovers(uint32_t id) {
  std::string out;
  const std::string field = std::to_string(id);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find("takyon") == std::string::npos || !has_id_field(name, field)) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

int open_fd_count() {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n - 1;  // the iterator's own descriptor
}

uint16_t loopback_port(int type) {
  const int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace takyon::soak
