// SPDX-License-Identifier: MIT
// takyon-run's side of the rendezvous (see rendezvous_server.hpp).
#include "rendezvous_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

namespace takyon::mpi::launcher {
namespace {

/// A connection must show the secret this soon after connecting.
constexpr auto kHelloTimeout = std::chrono::seconds(10);

std::string endpoint_text(const sockaddr_in& sa) {
  char host[INET_ADDRSTRLEN] = "?";
  (void)inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(sa.sin_port));
}

std::shared_ptr<const std::string> frame(wire::Type type, const std::string& payload) {
  return std::make_shared<const std::string>(wire::encode(type, payload));
}

}  // namespace

RendezvousServer::RendezvousServer(int nranks, std::string secret)
    : nranks_(nranks),
      secret_(std::move(secret)),
      by_rank_(static_cast<size_t>(nranks), nullptr),
      ever_joined_(static_cast<size_t>(nranks), false),
      coll_blobs_(static_cast<size_t>(nranks)) {
  listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listener_.valid()) throw std::runtime_error("rendezvous socket: " + detail::errno_text(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = 0;
  if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    throw std::runtime_error("rendezvous bind 127.0.0.1: " + detail::errno_text(errno));
  }
  if (::listen(listener_.get(), SOMAXCONN) != 0) {
    throw std::runtime_error("rendezvous listen: " + detail::errno_text(errno));
  }
  socklen_t len = sizeof sa;
  if (::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    throw std::runtime_error("rendezvous getsockname: " + detail::errno_text(errno));
  }
  port_ = ntohs(sa.sin_port);
}

void RendezvousServer::fill_poll(std::vector<pollfd>& fds) const {
  fds.push_back({listener_.get(), POLLIN, 0});
  for (const auto& c : conns_) {
    const short want = static_cast<short>(POLLIN | (c->out.empty() ? 0 : POLLOUT));
    fds.push_back({c->fd.get(), want, 0});
  }
}

void RendezvousServer::handle_poll(const pollfd* fds, Clock::time_point now) {
  // Connections first, in the order fill_poll listed them; accepting appends to conns_.
  const size_t n = conns_.size();
  for (size_t i = 0; i < n; ++i) {
    Conn& c = *conns_[i];
    const short ev = fds[1 + i].revents;
    if (c.dead || ev == 0) continue;
    if ((ev & POLLOUT) != 0) flush(c);
    if (!c.dead && (ev & (POLLIN | POLLHUP | POLLERR)) != 0) read_from(c);
  }
  if ((fds[0].revents & POLLIN) != 0) accept_all(now);
  collect_dead();
}

void RendezvousServer::accept_all(Clock::time_point now) {
  while (true) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    const int fd =
        ::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&sa), &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        std::fprintf(stderr, "takyon-run: rendezvous accept: %s\n", detail::errno_text(errno).c_str());
      }
      return;
    }
    auto c = std::make_unique<Conn>();
    c->fd.reset(fd);
    c->peer = endpoint_text(sa);
    c->hello_deadline = now + kHelloTimeout;
    const int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conns_.push_back(std::move(c));
  }
}

void RendezvousServer::read_from(Conn& c) {
  char buf[64 * 1024];
  while (!c.dead) {
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // ECONNRESET and friends: the peer is gone, as with an orderly close.
    }
    if (n <= 0) {
      if (c.rank >= 0 && !c.finalized && !failed_) {
        events_.push_back({ServerEvent::Kind::kLeft, c.rank, 0, {}});
      }
      drop(c);
      return;
    }
    c.parser.append(buf, static_cast<size_t>(n));
    try {
      while (!c.dead && !c.close_after_flush) {
        auto f = c.parser.next();
        if (!f) break;
        handle_frame(c, *f);
      }
    } catch (const wire::WireError& e) {
      if (c.rank < 0) {
        refuse(c, e.what(), true);
      } else {
        misbehaved(c, std::string("sent a bad frame: ") + e.what());
      }
    }
    if (c.close_after_flush) return;  // ignore whatever else it sends
  }
}

