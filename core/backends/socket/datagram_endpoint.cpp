// SPDX-License-Identifier: MIT
// Connectionless providers over UDP: UnicastSendSocket/UnicastRecvSocket and
// MulticastSendSocket/MulticastRecvSocket. One direction only; a message is one datagram holding
// the raw payload (no Takyon header), so any UDP program can talk to a Takyon endpoint. A message
// arrives whole or not at all; drops, duplicates and reordering are the network's to make.
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "backends/common/spin.hpp"
#include "backends/net/socket_common.hpp"
#include "backends/socket/socket_backend.hpp"
#include "buffer_alloc.hpp"

namespace takyon::detail {
namespace {

// IPv4: 65535 minus the 20-byte IP header and the 8-byte UDP header.
constexpr uint64_t kMaxUdpPayload = 65507;
constexpr uint64_t kIpUdpHeaders = 28;
constexpr int kReceiveBufferBytes = 8 << 20;  // asked for; the kernel caps it at net.core.rmem_max

class DatagramEndpoint final : public Backend {
 public:
  DatagramEndpoint(common::UniqueFd fd, bool polling, std::string provider, ErrorLog& log)
      : fd_(std::move(fd)), polling_(polling), provider_(std::move(provider)), log_(log) {}

  Status allocate(const EndpointConfig& config) {
    for (const BufferSpec& spec : config.send) {
      std::byte* addr = nullptr;
      if (use_or_allocate(spec.app_addr, spec.bytes, owned_, log_, addr) != Status::kOk) return log_.status();
      buffers_.send.push_back(addr);
    }
    for (const BufferSpec& spec : config.recv) {
      std::byte* addr = nullptr;
      if (use_or_allocate(spec.app_addr, spec.bytes, owned_, log_, addr) != Status::kOk) return log_.status();
      buffers_.recv.push_back(addr);
      recv_size_.push_back(spec.bytes);
    }
    // The receiver is unknown: the core lets every size through and send() applies the datagram limit.
    buffers_.remote_recv_bytes.assign(config.send.size(), UINT64_MAX);
    return Status::kOk;
  }

  void set_destination(const Ipv4Endpoint& to, uint64_t max_bytes, std::string limit_reason) {
    to_ = to.sockaddr();
    max_bytes_ = max_bytes;
    limit_reason_ = std::move(limit_reason);
  }

  Status send(const SendArgs& args) override {
    if (args.dest_offset != 0) [[unlikely]] {
      return TAKYON_FAIL(log_, Status::kInvalidArgument,
                         "dest_offset is %llu: a connectionless receiver places each datagram at offset 0",
                         static_cast<unsigned long long>(args.dest_offset));
    }
    if (args.bytes > max_bytes_) [[unlikely]] {
      return TAKYON_FAIL(log_, Status::kInvalidArgument,
                         "a message of %llu bytes does not fit one datagram: at most %llu bytes (%s)",
                         static_cast<unsigned long long>(args.bytes),
                         static_cast<unsigned long long>(max_bytes_), limit_reason_.c_str());
    }
    const std::byte* data = buffers_.send[args.buffer] + args.src_offset;
    int64_t spin_since = 0;
    for (;;) {
      const ssize_t n = sendto(fd_.get(), data, args.bytes, MSG_DONTWAIT | MSG_NOSIGNAL,
                               reinterpret_cast<const sockaddr*>(&to_), sizeof(to_));
      if (n >= 0) return Status::kOk;
      const int err = errno;
      if (err == EINTR) continue;
      // The network's refusals are losses, which a connectionless path allows: an ICMP port
      // unreachable from a receiver that is not there (yet), a link or route that is down.
      if (err == ECONNREFUSED || err == ENETUNREACH || err == EHOSTUNREACH || err == ENETDOWN ||
          err == EHOSTDOWN) {
        return Status::kOk;
      }
      if (err == EMSGSIZE) {
        return TAKYON_FAIL(log_, Status::kInvalidArgument,
                           "a message of %llu bytes is larger than the path allows (EMSGSIZE; %s)",
                           static_cast<unsigned long long>(args.bytes), limit_reason_.c_str());
      }
      if (err != EAGAIN && err != EWOULDBLOCK && err != ENOBUFS) {
        return TAKYON_FAIL(log_, Status::kSystem, "sendto %s failed: %s",
                           Ipv4Endpoint{to_.sin_addr, ntohs(to_.sin_port)}.text().c_str(),
                           errno_text(err).c_str());
      }
      const Status waited = wait(POLLOUT, args.start, spin_since);
      if (waited != Status::kOk) return waited;
    }
  }

