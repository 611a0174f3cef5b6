// SPDX-License-Identifier: MIT
// takyon-run's side of the rendezvous (see rendezvous_server.hpp).
#include "rendezvous_server.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "../job_id.hpp"
#include "peer_process.hpp"

namespace takyon::mpi::launcher {
namespace {

/// A connection from a rank's process tree must show the secret this soon after connecting.
constexpr auto kOwnHelloTimeout = std::chrono::seconds(10);
/// Any other connection: a rank sends its hello right after connecting, so this is generous.
constexpr auto kHelloTimeout = std::chrono::seconds(1);
/// Connections from outside the ranks' process trees that may wait to show the secret, in total
/// (fewer under a low fd limit) and per process. Past either cap the oldest goes: a flood of idle
/// connections only ever pushes out its own.
constexpr size_t kMaxWaiting = 64;
constexpr int kMaxWaitingPerProcess = 8;
/// Connections accepted per poll round, so that a flood cannot starve the ranks' traffic.
constexpr int kAcceptBatch = 256;
/// Out of descriptors with none to free: the listener rests this long instead of spinning.
constexpr auto kListenerPause = std::chrono::milliseconds(100);

std::shared_ptr<const std::string> frame(wire::Type type, const std::string& payload) {
  return std::make_shared<const std::string>(wire::encode(type, payload));
}

/// Best effort: tells a peer why before closing (never blocks).
void send_refusal(int fd, const std::string& why) {
  const std::string bytes = wire::encode(wire::Type::kRefused, why);
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/// kMaxWaiting, or fewer when the fd limit leaves no room for them beside the ranks.
size_t waiting_cap(int nranks) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return kMaxWaiting;
  const auto spare = static_cast<long long>(lim.rlim_cur) - nranks - 32;
  return std::clamp<size_t>(spare > 0 ? static_cast<size_t>(spare / 2) : 0, 4, kMaxWaiting);
}

}  // namespace

RendezvousServer::RendezvousServer(int nranks, std::string secret)
    : nranks_(nranks),
      secret_(std::move(secret)),
      uid_(::geteuid()),
      self_(::getpid()),
      max_waiting_(waiting_cap(nranks)),
      by_rank_(static_cast<size_t>(nranks), nullptr),
      ever_joined_(static_cast<size_t>(nranks), false),
      coll_blobs_(static_cast<size_t>(nranks)) {
  // An abstract socket: no file to clean up, reachable from the ranks' network namespace only.
  // Its name is random, so nobody can take it first.
  for (int attempt = 0;; ++attempt) {
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!listener_.valid()) throw std::runtime_error("rendezvous socket: " + detail::errno_text(errno));
    address_ = "@takyon-run-" + std::to_string(self_) + "-" + random_hex(8);
    sockaddr_un sa{};
    const socklen_t len = detail::abstract_unix_address(address_, sa);
    if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&sa), len) == 0) break;
    if (errno != EADDRINUSE || attempt == 8) {
      throw std::runtime_error("rendezvous bind " + address_ + ": " + detail::errno_text(errno));
    }
  }
  if (::listen(listener_.get(), SOMAXCONN) != 0) {
    throw std::runtime_error("rendezvous listen: " + detail::errno_text(errno));
  }
  spare_fd_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
}

void RendezvousServer::fill_poll(std::vector<pollfd>& fds) const {
  // A resting listener keeps its slot (poll skips negative descriptors).
  fds.push_back({listener_paused_until_ ? -1 : listener_.get(), POLLIN, 0});
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
  if ((fds[0].revents & POLLIN) != 0) accept_some(now);
  collect_dead();
}

void RendezvousServer::accept_some(Clock::time_point now) {
  for (int i = 0; i < kAcceptBatch; ++i) {
    const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      admit(fd, now);
      continue;
    }
    const int err = errno;
    if (err == EINTR || err == ECONNABORTED) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) return;
    if (err == EMFILE || err == ENFILE) {
      // Make room: the oldest stranger goes, else the spare descriptor takes the newcomer's refusal.
      if (evict_oldest(
              std::nullopt,
              "takyon-run is out of file descriptors; the oldest connection waiting to show the secret goes",
              now))
        continue;
      if (refuse_with_spare_fd(now)) continue;
    }
    // Nothing to free (or ENOBUFS, ENOMEM, ...): rest rather than spin on the listener.
    listener_paused_until_ = now + kListenerPause;
    log_.note(Refusal::kNoResources, "the listen backlog",
              "accept: " + detail::errno_text(err) + "; not accepting for " +
                  std::to_string(kListenerPause.count()) + " ms",
              now);
    return;
  }
}

bool RendezvousServer::refuse_with_spare_fd(Clock::time_point now) {
  if (!spare_fd_.valid()) return false;
  spare_fd_.reset();
  const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd >= 0) {
    const auto cred = peer_credentials(fd);
    const std::string why = "takyon-run is out of file descriptors (its limit: ulimit -n)";
    send_refusal(fd, why);
    ::close(fd);
    log_.note(Refusal::kNoResources, cred ? "pid " + std::to_string(cred->pid) : "a process", why, now);
  }
  spare_fd_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  return fd >= 0 && spare_fd_.valid();
}

