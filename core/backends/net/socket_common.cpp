// SPDX-License-Identifier: MIT
// Socket helpers shared by the stream and datagram providers.
#include "backends/net/socket_common.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace takyon::detail {

sockaddr_in Ipv4Endpoint::sockaddr() const noexcept {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_addr = addr;
  out.sin_port = htons(port);
  return out;
}

std::string Ipv4Endpoint::text() const {
  std::string out = ipv4_text(addr);
  if (port != 0) {
    out.push_back(':');  // appends, not operator+ (GCC 12 -Wrestrict false positive at -O3)
    out.append(std::to_string(port));
  }
  return out;
}

std::string ipv4_text(in_addr addr) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &addr, text, sizeof(text));
  return text;
}

Status parse_ipv4(std::string_view text, const std::string& provider, const char* what, in_addr& out,
                  ErrorLog& log) {
  const std::string copy(text);
  if (inet_pton(AF_INET, copy.c_str(), &out) != 1) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': %s=%s is not an IPv4 address in dotted form (e.g. 127.0.0.1)",
                       provider.c_str(), what, copy.c_str());
  }
  return Status::kOk;
}

Status set_nonblocking(int fd, const char* what, ErrorLog& log) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "cannot make the %s non-blocking: %s", what,
                       errno_text(errno).c_str());
  }
  return Status::kOk;
}

Status set_option(int fd, int level, int name, int value, const char* option_name, ErrorLog& log) {
  if (setsockopt(fd, level, name, &value, sizeof(value)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "setsockopt(%s, %d) failed: %s", option_name, value,
                       errno_text(errno).c_str());
  }
  return Status::kOk;
}

Status wait_fd(int fd, short events, Deadline deadline, int64_t max_wait_ns, short& revents, ErrorLog& log) {
  revents = 0;
  for (;;) {
    int64_t wait_ns = deadline.remaining_ns(now_ns());
    if (max_wait_ns >= 0) wait_ns = std::min(wait_ns, max_wait_ns);
    pollfd p{fd, events, 0};
    timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
    const int n = ppoll(&p, 1, wait_ns == INT64_MAX ? nullptr : &ts, nullptr);
    if (n > 0) {
      revents = p.revents;
      return Status::kOk;
    }
    if (n < 0 && errno != EINTR) {
      return TAKYON_FAIL(log, Status::kSystem, "poll on a socket failed: %s", errno_text(errno).c_str());
    }
    if (n == 0) return Status::kTimedOut;
  }
}

Status local_address_for(in_addr peer, in_addr& out, ErrorLog& log) {
  common::UniqueFd probe(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!probe.valid()) {
    return TAKYON_FAIL(log, Status::kSystem, "socket(AF_INET, SOCK_DGRAM) failed: %s",
                       errno_text(errno).c_str());
  }
  const sockaddr_in to = Ipv4Endpoint{peer, 9}.sockaddr();
  if (connect(probe.get(), reinterpret_cast<const sockaddr*>(&to), sizeof(to)) != 0) {
    return TAKYON_FAIL(log, errno == ENETUNREACH ? Status::kDisconnected : Status::kSystem,
                       "no route from this host to %s: %s", ipv4_text(peer).c_str(),
                       errno_text(errno).c_str());
  }
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  if (getsockname(probe.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "getsockname failed: %s", errno_text(errno).c_str());
  }
  out = local.sin_addr;
  return Status::kOk;
}

namespace {

// Calls fn(ifaddrs&) for every IPv4 address of this host until it returns true.
template <typename Fn>
bool for_each_ipv4(Fn&& fn) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* it = list; it != nullptr && !found; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    found = fn(*it);
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

bool is_local_address(in_addr addr) {
  return for_each_ipv4([&](const ifaddrs& it) {
    return reinterpret_cast<const sockaddr_in*>(it.ifa_addr)->sin_addr.s_addr == addr.s_addr;
  });
}

Status interface_mtu(in_addr local, int& mtu, ErrorLog& log) {
  std::string name;
  const bool found = for_each_ipv4([&](const ifaddrs& it) {
    if (reinterpret_cast<const sockaddr_in*>(it.ifa_addr)->sin_addr.s_addr != local.s_addr) return false;
    name = it.ifa_name;
    return true;
  });
  if (!found) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "%s is not an address of this host's interfaces",
                       ipv4_text(local).c_str());
  }
  common::UniqueFd probe(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq request{};
  std::snprintf(request.ifr_name, sizeof(request.ifr_name), "%s", name.c_str());
  if (!probe.valid() || ioctl(probe.get(), SIOCGIFMTU, &request) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "cannot read the MTU of interface %s: %s", name.c_str(),
                       errno_text(errno).c_str());
  }
  mtu = request.ifr_mtu;
  return Status::kOk;
}

}  // namespace takyon::detail

namespace takyon::detail {

Status check_tcp_link(int fd, int64_t& outq_since_ns, const std::string& peer, bool& idle, ErrorLog& log) {
  idle = false;
  const int64_t now = now_ns();
  int outq = 0;
  if (ioctl(fd, SIOCOUTQ, &outq) != 0) outq = 0;
  if (outq == 0) {
    outq_since_ns = 0;
    idle = true;
    return Status::kOk;
  }
  if (outq_since_ns == 0) {
    outq_since_ns = now;
    return Status::kOk;
  }
  if (now - outq_since_ns < kLinkSilenceNs) return Status::kOk;
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return Status::kOk;
  if (info.tcpi_snd_wnd == 0 && info.tcpi_probes < 2) return Status::kOk;
  if (static_cast<int64_t>(info.tcpi_last_ack_recv) * 1'000'000 < kLinkSilenceNs) return Status::kOk;
  return TAKYON_FAIL(
      log, Status::kDisconnected,
      "no acknowledgement from %s for %u ms with %d bytes unacknowledged: the link is down or the "
      "peer host is gone",
      peer.c_str(), info.tcpi_last_ack_recv, outq);
}

}  // namespace takyon::detail