  Status is_send_finished(int /*buffer*/, Deadline /*finish*/) override { return Status::kOk; }

  Status recv(int buffer, Deadline start, double /*finish_timeout*/, RecvResult& out) override {
    const auto b = static_cast<size_t>(buffer);
    int64_t spin_since = 0;
    for (;;) {
      // MSG_TRUNC: the datagram's real length, to tell a truncated one from a whole one.
      const ssize_t n = ::recv(fd_.get(), buffers_.recv[b], recv_size_[b], MSG_DONTWAIT | MSG_TRUNC);
      if (n >= 0) {
        if (static_cast<uint64_t>(n) > recv_size_[b]) {
          return TAKYON_FAIL(log_, Status::kProtocol,
                             "a datagram of %zd bytes arrived but receive buffer %d holds %llu bytes; it was "
                             "discarded (give the buffer the size of the largest message)",
                             n, buffer, static_cast<unsigned long long>(recv_size_[b]));
        }
        out.bytes = static_cast<uint64_t>(n);
        out.offset = 0;
        return Status::kOk;
      }
      const int err = errno;
      if (err == EINTR) continue;
      if (err != EAGAIN && err != EWOULDBLOCK) {
        return TAKYON_FAIL(log_, Status::kSystem, "recv on '%s' failed: %s", provider_.c_str(),
                           errno_text(err).c_str());
      }
      const Status waited = wait(POLLIN, start, spin_since);
      if (waited != Status::kOk) return waited;
    }
  }

  Status destroy(bool /*graceful*/, Deadline /*deadline*/) override {
    fd_.reset();  // connectionless: nobody to coordinate with
    return Status::kOk;
  }

 private:
  // One wait step. kTimedOut at the deadline.
  Status wait(short events, Deadline deadline, int64_t& spin_since) {
    const int64_t now = now_ns();
    if (deadline.expired(now)) return Status::kTimedOut;
    if (polling_) {
      if (spin_since == 0) spin_since = now;
      spin_step(spin_since, now);
      return Status::kOk;
    }
    short revents = 0;
    const Status waited = wait_fd(fd_.get(), events, deadline, -1, revents, log_);
    return waited == Status::kTimedOut ? Status::kTimedOut : waited;
  }

  common::UniqueFd fd_;
  bool polling_;
  std::string provider_;
  ErrorLog& log_;
  std::vector<PageBuffer> owned_;
  std::vector<uint64_t> recv_size_;
  sockaddr_in to_{};
  uint64_t max_bytes_ = 0;
  std::string limit_reason_;
};

// The direction check every connectionless provider makes.
Status check_direction(const EndpointConfig& config, bool sender, ErrorLog& log) {
  const char* name = config.provider->name().c_str();
  const char* send_count = config.is_endpoint_a ? "nbufs_AtoB" : "nbufs_BtoA";
  const char* recv_count = config.is_endpoint_a ? "nbufs_BtoA" : "nbufs_AtoB";
  if (sender && (config.send.empty() || !config.recv.empty())) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "%s only sends: endpoint %c needs %s >= 1 and %s = 0 (it has %zu and %zu)", name,
                       config.side(), send_count, recv_count, config.send.size(), config.recv.size());
  }
  if (!sender && (config.recv.empty() || !config.send.empty())) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "%s only receives: endpoint %c needs %s >= 1 and %s = 0 (it has %zu and %zu)", name,
                       config.side(), recv_count, send_count, config.recv.size(), config.send.size());
  }
  return Status::kOk;
}

Status udp_socket(common::UniqueFd& out, ErrorLog& log) {
  out.reset(socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!out.valid())
    return TAKYON_FAIL(log, Status::kSystem, "socket(SOCK_DGRAM) failed: %s", errno_text(errno).c_str());
  return Status::kOk;
}

