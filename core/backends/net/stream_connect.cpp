// SPDX-License-Identifier: MIT
// Connecting a byte stream between two endpoints (see stream_connect.hpp): the abstract Unix socket,
// and TCP server/client with a fixed or a discovered port.
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <thread>

#include "backends/net/discovery.hpp"
#include "backends/net/stream_connect.hpp"
#include "common/shm_object.hpp"  // common::uid_text

namespace takyon::detail {
namespace {

void sleep_until_retry(int64_t& backoff_ns, Deadline deadline) {
  std::this_thread::sleep_for(
      std::chrono::nanoseconds(std::min(backoff_ns, deadline.remaining_ns(now_ns()))));
  backoff_ns = std::min<int64_t>(backoff_ns * 2, 5'000'000);
}

Status finish(common::UniqueFd fd, bool tcp, std::string peer, StreamConnection& out) {
  out.fd = std::move(fd);
  out.tcp = tcp;
  out.peer = std::move(peer);
  return Status::kOk;
}

// ----- Abstract Unix sockets (InterProcessSocket, InterProcess*, Ucx -ID) -------------------------

// An abstract name has no owner and no permissions: any local user can bind or connect to it.
// So both ends ask the kernel who is at the other end (SO_PEERCRED) and deal only with their own
// user's processes.

struct UnixName {
  sockaddr_un addr{};
  socklen_t len = 0;
  [[nodiscard]] const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&addr); }
};

UnixName abstract_name(const std::string& name) {
  UnixName out;
  out.addr.sun_family = AF_UNIX;
  std::memcpy(out.addr.sun_path + 1, name.data(), name.size());  // sun_path[0] = '\0': the abstract namespace
  out.len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return out;
}

// The user owning the socket bound to abstract `name`, from the kernel's socket table
// (NETLINK_SOCK_DIAG with UDIAG_SHOW_UID; connecting to ask would disturb a live endpoint A).
bool owner_of(const std::string& name, uid_t& owner) {
  const common::UniqueFd nl(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!nl.valid()) return false;
  struct {
    nlmsghdr header;
    unix_diag_req request;
  } query{};
  query.header.nlmsg_len = sizeof(query);
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  query.request.sdiag_family = AF_UNIX;
  // Bound sockets only (listening, or bound and unconnected): connections accepted from a
  // listener carry its name too, and ones not yet accepted report uid 0.
  constexpr unsigned kListen = 10;  // TCP_LISTEN
  constexpr unsigned kClose = 7;    // TCP_CLOSE
  query.request.udiag_states = (1u << kListen) | (1u << kClose);
  query.request.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_UID;
  const timeval patience{1, 0};  // the kernel answers at once; never wait long for a lost reply
  setsockopt(nl.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof(patience));
  if (send(nl.get(), &query, sizeof(query), 0) != static_cast<ssize_t>(sizeof(query))) return false;
  const std::string wanted = std::string(1, '\0') + name;
  // Netlink messages and their attributes are 4-byte aligned records (the NLMSG_*/RTA_* macros'
  // arithmetic, without their casts).
  const auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  alignas(nlmsghdr) char buffer[32768];
  for (;;) {
    const ssize_t got = recv(nl.get(), buffer, sizeof(buffer), 0);
    if (got <= 0 || static_cast<size_t>(got) > sizeof(buffer)) return false;
    const auto end = static_cast<size_t>(got);
    for (size_t at = 0; at + sizeof(nlmsghdr) <= end;) {
      nlmsghdr h{};
      std::memcpy(&h, buffer + at, sizeof(h));
      if (h.nlmsg_len < sizeof(h) || at + h.nlmsg_len > end) break;
      if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) return false;
      const size_t record_end = at + h.nlmsg_len;
      bool matches = false;
      bool has_uid = false;
      uid_t uid = 0;
      for (size_t a = at + align4(sizeof(nlmsghdr)) + align4(sizeof(unix_diag_msg));
           a + sizeof(rtattr) <= record_end;) {
        rtattr attr{};
        std::memcpy(&attr, buffer + a, sizeof(attr));
        if (attr.rta_len < sizeof(attr) || a + attr.rta_len > record_end) break;
        const char* payload = buffer + a + align4(sizeof(rtattr));
        const size_t payload_bytes = attr.rta_len - align4(sizeof(rtattr));
        if (attr.rta_type == UNIX_DIAG_NAME) {
          matches = payload_bytes == wanted.size() && std::memcmp(payload, wanted.data(), wanted.size()) == 0;
        } else if (attr.rta_type == UNIX_DIAG_UID && payload_bytes >= sizeof(uid)) {
          std::memcpy(&uid, payload, sizeof(uid));
          has_uid = true;
        }
        a += align4(attr.rta_len);
      }
      if (matches && has_uid) {
        owner = uid;
        return true;
      }
      at += align4(h.nlmsg_len);
    }
  }
}

