// SPDX-License-Identifier: MIT
// Socket provider names, their baselines, and unique provider strings per run.
#include "socket_providers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace takyon::bench {
namespace {

constexpr std::uint64_t kMaxUdpPayload = 65507;

// A loopback port that was free a moment ago. `keep` holds the probe socket open so that a
// second call returns a different port; the caller closes it.
std::uint16_t free_port(int type, int& keep) {
  keep = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (keep < 0) throw std::system_error(errno, std::generic_category(), "socket() for a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(keep, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(keep, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    close(keep);
    throw std::system_error(err, std::generic_category(), "binding 127.0.0.1:0 for a free port");
  }
  return ntohs(addr.sin_port);
}

// Two different free UDP ports.
void two_udp_ports(std::string& first, std::string& second) {
  int fd1 = -1;
  int fd2 = -1;
  const std::uint16_t p1 = free_port(SOCK_DGRAM, fd1);
  try {
    second = std::to_string(free_port(SOCK_DGRAM, fd2));
  } catch (...) {
    close(fd1);
    throw;
  }
  first = std::to_string(p1);
  close(fd1);
  close(fd2);
}

// Administratively scoped, from the pid: concurrent runs differ in their ports anyway (receivers
// bind group:port), the group only keeps them apart in `ip maddr` listings.
std::string multicast_group() {
  const auto pid = static_cast<unsigned>(getpid());
  return "239.255." + std::to_string(1 + (pid / 250) % 99) + "." + std::to_string(1 + pid % 250);
}

}  // namespace

std::string free_loopback_port() {
  int fd = -1;
  const std::uint16_t port = free_port(SOCK_STREAM, fd);
  close(fd);
  return std::to_string(port);
}

bool find_socket_provider(std::string_view name, SocketKind& kind) {
  if (name == "InterProcessSocket") {
    kind = SocketKind::kUnix;
  } else if (name == "Socket") {
    kind = SocketKind::kTcp;
  } else if (name == "Unicast") {
    kind = SocketKind::kUnicast;
  } else if (name == "Multicast") {
    kind = SocketKind::kMulticast;
  } else {
    return false;
  }
  return true;
}

const std::vector<std::string>& socket_provider_names() {
  static const std::vector<std::string> kNames = {"InterProcessSocket", "Socket", "Unicast", "Multicast"};
  return kNames;
}

bool socket_driver_covers(std::string_view name) {
  for (const char* row : {"InterProcessSocket", "Socket", "UnicastSendSocket", "UnicastRecvSocket",
                          "MulticastSendSocket", "MulticastRecvSocket"}) {
    if (name == row) return true;
  }
  return false;
}

std::uint64_t max_socket_message(SocketKind kind) {
  return is_datagram(kind) ? kMaxUdpPayload : UINT64_MAX;
}

const char* plain_tag(SocketKind kind) {
  switch (kind) {
    case SocketKind::kUnix:
      return "unix";
    case SocketKind::kTcp:
      return "tcp";
    case SocketKind::kUnicast:
    case SocketKind::kMulticast:
      break;
  }
  return "udp";
}

std::string plain_latency_test(SocketKind kind) {
  return "plain_" + std::string(plain_tag(kind)) + "_latency";
}

std::string plain_bandwidth_test(SocketKind kind) {
  return "plain_" + std::string(plain_tag(kind)) + "_bandwidth";
}

const char* plain_short(SocketKind kind) {
  switch (kind) {
    case SocketKind::kUnix:
      return "plain Unix socket";
    case SocketKind::kTcp:
      return "plain TCP";
    case SocketKind::kUnicast:
    case SocketKind::kMulticast:
      break;
  }
  return "plain UDP";
}

const char* plain_description(SocketKind kind) {
  switch (kind) {
    case SocketKind::kUnix:
      return "blocking send/recv on a plain AF_UNIX stream socket pair";
    case SocketKind::kTcp:
      return "blocking send/recv on a plain TCP connection over 127.0.0.1, TCP_NODELAY";
    case SocketKind::kUnicast:
    case SocketKind::kMulticast:
      break;
  }
  return "blocking sendto/recv on plain UDP sockets on 127.0.0.1";
}

SocketProviderStrings make_socket_provider_strings(SocketKind kind, std::uint32_t id) {
  SocketProviderStrings s;
  switch (kind) {
    case SocketKind::kUnix:
      s.a = s.b = "InterProcessSocket -ID=" + std::to_string(id);
      s.title = s.a;
      break;
    case SocketKind::kTcp: {
      // -reuse: the port may still have connections of an earlier run in TIME_WAIT.
      const std::string port = free_loopback_port();
      s.a = "Socket -server -IP=127.0.0.1 -port=" + port + " -reuse";
      s.b = "Socket -client -IP=127.0.0.1 -port=" + port;
      s.title = s.a + " / -client";
      break;
    }
    case SocketKind::kUnicast: {
      std::string to_b;
      std::string to_a;
      two_udp_ports(to_b, to_a);
      s.a_to_b_send = "UnicastSendSocket -IP=127.0.0.1 -port=" + to_b;
      s.a_to_b_recv = "UnicastRecvSocket -IP=127.0.0.1 -port=" + to_b;
      s.b_to_a_send = "UnicastSendSocket -IP=127.0.0.1 -port=" + to_a;
      s.b_to_a_recv = "UnicastRecvSocket -IP=127.0.0.1 -port=" + to_a;
      s.title = "Unicast: UnicastSendSocket/UnicastRecvSocket -IP=127.0.0.1, A->B -port=" + to_b +
                ", B->A -port=" + to_a;
      break;
    }
    case SocketKind::kMulticast: {
      std::string to_b;
      std::string to_a;
      two_udp_ports(to_b, to_a);
      const std::string group = " -group=" + multicast_group();
      s.a_to_b_send = "MulticastSendSocket -IP=127.0.0.1" + group + " -port=" + to_b;
      s.a_to_b_recv = "MulticastRecvSocket -IP=127.0.0.1" + group + " -port=" + to_b;
      s.b_to_a_send = "MulticastSendSocket -IP=127.0.0.1" + group + " -port=" + to_a;
      s.b_to_a_recv = "MulticastRecvSocket -IP=127.0.0.1" + group + " -port=" + to_a;
      s.title = "Multicast: MulticastSendSocket/MulticastRecvSocket -IP=127.0.0.1" + group +
                ", A->B -port=" + to_b + ", B->A -port=" + to_a;
      break;
    }
  }
  return s;
}

}  // namespace takyon::bench