Status bind_udp(int fd, const Ipv4Endpoint& at, bool reuse, const std::string& text, ErrorLog& log) {
  if (reuse && set_option(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", log) != Status::kOk)
    return log.status();
  const sockaddr_in addr = at.sockaddr();
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0) return Status::kOk;
  const int err = errno;
  if (err == EADDRINUSE) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "'%s': port %u on %s is in use%s", text.c_str(),
                       at.port, ipv4_text(at.addr).c_str(),
                       reuse ? "" : " (add -reuse to share it with other receivers)");
  }
  if (err == EADDRNOTAVAIL) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "'%s': %s is not an address of this host", text.c_str(),
                       ipv4_text(at.addr).c_str());
  }
  return TAKYON_FAIL(log, Status::kSystem, "'%s': bind to %s failed: %s", text.c_str(), at.text().c_str(),
                     errno_text(err).c_str());
}

Status parse_port(const ProviderArgs& provider, uint16_t& port, ErrorLog& log) {
  port = static_cast<uint16_t>(provider.number("port"));
  if (port == 0) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': -port must be 1 to 65535",
                       provider.text().c_str());
  }
  return Status::kOk;
}

Status parse_group(const ProviderArgs& provider, in_addr& group, ErrorLog& log) {
  if (parse_ipv4(*provider.value("group"), provider.text(), "-group", group, log) != Status::kOk)
    return log.status();
  if (!IN_MULTICAST(ntohl(group.s_addr))) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s': -group=%s is not a multicast address (224.0.0.0 to 239.255.255.255)",
        provider.text().c_str(), ipv4_text(group).c_str());
  }
  return Status::kOk;
}

Status make_endpoint(const EndpointConfig& config, common::UniqueFd fd, ErrorLog& log,
                     std::unique_ptr<DatagramEndpoint>& out) {
  out = std::make_unique<DatagramEndpoint>(std::move(fd), config.is_polling, config.provider->text(), log);
  return out->allocate(config);
}

void grow_receive_buffer(int fd) {
  const int bytes = kReceiveBufferBytes;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

}  // namespace

Status SocketBackend::create_unicast_send(const EndpointConfig& config, Deadline /*deadline*/, ErrorLog& log,
                                          std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  Ipv4Endpoint to;
  if (check_direction(config, true, log) != Status::kOk ||
      parse_ipv4(*provider.value("IP"), provider.text(), "-IP", to.addr, log) != Status::kOk ||
      parse_port(provider, to.port, log) != Status::kOk) {
    return log.status();
  }
  if (IN_MULTICAST(ntohl(to.addr.s_addr))) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': -IP=%s is a multicast group; use MulticastSendSocket for groups",
                       provider.text().c_str(), ipv4_text(to.addr).c_str());
  }
  common::UniqueFd fd;
  if (udp_socket(fd, log) != Status::kOk) return log.status();
  std::unique_ptr<DatagramEndpoint> endpoint;
  if (make_endpoint(config, std::move(fd), log, endpoint) != Status::kOk) return log.status();
  endpoint->set_destination(to, kMaxUdpPayload,
                            "the UDP limit: 65535 minus 28 bytes of IPv4 and UDP headers");
  out = std::move(endpoint);
  return Status::kOk;
}

Status SocketBackend::create_unicast_recv(const EndpointConfig& config, Deadline /*deadline*/, ErrorLog& log,
                                          std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  Ipv4Endpoint at;
  if (check_direction(config, false, log) != Status::kOk ||
      parse_ipv4(*provider.value("IP"), provider.text(), "-IP", at.addr, log) != Status::kOk ||
      parse_port(provider, at.port, log) != Status::kOk) {
    return log.status();
  }
  common::UniqueFd fd;
  if (udp_socket(fd, log) != Status::kOk ||
      bind_udp(fd.get(), at, provider.has_flag("reuse"), provider.text(), log) != Status::kOk) {
    return log.status();
  }
  grow_receive_buffer(fd.get());
  std::unique_ptr<DatagramEndpoint> endpoint;
  if (make_endpoint(config, std::move(fd), log, endpoint) != Status::kOk) return log.status();
  out = std::move(endpoint);
  return Status::kOk;
}