// Binds `name`, and listens on it if `listening`; `what` is "endpoint A" or "endpoint B" for the
// messages. A name already bound is explained: this user's live endpoint, or another user's process.
Status claim_name(const std::string& name, const char* what, bool listening, const EndpointConfig& config,
                  ErrorLog& log, common::UniqueFd& out) {
  const UnixName addr = abstract_name(name);
  common::UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return TAKYON_FAIL(log, Status::kSystem, "socket(AF_UNIX) failed: %s", errno_text(errno).c_str());
  }
  if (bind(fd.get(), addr.sa(), addr.len) != 0) {
    const int err = errno;
    if (err != EADDRINUSE) {
      return TAKYON_FAIL(log, Status::kSystem, "bind to @%s failed: %s", name.c_str(),
                         errno_text(err).c_str());
    }
    uid_t owner = 0;
    if (owner_of(name, owner) && owner != getuid()) {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "%s of '%s' cannot be created: its abstract Unix socket @%s is held by another user, "
          "%s; choose another ID",
          what, config.provider->text().c_str(), name.c_str(), common::uid_text(owner).c_str());
    }
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "%s of '%s' already exists on this host (abstract Unix socket @%s is bound)", what,
                       config.provider->text().c_str(), name.c_str());
  }
  if (listening && listen(fd.get(), 4) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "listen on @%s failed: %s", name.c_str(),
                       errno_text(errno).c_str());
  }
  out = std::move(fd);
  return Status::kOk;
}

// Endpoint A: waits for this user's endpoint B; connections of other users are closed at once
// (and counted for the timeout's message).
Status accept_unix(int listener, const std::string& name, const EndpointConfig& config, Deadline deadline,
                   ErrorLog& log, common::UniqueFd& out, ucred& peer) {
  int refused = 0;
  uid_t refused_uid = 0;
  for (;;) {
    short revents = 0;
    const Status waited = wait_fd(listener, POLLIN, deadline, -1, revents, log);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(
          log, Status::kTimeout,
          "endpoint B of '%s' did not connect (abstract Unix socket @%s) within path_create_timeout%s",
          config.provider->text().c_str(), name.c_str(),
          refused == 0 ? ""
                       : strf("; refused %d connection(s) from other users (last: %s)", refused,
                              common::uid_text(refused_uid).c_str())
                             .c_str());
    }
    if (waited != Status::kOk) return waited;
    common::UniqueFd fd(accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      return TAKYON_FAIL(log, Status::kSystem, "accept on @%s failed: %s", name.c_str(),
                         errno_text(errno).c_str());
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != getuid()) {
      ++refused;  // another user's process: not our endpoint B; keep waiting for it
      refused_uid = cred.uid;
      continue;
    }
    peer = cred;
    out = std::move(fd);
    return Status::kOk;
  }
}

}  // namespace

Status connect_unix_stream(const std::string& name, const EndpointConfig& config, Deadline deadline,
                           ErrorLog& log, StreamConnection& out, bool hold_claims) {
  const UnixName addr = abstract_name(name);
  // The claims are bound, never listening: a second endpoint of the same side fails to bind,
  // and a late endpoint B never reaches a listener that is about to go away.
  if (hold_claims && claim_name(name + (config.is_endpoint_a ? "-A" : "-B"),
                                config.is_endpoint_a ? "endpoint A" : "endpoint B", false, config, log,
                                out.claim) != Status::kOk) {
    return log.status();
  }
  if (config.is_endpoint_a) {
    common::UniqueFd listener;
    if (claim_name(name, "endpoint A", true, config, log, listener) != Status::kOk) return log.status();
    common::UniqueFd fd;
    ucred peer{};
    if (accept_unix(listener.get(), name, config, deadline, log, fd, peer) != Status::kOk)
      return log.status();
    listener.reset();  // the meeting name is free again at once
    out.peer_pid = peer.pid;
    out.tcp = false;
    out.peer = "endpoint B (@" + name + ")";
    out.fd = std::move(fd);
    return Status::kOk;
  }

  int64_t backoff_ns = 20'000;
  for (;;) {
    common::UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid())
      return TAKYON_FAIL(log, Status::kSystem, "socket(AF_UNIX) failed: %s", errno_text(errno).c_str());
    if (connect(fd.get(), addr.sa(), addr.len) == 0) {
      // Whoever listens there must be this user's endpoint A, before a byte goes either way.
      ucred cred{};
      socklen_t len = sizeof(cred);
      if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        return TAKYON_FAIL(log, Status::kSystem, "SO_PEERCRED on @%s failed: %s", name.c_str(),
                           errno_text(errno).c_str());
      }
      if (cred.uid != getuid()) {
        return TAKYON_FAIL(log, Status::kProtocol,
                           "the process listening on @%s as endpoint A of '%s' (process %d) belongs to "
                           "another user, %s, not to %s: refusing to connect",
                           name.c_str(), config.provider->text().c_str(), static_cast<int>(cred.pid),
                           common::uid_text(cred.uid).c_str(), common::uid_text(getuid()).c_str());
      }
      out.peer_pid = cred.pid;
      out.tcp = false;
      out.peer = "endpoint A (@" + name + ")";
      out.fd = std::move(fd);
      return Status::kOk;
    }
    if (errno != ECONNREFUSED && errno != EAGAIN && errno != ENOENT && errno != EINTR) {
      return TAKYON_FAIL(log, Status::kSystem, "connect to @%s failed: %s", name.c_str(),
                         errno_text(errno).c_str());
    }
    if (deadline.expired()) {
      return TAKYON_FAIL(
          log, Status::kTimeout,
          "endpoint A of '%s' did not appear (abstract Unix socket @%s) within path_create_timeout",
          config.provider->text().c_str(), name.c_str());
    }
    sleep_until_retry(backoff_ns, deadline);
  }
}