void RendezvousServer::admit(int fd, Clock::time_point now) {
  detail::UniqueFd owned(fd);
  const auto cred = peer_credentials(fd);
  if (!cred || cred->uid != uid_) {
    // Another user cannot have the secret legitimately: no resources for it, not even a slot.
    const std::string why = cred ? "it runs as uid " + std::to_string(cred->uid) + ", takyon-run as uid " +
                                       std::to_string(uid_) + " (ranks must run as takyon-run's user)"
                                 : "the kernel did not say who connected";
    send_refusal(fd, why);
    log_.note(Refusal::kOtherUser, cred ? "pid " + std::to_string(cred->pid) : "a process", why, now);
    return;
  }
  auto c = std::make_unique<Conn>();
  c->fd = std::move(owned);
  c->pid = cred->pid;
  c->peer = "pid " + std::to_string(cred->pid);
  c->own = is_own(cred->pid);
  c->hello_deadline = now + (c->own ? kOwnHelloTimeout : kHelloTimeout);
  Conn& conn = *c;
  conns_.push_back(std::move(c));
  read_from(conn);  // a rank sends its hello right after connecting: it is often here already
  if (!conn.dead && conn.rank < 0 && !conn.close_after_flush && !conn.own) start_waiting(conn, now);
}

bool RendezvousServer::is_own(pid_t pid) const {
  if (pid <= 0) return false;
  if (rank_pids_.contains(pid)) return true;
  // A process with connections waiting was found a stranger already: spare /proc the walk.
  if (waiting_per_pid_.contains(pid)) return false;
  return descends_from(pid, self_);
}

void RendezvousServer::start_waiting(Conn& c, Clock::time_point now) {
  if (waiting_per_pid_[c.pid] >= kMaxWaitingPerProcess) {
    (void)evict_oldest(c.pid,
                       "more than " + std::to_string(kMaxWaitingPerProcess) +
                           " connections of one process waiting to show the secret; its oldest goes",
                       now);
  }
  if (waiting_.size() >= max_waiting_) {
    (void)evict_oldest(std::nullopt,
                       "more than " + std::to_string(max_waiting_) +
                           " connections waiting to show the secret; the oldest goes",
                       now);
  }
  c.waiting = true;
  waiting_.push_back(&c);
  ++waiting_per_pid_[c.pid];
}

void RendezvousServer::stop_waiting(Conn& c) {
  if (!c.waiting) return;
  c.waiting = false;
  std::erase(waiting_, &c);
  const auto it = waiting_per_pid_.find(c.pid);
  if (it != waiting_per_pid_.end() && --it->second <= 0) waiting_per_pid_.erase(it);
}

bool RendezvousServer::evict_oldest(std::optional<pid_t> only_pid, const std::string& why,
                                    Clock::time_point now) {
  const auto it = std::find_if(waiting_.begin(), waiting_.end(),
                               [&](const Conn* c) { return !only_pid || c->pid == *only_pid; });
  if (it == waiting_.end()) return false;
  Conn& victim = **it;
  log_.note(Refusal::kEvicted, victim.peer, why, now);
  send_refusal(victim.fd.get(), why);
  drop(victim);
  return true;
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
        refuse_stranger(c, e.what());
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
      refuse_stranger(c, std::string("expected hello, got ") + wire::type_name(f.type));
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
    refuse_stranger(c, std::string("bad hello: ") + e.what());
    return;
  }
  // The secret first: a stranger learns nothing else.
  if (!wire::secrets_equal(secret, secret_)) {
    refuse_stranger(c, "wrong secret");
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
  stop_waiting(c);
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
  stop_waiting(c);
  send(c, frame(wire::Type::kRefused, why));
  c.close_after_flush = true;
  if (c.out.empty()) drop(c);
}

void RendezvousServer::refuse_stranger(Conn& c, const std::string& why) {
  log_.note(Refusal::kBadHello, c.peer, why, Clock::now());
  refuse(c, why, false);
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
  stop_waiting(c);
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
      const auto limit = c->own ? kOwnHelloTimeout : kHelloTimeout;
      log_.note(Refusal::kNoHello, c->peer,
                "no hello within " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count()) + " s",
                now);
      drop(*c);
    }
  }
  collect_dead();
  if (listener_paused_until_ && now >= *listener_paused_until_) listener_paused_until_.reset();
  log_.flush(now);
}

std::optional<Clock::time_point> RendezvousServer::next_deadline() const {
  std::optional<Clock::time_point> next = log_.next_deadline();
  auto consider = [&](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  for (const auto& c : conns_) {
    if (c->rank < 0 && !c->close_after_flush) consider(c->hello_deadline);
  }
  if (listener_paused_until_) consider(*listener_paused_until_);
  return next;
}

std::vector<ServerEvent> RendezvousServer::take_events() {
  std::vector<ServerEvent> out;
  out.swap(events_);
  return out;
}

}  // namespace takyon::mpi::launcher