Status SocketBackend::create_multicast_send(const EndpointConfig& config, Deadline /*deadline*/,
                                            ErrorLog& log, std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  const std::string& text = provider.text();
  in_addr local{};
  Ipv4Endpoint group;
  if (check_direction(config, true, log) != Status::kOk ||
      parse_ipv4(*provider.value("IP"), text, "-IP", local, log) != Status::kOk ||
      parse_group(provider, group.addr, log) != Status::kOk ||
      parse_port(provider, group.port, log) != Status::kOk) {
    return log.status();
  }
  const uint64_t ttl = provider.value("TTL") ? provider.number("TTL") : 1;
  if (ttl > 255) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': -TTL=%llu is out of range (0 to 255)", text.c_str(),
                       static_cast<unsigned long long>(ttl));
  }
  int mtu = 0;
  if (interface_mtu(local, mtu, log) != Status::kOk) {
    TAKYON_FRAME(log, "interconnect '%s': -IP must be an address of this host (the interface to send from)",
                 text.c_str());
    return log.status();
  }
  common::UniqueFd fd;
  if (udp_socket(fd, log) != Status::kOk ||
      bind_udp(fd.get(), Ipv4Endpoint{local, 0}, false, text, log) != Status::kOk) {
    return log.status();
  }
  if (setsockopt(fd.get(), IPPROTO_IP, IP_MULTICAST_IF, &local, sizeof(local)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot send multicast from %s: %s", text.c_str(),
                       ipv4_text(local).c_str(), errno_text(errno).c_str());
  }
  if (set_option(fd.get(), IPPROTO_IP, IP_MULTICAST_TTL, static_cast<int>(ttl), "IP_MULTICAST_TTL", log) !=
          Status::kOk ||
      set_option(fd.get(), IPPROTO_IP, IP_MULTICAST_LOOP, provider.has_flag("noLoopback") ? 0 : 1,
                 "IP_MULTICAST_LOOP", log) != Status::kOk) {
    return log.status();
  }
  std::unique_ptr<DatagramEndpoint> endpoint;
  if (make_endpoint(config, std::move(fd), log, endpoint) != Status::kOk) return log.status();
  const uint64_t limit = std::min<uint64_t>(kMaxUdpPayload, static_cast<uint64_t>(mtu) - kIpUdpHeaders);
  endpoint->set_destination(
      group, limit,
      strf("the MTU of %s is %d bytes, minus 28 bytes of IPv4 and UDP headers; multicast "
           "is not fragmented here",
           ipv4_text(local).c_str(), mtu));
  out = std::move(endpoint);
  return Status::kOk;
}

Status SocketBackend::create_multicast_recv(const EndpointConfig& config, Deadline /*deadline*/,
                                            ErrorLog& log, std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  const std::string& text = provider.text();
  in_addr local{};
  Ipv4Endpoint group;
  if (check_direction(config, false, log) != Status::kOk ||
      parse_ipv4(*provider.value("IP"), text, "-IP", local, log) != Status::kOk ||
      parse_group(provider, group.addr, log) != Status::kOk ||
      parse_port(provider, group.port, log) != Status::kOk) {
    return log.status();
  }
  if (!is_local_address(local)) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s': -IP=%s is not an address of this host (the interface to join the group on)",
        text.c_str(), ipv4_text(local).c_str());
  }
  common::UniqueFd fd;
  // Bound to the group address: only this group's datagrams, not unicast to the same port.
  if (udp_socket(fd, log) != Status::kOk ||
      bind_udp(fd.get(), group, provider.has_flag("reuse"), text, log) != Status::kOk) {
    return log.status();
  }
  ip_mreq join{};
  join.imr_multiaddr = group.addr;
  join.imr_interface = local;
  if (setsockopt(fd.get(), IPPROTO_IP, IP_ADD_MEMBERSHIP, &join, sizeof(join)) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': cannot join group %s on %s: %s", text.c_str(),
                       ipv4_text(group.addr).c_str(), ipv4_text(local).c_str(), errno_text(errno).c_str());
  }
  const int all = 0;  // only the groups this socket joined
  (void)setsockopt(fd.get(), IPPROTO_IP, IP_MULTICAST_ALL, &all, sizeof(all));
  grow_receive_buffer(fd.get());
  std::unique_ptr<DatagramEndpoint> endpoint;
  if (make_endpoint(config, std::move(fd), log, endpoint) != Status::kOk) return log.status();
  out = std::move(endpoint);
  return Status::kOk;
}

}  // namespace takyon::detail