// ----- Socket (TCP) ----------------------------------------------------------------------------

namespace {

struct TcpArgs {
  bool server = false;
  in_addr ip{};
  uint16_t port = 0;  // 0: -ID form
  uint32_t id = 0;
  bool reuse = false;
};

Status parse_tcp_args(const ProviderArgs& provider, TcpArgs& out, ErrorLog& log) {
  const std::string& text = provider.text();
  const bool server = provider.has_flag("server");
  const bool client = provider.has_flag("client");
  if (server == client) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': give exactly one of -server and -client", text.c_str());
  }
  out.server = server;
  const bool has_port = provider.value("port").has_value();
  const bool has_id = provider.value("ID").has_value();
  if (has_port == has_id) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s': give exactly one of -port=<p> (a fixed port) and -ID=<n> (a port the "
        "system assigns, found by discovery)",
        text.c_str());
  }
  if (has_port && provider.number("port") == 0) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': -port=0 is not a port; use -ID=<n> for a port the system assigns",
                       text.c_str());
  }
  out.port = static_cast<uint16_t>(provider.number("port"));
  out.id = static_cast<uint32_t>(provider.number("ID"));
  out.reuse = provider.has_flag("reuse");
  if (out.reuse && !server) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s': -reuse applies to -server only (it lets the server's port be bound again "
        "while old connections linger)",
        text.c_str());
  }
  if (parse_ipv4(*provider.value("IP"), text, "-IP", out.ip, log) != Status::kOk) return log.status();
  if (has_id && out.ip.s_addr == htonl(INADDR_ANY)) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s': -ID needs the server's own address in -IP (not 0.0.0.0) to find it",
        text.c_str());
  }
  return Status::kOk;
}

