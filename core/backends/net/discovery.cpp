// SPDX-License-Identifier: MIT
// Multicast query / unicast answer discovery of a server's system-assigned port.
#include "backends/net/discovery.hpp"

#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/knobs.hpp"

namespace takyon::detail {
namespace {

constexpr char kDiscoveryMagic[8] = {'T', 'K', 'Y', 'D', 'I', 'S', 'C', '1'};
constexpr uint32_t kQuery = 1;
constexpr uint32_t kAnswer = 2;
constexpr const char* kDefaultGroup = "239.255.84.89";  // TAKYON_DISCOVERY_GROUP's default (common/knobs.cpp)

struct Message {
  char magic[8];
  uint32_t kind;
  uint32_t id;
  uint32_t server;  // network order, as in in_addr
  uint16_t port;    // little-endian
  uint16_t reserved;
  uint64_t nonce;
};
static_assert(sizeof(Message) == 32);

}  // namespace

Status discovery_group(Ipv4Endpoint& out, const std::string& provider, ErrorLog& log) {
  inet_pton(AF_INET, kDefaultGroup, &out.addr);
  if (common::knob_is_set(common::KnobId::kDiscoveryGroup)) {
    const std::string group = common::knob_text(common::KnobId::kDiscoveryGroup);
    in_addr addr{};
    if (inet_pton(AF_INET, group.c_str(), &addr) != 1 || !IN_MULTICAST(ntohl(addr.s_addr))) {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "'%s': TAKYON_DISCOVERY_GROUP='%s' is not an IPv4 multicast address (224.0.0.0/4)",
                         provider.c_str(), group.c_str());
    }
    out.addr = addr;
  }
  try {
    out.port = static_cast<uint16_t>(common::knob_integer(common::KnobId::kDiscoveryPort));
  } catch (const common::KnobError& e) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "'%s': %s", provider.c_str(), e.what());
  }
  return Status::kOk;
}