void RendezvousServer::handle_frame(Conn& c, wire::Frame& f) {
  if (c.rank < 0) {
    if (f.type != wire::Type::kHello) {
      refuse(c, std::string("expected hello, got ") + wire::type_name(f.type), true);
      return;
    }
    handle_hello(c, f);
    return;
  }
  try {
    switch (f.type) {
      case wire::Type::kAllgather:
      case wire::Type::kBarrier:
        handle_collective(c, f);
        return;
      case wire::Type::kAbort: {
        wire::Reader in(f.payload);
        const int code = in.i32();
        std::string why(in.rest().substr(0, wire::kMaxTextBytes));
        events_.push_back({ServerEvent::Kind::kAbort, c.rank, code, std::move(why)});
        send(c, frame(wire::Type::kAbortAck, {}));
        return;
      }
      case wire::Type::kFinalize: {
        wire::Reader(f.payload).expect_end();
        if (!c.finalized) {
          c.finalized = true;
          events_.push_back({ServerEvent::Kind::kFinalized, c.rank, 0, {}});
        }
        send(c, frame(wire::Type::kFinalizeAck, {}));
        return;
      }
      default:
        misbehaved(c, std::string("sent an unexpected ") + wire::type_name(f.type) + " frame");
        return;
    }
  } catch (const wire::WireError& e) {
    misbehaved(c, std::string("sent a bad ") + wire::type_name(f.type) + " frame: " + e.what());
  }
}

void RendezvousServer::handle_hello(Conn& c, const wire::Frame& f) {
  uint32_t version = 0;
  int32_t rank = -1;
  std::string_view secret;
  try {
    wire::Reader in(f.payload);
    version = in.u32();
    rank = in.i32();
    (void)in.i32();  // the pid: informational (a rank may be a wrapper script's child)
    secret = in.bytes();
    in.expect_end();
  } catch (const wire::WireError& e) {
    refuse(c, std::string("bad hello: ") + e.what(), true);
    return;
  }
  // The secret first: a stranger learns nothing else.
  if (!wire::secrets_equal(secret, secret_)) {
    refuse(c, "wrong secret", true);
    return;
  }
  if (version != wire::kProtocolVersion) {
    refuse(c,
           "protocol version " + std::to_string(version) + ", but this takyon-run speaks " +
               std::to_string(wire::kProtocolVersion) + " (mixed Takyon installations?)",
           true);
    return;
  }
  if (rank < 0 || rank >= nranks_) {
    refuse(c, "rank " + std::to_string(rank) + " is not in this job of " + std::to_string(nranks_), true);
    return;
  }
  if (ever_joined_[static_cast<size_t>(rank)]) {
    refuse(c, "rank " + std::to_string(rank) + " has already joined (MPI_Init called twice?)", true);
    return;
  }
  if (failed_) {
    refuse(c, "the job is ending: " + failure_text_, false);
    return;
  }
  c.rank = rank;
  c.parser.set_max_payload(wire::kMaxRequestPayload);
  by_rank_[static_cast<size_t>(rank)] = &c;
  ever_joined_[static_cast<size_t>(rank)] = true;
  events_.push_back({ServerEvent::Kind::kJoined, rank, 0, {}});
  send(c, frame(wire::Type::kWelcome, {}));
}

void RendezvousServer::handle_collective(Conn& c, const wire::Frame& f) {
  wire::Reader in(f.payload);
  const uint64_t seq = in.u64();
  std::string blob;
  if (f.type == wire::Type::kAllgather) {
    blob.assign(in.rest());
  } else {
    in.expect_end();
  }
  if (failed_) return;  // the job is ending; the rank was told
  const char* what = f.type == wire::Type::kAllgather ? "allgather" : "barrier";
  if (!coll_active_) {
    if (seq != coll_seq_ + 1) {
      misbehaved(c, std::string("started ") + what + " #" + std::to_string(seq) +
                        " but the job's next collective is #" + std::to_string(coll_seq_ + 1));
      return;
    }
    coll_active_ = true;
    coll_type_ = f.type;
    coll_seq_ = seq;
    coll_first_rank_ = c.rank;
    coll_count_ = 0;
  } else if (seq != coll_seq_ || f.type != coll_type_) {
    misbehaved(c, std::string("called ") + what + " #" + std::to_string(seq) + " while rank " +
                      std::to_string(coll_first_rank_) + " called " +
                      (coll_type_ == wire::Type::kAllgather ? "allgather" : "barrier") + " #" +
                      std::to_string(coll_seq_) + " (collectives called in a different order?)");
    return;
  }
  auto& slot = coll_blobs_[static_cast<size_t>(c.rank)];
  if (slot) {
    misbehaved(c, std::string("contributed twice to ") + what + " #" + std::to_string(seq));
    return;
  }
  slot = std::move(blob);
  if (++coll_count_ < nranks_) return;

  std::shared_ptr<const std::string> answer;
  if (coll_type_ == wire::Type::kAllgather) {
    wire::Writer w;
    w.u64(coll_seq_).u32(static_cast<uint32_t>(nranks_));
    for (auto& b : coll_blobs_) w.bytes(*b);
    answer = frame(wire::Type::kAllgatherDone, w.take());
  } else {
    answer = frame(wire::Type::kBarrierDone, wire::Writer().u64(coll_seq_).take());
  }
  for (auto& b : coll_blobs_) b.reset();
  coll_active_ = false;
  coll_count_ = 0;
  for (Conn* rc : by_rank_) {
    if (rc != nullptr && !rc->dead) send(*rc, answer);
  }
}