Status tcp_server(const TcpArgs& args, const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                  StreamConnection& out) {
  const std::string& text = config.provider->text();
  common::UniqueFd listener(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listener.valid())
    return TAKYON_FAIL(log, Status::kSystem, "socket(AF_INET) failed: %s", errno_text(errno).c_str());
  if (args.reuse &&
      set_option(listener.get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", log) != Status::kOk) {
    return log.status();
  }
  Ipv4Endpoint local{args.ip, args.port};
  const sockaddr_in bound = local.sockaddr();
  if (bind(listener.get(), reinterpret_cast<const sockaddr*>(&bound), sizeof(bound)) != 0) {
    const int err = errno;
    if (err == EADDRINUSE) {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "'%s': port %u on %s is in use (another server, or connections of an earlier one that "
          "linger in TIME_WAIT: add -reuse for those)",
          text.c_str(), args.port, ipv4_text(args.ip).c_str());
    }
    if (err == EADDRNOTAVAIL) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "'%s': -IP=%s is not an address of this host",
                         text.c_str(), ipv4_text(args.ip).c_str());
    }
    return TAKYON_FAIL(log, Status::kSystem, "'%s': bind to %s failed: %s", text.c_str(),
                       local.text().c_str(), errno_text(err).c_str());
  }
  if (listen(listener.get(), 4) != 0) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': listen failed: %s", text.c_str(),
                       errno_text(errno).c_str());
  }
  DiscoveryResponder responder;
  if (args.port == 0) {
    sockaddr_in assigned{};
    socklen_t len = sizeof(assigned);
    if (getsockname(listener.get(), reinterpret_cast<sockaddr*>(&assigned), &len) != 0) {
      return TAKYON_FAIL(log, Status::kSystem, "getsockname failed: %s", errno_text(errno).c_str());
    }
    local.port = ntohs(assigned.sin_port);
    if (responder.open(args.ip, args.id, local.port, text, log) != Status::kOk) return log.status();
  }
  for (;;) {
    pollfd fds[2] = {{listener.get(), POLLIN, 0}, {responder.fd(), POLLIN, 0}};
    const int64_t left = deadline.remaining_ns(now_ns());
    timespec ts{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    const int n = ppoll(fds, responder.fd() >= 0 ? 2 : 1, left == INT64_MAX ? nullptr : &ts, nullptr);
    if (n < 0 && errno != EINTR) {
      return TAKYON_FAIL(log, Status::kSystem, "poll failed: %s", errno_text(errno).c_str());
    }
    if ((fds[1].revents & POLLIN) != 0) responder.answer();
    if ((fds[0].revents & POLLIN) != 0) {
      sockaddr_in from{};
      socklen_t from_len = sizeof(from);
      common::UniqueFd fd(accept4(listener.get(), reinterpret_cast<sockaddr*>(&from), &from_len,
                                  SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (fd.valid()) {
        if (set_option(fd.get(), IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", log) != Status::kOk)
          return log.status();
        const Ipv4Endpoint client{from.sin_addr, ntohs(from.sin_port)};
        return finish(std::move(fd), true, "client " + client.text(), out);
      }
      if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
        return TAKYON_FAIL(log, Status::kSystem, "accept failed: %s", errno_text(errno).c_str());
      }
    }
    if (deadline.expired()) {
      return TAKYON_FAIL(log, Status::kTimeout, "'%s': no client connected to %s within path_create_timeout",
                         text.c_str(), local.text().c_str());
    }
  }
}

Status tcp_client(const TcpArgs& args, const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                  StreamConnection& out) {
  const std::string& text = config.provider->text();
  int64_t backoff_ns = 100'000;
  bool refused = false;
  for (;;) {
    Ipv4Endpoint server{args.ip, args.port};
    if (args.port == 0) {
      const Status found = discover_port(args.ip, args.id, deadline, text, server.port, log);
      if (found == Status::kTimedOut) {
        Ipv4Endpoint group;
        (void)discovery_group(group, text, log);  // valid: discover_port used it
        return TAKYON_FAIL(log, Status::kTimeout,
                           "'%s': no server for -ID=%u on %s answered discovery (group %s, TTL 1) within "
                           "path_create_timeout",
                           text.c_str(), args.id, ipv4_text(args.ip).c_str(), group.text().c_str());
      }
      if (found != Status::kOk) return found;
    }
    common::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid())
      return TAKYON_FAIL(log, Status::kSystem, "socket(AF_INET) failed: %s", errno_text(errno).c_str());
    const sockaddr_in to = server.sockaddr();
    int err = 0;
    if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof(to)) != 0) err = errno;
    if (err == EINPROGRESS || err == EINTR) {
      short revents = 0;
      const Status waited = wait_fd(fd.get(), POLLOUT, deadline, -1, revents, log);
      if (waited == Status::kTimedOut) {
        err = ETIMEDOUT;
      } else if (waited != Status::kOk) {
        return waited;
      } else {
        socklen_t len = sizeof(err);
        if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
    }
    if (err == 0) {
      if (set_option(fd.get(), IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", log) != Status::kOk)
        return log.status();
      return finish(std::move(fd), true, "server " + server.text(), out);
    }
    if (err == ENETUNREACH || err == EHOSTUNREACH || err == EADDRNOTAVAIL) {
      return TAKYON_FAIL(log, Status::kDisconnected, "'%s': cannot reach %s: %s", text.c_str(),
                         server.text().c_str(), errno_text(err).c_str());
    }
    if (err != ECONNREFUSED && err != ETIMEDOUT && err != EAGAIN) {
      return TAKYON_FAIL(log, Status::kSystem, "'%s': connect to %s failed: %s", text.c_str(),
                         server.text().c_str(), errno_text(err).c_str());
    }
    refused = refused || err == ECONNREFUSED;
    if (deadline.expired()) {
      if (refused) {
        return TAKYON_FAIL(
            log, Status::kTimeout,
            "'%s': %s refused the connection until path_create_timeout expired (no server listening)",
            text.c_str(), server.text().c_str());
      }
      return TAKYON_FAIL(log, Status::kTimeout, "'%s': no answer from %s within path_create_timeout",
                         text.c_str(), server.text().c_str());
    }
    sleep_until_retry(backoff_ns, deadline);
  }
}

}  // namespace

Status connect_tcp_stream(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                          StreamConnection& out) {
  TcpArgs args;
  if (parse_tcp_args(*config.provider, args, log) != Status::kOk) return log.status();
  return args.server ? tcp_server(args, config, deadline, log, out)
                     : tcp_client(args, config, deadline, log, out);
}

}  // namespace takyon::detail