Status DiscoveryResponder::open(in_addr server, uint32_t id, uint16_t tcp_port, const std::string& provider,
                                ErrorLog& log) {
  server_ = server;
  id_ = id;
  tcp_port_ = tcp_port;
  Ipv4Endpoint group;
  if (discovery_group(group, provider, log) != Status::kOk) return log.status();
  fd_.reset(socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd_.valid()) {
    return TAKYON_FAIL(log, Status::kSystem, "socket(SOCK_DGRAM) for port discovery failed: %s",
                       errno_text(errno).c_str());
  }
  if (set_option(fd_.get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", log) != Status::kOk)
    return log.status();
  const sockaddr_in bound = group.sockaddr();
  if (bind(fd_.get(), reinterpret_cast<const sockaddr*>(&bound), sizeof(bound)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot bind the discovery socket to %s: %s",
                       provider.c_str(), group.text().c_str(), errno_text(errno).c_str());
  }
  ip_mreq join{};
  join.imr_multiaddr = group.addr;
  join.imr_interface = server;
  if (setsockopt(fd_.get(), IPPROTO_IP, IP_ADD_MEMBERSHIP, &join, sizeof(join)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot join the discovery group %s on %s: %s",
                       provider.c_str(), group.text().c_str(), ipv4_text(server).c_str(),
                       errno_text(errno).c_str());
  }
  const int all = 0;  // only the groups this socket joined
  (void)setsockopt(fd_.get(), IPPROTO_IP, IP_MULTICAST_ALL, &all, sizeof(all));
  return Status::kOk;
}

void DiscoveryResponder::answer() {
  for (;;) {
    Message query{};
    sockaddr_in from{};
    socklen_t from_len = sizeof(from);
    const ssize_t n = recvfrom(fd_.get(), &query, sizeof(query), MSG_DONTWAIT,
                               reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // EAGAIN, or an error that the accept loop's deadline will outlast
    }
    if (n != sizeof(query) || std::memcmp(query.magic, kDiscoveryMagic, sizeof(kDiscoveryMagic)) != 0 ||
        le32toh(query.kind) != kQuery || le32toh(query.id) != id_ || query.server != server_.s_addr) {
      continue;  // not for us (another server, a stray datagram)
    }
    Message reply = query;
    reply.kind = htole32(kAnswer);
    reply.port = htole16(tcp_port_);
    (void)sendto(fd_.get(), &reply, sizeof(reply), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&from),
                 from_len);
  }
}

Status discover_port(in_addr server, uint32_t id, Deadline deadline, const std::string& provider,
                     uint16_t& port, ErrorLog& log) {
  in_addr local{};
  if (local_address_for(server, local, log) != Status::kOk) return log.status();
  common::UniqueFd fd(socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return TAKYON_FAIL(log, Status::kSystem, "socket(SOCK_DGRAM) for port discovery failed: %s",
                       errno_text(errno).c_str());
  }
  const sockaddr_in bound = Ipv4Endpoint{local, 0}.sockaddr();
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&bound), sizeof(bound)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot bind the discovery socket to %s: %s",
                       provider.c_str(), ipv4_text(local).c_str(), errno_text(errno).c_str());
  }
  if (setsockopt(fd.get(), IPPROTO_IP, IP_MULTICAST_IF, &local, sizeof(local)) != 0 ||
      set_option(fd.get(), IPPROTO_IP, IP_MULTICAST_TTL, 1, "IP_MULTICAST_TTL", log) != Status::kOk ||
      set_option(fd.get(), IPPROTO_IP, IP_MULTICAST_LOOP, 1, "IP_MULTICAST_LOOP", log) != Status::kOk) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot send discovery queries from %s: %s",
                       provider.c_str(), ipv4_text(local).c_str(), errno_text(errno).c_str());
  }
  Message query{};
  std::memcpy(query.magic, kDiscoveryMagic, sizeof(kDiscoveryMagic));
  query.kind = htole32(kQuery);
  query.id = htole32(id);
  query.server = server.s_addr;
  if (getrandom(&query.nonce, sizeof(query.nonce), 0) != sizeof(query.nonce))
    query.nonce = static_cast<uint64_t>(now_ns());
  Ipv4Endpoint where;
  if (discovery_group(where, provider, log) != Status::kOk) return log.status();
  const sockaddr_in group = where.sockaddr();

  int64_t retry_ns = 2'000'000;  // a server that starts later is found within 100 ms of starting
  for (;;) {
    const ssize_t sent = sendto(fd.get(), &query, sizeof(query), MSG_DONTWAIT,
                                reinterpret_cast<const sockaddr*>(&group), sizeof(group));
    if (sent < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
      return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot send a discovery query to %s from %s: %s",
                         provider.c_str(), where.text().c_str(), ipv4_text(local).c_str(),
                         errno_text(errno).c_str());
    }
    const Deadline next = Deadline::after(static_cast<double>(retry_ns) * 1e-9);
    for (;;) {
      Message reply{};
      sockaddr_in from{};
      socklen_t from_len = sizeof(from);
      const ssize_t n = recvfrom(fd.get(), &reply, sizeof(reply), MSG_DONTWAIT,
                                 reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n == sizeof(reply) && std::memcmp(reply.magic, kDiscoveryMagic, sizeof(kDiscoveryMagic)) == 0 &&
          le32toh(reply.kind) == kAnswer && reply.nonce == query.nonce && le32toh(reply.id) == id &&
          reply.server == server.s_addr && le16toh(reply.port) != 0) {
        port = le16toh(reply.port);
        return Status::kOk;
      }
      if (n >= 0 || errno == EINTR) continue;  // not ours: keep reading
      const int64_t now = now_ns();
      if (deadline.expired(now)) return Status::kTimedOut;
      if (next.expired(now)) break;
      short revents = 0;
      const Deadline until = deadline.remaining_ns(now) < next.remaining_ns(now) ? deadline : next;
      const Status waited = wait_fd(fd.get(), POLLIN, until, -1, revents, log);
      if (waited != Status::kOk && waited != Status::kTimedOut) return waited;
    }
    retry_ns = std::min<int64_t>(retry_ns * 2, 100'000'000);
  }
}

}  // namespace takyon::detail
