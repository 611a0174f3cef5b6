// SPDX-License-Identifier: MIT
// Channel selection and path naming (see provider.hpp).
#include "path/provider.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "common/knobs.hpp"
#include "takyon/takyon.hpp"

namespace takyon::mpi {

bool can_be_channel(const TakyonProviderInfo& p) {
  return p.reliable && p.connected && p.sends && p.receives && p.reach >= TAKYON_REACH_PROCESSES &&
         (p.addressing & TAKYON_ADDRESS_ID) != 0;
}

ProviderChoice provider_from_env() {
  ProviderChoice c;
  const std::string value = common::knob_text(common::KnobId::kMpiProvider);
  const char* p = value.c_str();
  if (value.empty() || value == "shm") return c;
  const TakyonProviderInfo* info = takyon::find_provider(p);
  if (info != nullptr && std::string(p) == info->name && can_be_channel(*info)) {
    if (!info->available) {
      throw std::invalid_argument(std::string("TAKYON_MPI_PROVIDER=") + p +
                                  ": this libtakyon was built without that provider");
    }
    c.forced = info->name;
    return c;
  }
  std::string accepted = "shm (default: shared memory on this host, Ucx to other hosts)";
  for (const TakyonProviderInfo& row : takyon::providers()) {
    if (can_be_channel(row) && row.available) accepted += std::string(", ") + row.name;
  }
  throw std::invalid_argument(std::string("TAKYON_MPI_PROVIDER=") + p +
                              " is not a channel; accepted: " + accepted);
}

std::string host_name_for_locality(const std::string& real_host, int rank) {
  if (!common::knob_is_set(common::KnobId::kMpiFakeHost)) return real_host;
  const std::string fake = common::knob_text(common::KnobId::kMpiFakeHost);
  if (fake == "rank") return real_host + "#fake-rank-" + std::to_string(rank);
  return real_host + "#fake-" + fake;
}

std::string encode(const PathRendezvous& r) {
  std::ostringstream out;
  out << r.id_base << ' ' << (r.ip.empty() ? "-" : r.ip) << ' ' << r.ports.size();
  for (int p : r.ports) out << ' ' << p;
  return out.str();
}

PathRendezvous decode(const std::string& s) {
  PathRendezvous r;
  std::istringstream in(s);
  std::size_t n = 0;
  in >> r.id_base >> r.ip >> n;
  if (r.ip == "-") r.ip.clear();
  r.ports.resize(n);
  for (auto& p : r.ports) in >> p;
  if (!in) throw std::runtime_error("malformed path rendezvous record '" + s + "'");
  return r;
}

std::string local_ucx_ip() {
  if (common::knob_is_set(common::KnobId::kMpiUcxIp)) return common::knob_text(common::KnobId::kMpiUcxIp);
  std::string found = "127.0.0.1";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    found = text;
    break;
  }
  freeifaddrs(list);
  return found;
}

int free_tcp_port(const std::string& ip) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() for a Ucx server port failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    close(fd);
    throw std::runtime_error("'" + ip + "' is not an IPv4 address (TAKYON_MPI_UCX_IP?)");
  }
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error("cannot bind a TCP port on " + ip + " for a Ucx server");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::uint32_t pair_path_id(std::uint32_t base, int a, int b, int size) {
  int lo = a < b ? a : b;
  int hi = a < b ? b : a;
  return base + std::uint32_t(lo) * std::uint32_t(size) + std::uint32_t(hi);
}

std::string forced_interconnect(const std::string& provider, std::uint32_t id, bool /*endpoint_a*/) {
  return provider + " -ID=" + std::to_string(id);
}

}  // namespace takyon::mpi