std::vector<int> RendezvousServer::missing_from_collective() const {
  std::vector<int> missing;
  if (!coll_active_) return missing;
  for (int r = 0; r < nranks_; ++r) {
    if (!coll_blobs_[static_cast<size_t>(r)]) missing.push_back(r);
  }
  return missing;
}

void RendezvousServer::refuse(Conn& c, const std::string& why, bool log) {
  if (log)
    std::fprintf(stderr, "takyon-run: refused a rendezvous connection from %s: %s\n", c.peer.c_str(),
                 why.c_str());
  send(c, frame(wire::Type::kRefused, why));
  c.close_after_flush = true;
  if (c.out.empty()) drop(c);
}

void RendezvousServer::misbehaved(Conn& c, const std::string& why) {
  events_.push_back({ServerEvent::Kind::kMisbehaved, c.rank, 0, why});
  c.close_after_flush = true;
  if (c.out.empty()) drop(c);
}

void RendezvousServer::announce_failure(const std::string& text) {
  if (failed_) return;
  failed_ = true;
  failure_text_ = text;
  auto notice = frame(wire::Type::kJobFailed, text.substr(0, wire::kMaxTextBytes));
  for (auto& c : conns_) {
    if (c->dead || c->rank < 0) continue;
    send(*c, notice);
  }
  collect_dead();
}

void RendezvousServer::send(Conn& c, std::shared_ptr<const std::string> bytes) {
  if (c.dead) return;
  c.out.push_back(std::move(bytes));
  flush(c);  // most answers fit the socket buffer at once: no extra poll round
}

void RendezvousServer::flush(Conn& c) {
  while (!c.dead && !c.out.empty()) {
    const std::string& front = *c.out.front();
    const ssize_t n = ::send(c.fd.get(), front.data() + c.out_offset, front.size() - c.out_offset,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // The peer is gone; its read side reports the departure.
      c.out.clear();
      c.out_offset = 0;
      if (c.close_after_flush) drop(c);
      return;
    }
    c.out_offset += static_cast<size_t>(n);
    if (c.out_offset == front.size()) {
      c.out.pop_front();
      c.out_offset = 0;
    }
  }
  if (c.out.empty() && c.close_after_flush) drop(c);
}

void RendezvousServer::drop(Conn& c) {
  if (c.dead) return;
  c.dead = true;
  if (c.rank >= 0 && by_rank_[static_cast<size_t>(c.rank)] == &c)
    by_rank_[static_cast<size_t>(c.rank)] = nullptr;
  c.fd.reset();
}

void RendezvousServer::collect_dead() {
  std::erase_if(conns_, [](const std::unique_ptr<Conn>& c) { return c->dead; });
}

void RendezvousServer::expire(Clock::time_point now) {
  for (auto& c : conns_) {
    if (!c->dead && c->rank < 0 && !c->close_after_flush && now >= c->hello_deadline) {
      std::fprintf(stderr, "takyon-run: closed a rendezvous connection from %s: no hello within %d s\n",
                   c->peer.c_str(), static_cast<int>(kHelloTimeout.count()));
      drop(*c);
    }
  }
  collect_dead();
}

std::optional<Clock::time_point> RendezvousServer::next_deadline() const {
  std::optional<Clock::time_point> next;
  for (const auto& c : conns_) {
    if (c->rank < 0 && !c->close_after_flush && (!next || c->hello_deadline < *next))
      next = c->hello_deadline;
  }
  return next;
}

std::vector<ServerEvent> RendezvousServer::take_events() {
  std::vector<ServerEvent> out;
  out.swap(events_);
  return out;
}

}  // namespace takyon::mpi::launcher
