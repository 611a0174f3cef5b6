// SPDX-License-Identifier: MIT
// Inter-process backend: each endpoint creates its segment (its mailbox and receive buffers) as
// anonymous shared memory; the two endpoints meet on an abstract Unix socket where each side
// checks that the other is its own user's process, trade their segments' descriptors and their
// verdicts on each other's layout, and map each other's segment; a pidfd tells when the peer
// process is gone.
#include "backends/inter_process/inter_process_backend.hpp"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "backends/common/layout_check.hpp"
#include "backends/common/mailbox.hpp"
#include "backends/inter_process/shm_segment.hpp"
#include "backends/net/stream_connect.hpp"
#include "buffer_alloc.hpp"
#include "common/process_watch.hpp"

namespace takyon::detail {
namespace {

// The mailbox's view of the peer process (common::ProcessWatch).
class PidMonitor final : public PeerMonitor {
 public:
  explicit PidMonitor(pid_t pid) : watch_(pid) {}

  bool alive(std::string& why) override {
    if (!watch_.exited()) return true;
    why = strf("the peer process %d exited", static_cast<int>(watch_.pid()));
    return false;
  }

 private:
  common::ProcessWatch watch_;
};

// What each endpoint sends first on the socket, with its segment's descriptor attached.
struct Hello {
  uint64_t magic;
  uint32_t version;
  uint32_t pointer;
};
constexpr uint64_t kHelloMagic = 0x54414b594f4e4950ull;  // "TAKYONIP"
constexpr uint32_t kHelloVersion = 1;

// Then its verdict on the peer's layout: accepted, or why not.
struct LayoutVerdict {
  uint32_t accepted;
  char reason[508];
};

// The pairing conversation on the connected socket, bounded by the create deadline.
class Pairing {
 public:
  Pairing(const StreamConnection& stream, char peer_side, Deadline deadline, ErrorLog& log)
      : fd_(stream.fd.get()), peer_side_(peer_side), deadline_(deadline), log_(log) {}

  Status send_hello(const Hello& hello, int segment_fd) {
    iovec iov{const_cast<Hello*>(&hello), sizeof(hello)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &segment_fd, sizeof(int));
    for (;;) {
      const ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL);
      if (n == static_cast<ssize_t>(sizeof(hello))) return Status::kOk;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        if (wait(POLLOUT) != Status::kOk) return log_.status();
        continue;
      }
      return TAKYON_FAIL(
          log_, n < 0 && errno != EPIPE && errno != ECONNRESET ? Status::kSystem : Status::kDisconnected,
          "sending this endpoint's shared memory to endpoint %c failed: %s", peer_side_,
          n < 0 ? errno_text(errno).c_str() : "short write");
    }
  }

  // Reads the peer's hello and takes the descriptor that came with it.
  Status recv_hello(Hello& hello, common::UniqueFd& segment_fd) {
    auto* bytes = reinterpret_cast<char*>(&hello);
    size_t got = 0;
    while (got < sizeof(hello)) {
      iovec iov{bytes + got, sizeof(hello) - got};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      const ssize_t n = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        if (wait(POLLIN) != Status::kOk) return log_.status();
        continue;
      }
      if (n <= 0) return gone(n, "its shared memory");
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
          int received = -1;
          std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          if (!segment_fd.valid() && i == 0) {
            segment_fd.reset(received);
          } else {
            ::close(received);  // more than the one expected: not a Takyon endpoint
          }
        }
      }
      if ((msg.msg_flags & MSG_CTRUNC) != 0) {
        // The kernel drops descriptors it cannot install: this process has none free, or the
        // peer sent more than the one segment.
        rlimit limit{};
        getrlimit(RLIMIT_NOFILE, &limit);
        return TAKYON_FAIL(
            log_, Status::kSystem,
            "receiving endpoint %c's shared memory failed: the descriptor did not arrive (no file "
            "descriptor free under RLIMIT_NOFILE=%llu, or more than one was sent)",
            peer_side_, static_cast<unsigned long long>(limit.rlim_cur));
      }
      got += static_cast<size_t>(n);
    }
    if (hello.magic != kHelloMagic || hello.version != kHelloVersion) {
      return TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c is not a %s endpoint of this Takyon version",
                         peer_side_, "shared-memory");
    }
    if (!segment_fd.valid()) {
      return TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c sent no shared memory", peer_side_);
    }
    return Status::kOk;
  }

  Status send_verdict(const LayoutVerdict& verdict) {
    const auto* bytes = reinterpret_cast<const char*>(&verdict);
    size_t sent = 0;
    while (sent < sizeof(verdict)) {
      const ssize_t n = ::send(fd_, bytes + sent, sizeof(verdict) - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        if (wait(POLLOUT) != Status::kOk) return log_.status();
      } else {
        return TAKYON_FAIL(log_, Status::kDisconnected, "endpoint %c went away during create: %s", peer_side_,
                           n < 0 ? errno_text(errno).c_str() : "short write");
      }
    }
    return Status::kOk;
  }

  Status recv_verdict(LayoutVerdict& verdict) {
    auto* bytes = reinterpret_cast<char*>(&verdict);
    size_t got = 0;
    while (got < sizeof(verdict)) {
      const ssize_t n = ::recv(fd_, bytes + got, sizeof(verdict) - got, MSG_DONTWAIT);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        if (wait(POLLIN) != Status::kOk) return log_.status();
      } else {
        return gone(n, "its verdict on this endpoint");
      }
    }
    verdict.reason[sizeof(verdict.reason) - 1] = '\0';
    return Status::kOk;
  }

 private:
  Status wait(short events) {
    short revents = 0;
    const Status waited = wait_fd(fd_, events, deadline_, -1, revents, log_);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(log_, Status::kTimeout,
                         "endpoint %c did not finish the pairing within path_create_timeout", peer_side_);
    }
    return waited;
  }

  Status gone(ssize_t n, const char* what) {
    return TAKYON_FAIL(
        log_, Status::kDisconnected,
        "endpoint %c closed the connection before sending %s (its create failed or its process "
        "exited)%s%s",
        peer_side_, what, n < 0 ? ": " : "", n < 0 ? errno_text(errno).c_str() : "");
  }

  int fd_;
  char peer_side_;
  Deadline deadline_;
  ErrorLog& log_;
};

class InterProcessEndpoint final : public Backend {
 public:
  InterProcessEndpoint(bool pointer, bool polling, ErrorLog& log)
      : pointer_(pointer), polling_(polling), log_(log) {}
  InterProcessEndpoint(const InterProcessEndpoint&) = delete;
  InterProcessEndpoint& operator=(const InterProcessEndpoint&) = delete;
  ~InterProcessEndpoint() override {
    if (mailbox_) mailbox_->close();
  }

  Status connect(const EndpointConfig& config, Deadline deadline) {
    const ProviderArgs& provider = *config.provider;
    const uint64_t id = provider.number("ID");
    const char peer_side = config.is_endpoint_a ? 'B' : 'A';
    SegmentLayout layout;
    layout.pointer = pointer_;
    layout.polling = polling_;
    for (const BufferSpec& spec : config.send) layout.send_bytes.push_back(spec.bytes);
    for (const BufferSpec& spec : config.recv) layout.recv_bytes.push_back(spec.bytes);
    // The segment first, so that lack of memory is reported whether or not the peer is there.
    const std::string base = strf("takyon-%u-%s-%llu", static_cast<unsigned>(getuid()),
                                  provider.name().c_str(), static_cast<unsigned long long>(id));
    if (own_.create(base + "-" + config.side(), layout, log_) != Status::kOk) return log_.status();

    // Meet the peer; both sides hold their side's name while the path lives.
    StreamConnection stream;
    if (connect_unix_stream(base, config, deadline, log_, stream, true) != Status::kOk) return log_.status();
    claim_ = std::move(stream.claim);
    Pairing pairing(stream, peer_side, deadline, log_);
    const Hello hello{kHelloMagic, kHelloVersion, pointer_ ? 1u : 0u};
    if (pairing.send_hello(hello, own_.fd()) != Status::kOk) return log_.status();
    Hello theirs{};
    common::UniqueFd peer_fd;
    if (pairing.recv_hello(theirs, peer_fd) != Status::kOk) return log_.status();

    // My verdict on the peer's segment; it may be waiting for it, so it is sent in every case.
    LayoutVerdict mine{};
    Status checked = Status::kOk;
    if (theirs.pointer != (pointer_ ? 1u : 0u)) {
      checked = TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c of '%s' uses a different provider kind",
                            peer_side, provider.text().c_str());
    } else if ((checked = peer_.adopt_peer(std::move(peer_fd), base + "-" + peer_side, log_)) ==
               Status::kOk) {
      LayoutView my_view{config.side(), layout.send_bytes, layout.recv_bytes};
      const std::vector<uint64_t>& peer_send = peer_.send_sizes();
      const std::vector<uint64_t>& peer_recv = peer_.recv_sizes();
      LayoutView peer_view{peer_side, peer_send, peer_recv};
      checked = check_layout(my_view, peer_view, pointer_, provider.name(), log_);
    }
    if (checked != Status::kOk) {
      // Best effort: the peer may be gone already, and this endpoint's own error is the one to report.
      std::snprintf(mine.reason, sizeof(mine.reason), "%s", log_.cause().c_str());
      (void)::send(stream.fd.get(), &mine, sizeof(mine), MSG_NOSIGNAL | MSG_DONTWAIT);
      return checked;
    }
    mine.accepted = 1;
    if (pairing.send_verdict(mine) != Status::kOk) return log_.status();
    LayoutVerdict verdict{};
    if (pairing.recv_verdict(verdict) != Status::kOk) return log_.status();
    if (verdict.accepted != 1) {
      return TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c refused the pairing: %s", peer_side,
                         verdict.reason);
    }
    own_.close_fd();

    // Counts and pointers from this endpoint's own layout and the peer's tables as validated once:
    // never again from shared memory the peer can write.
    if (stream.peer_pid != getpid()) monitor_ = std::make_unique<PidMonitor>(stream.peer_pid);
    mailbox_.emplace(Mailbox::Side{&own_.header().mailbox, own_.slots()},
                     Mailbox::Side{&peer_.header().mailbox, peer_.slots()},
                     static_cast<int>(layout.send_bytes.size()), static_cast<int>(layout.recv_bytes.size()),
                     true, polling_, monitor_.get(), peer_.polling());
    for (uint32_t i = 0; i < layout.recv_bytes.size(); ++i) buffers_.recv.push_back(own_.recv_buffer(i));
    const std::vector<uint64_t>& peer_recv = peer_.recv_sizes();
    for (uint32_t i = 0; i < config.send.size(); ++i) {
      std::byte* addr = nullptr;
      if (pointer_) {
        addr = peer_.recv_buffer(i);
      } else if (use_or_allocate(config.send[i].app_addr, config.send[i].bytes, owned_send_, log_, addr) !=
                 Status::kOk) {
        return log_.status();
      }
      buffers_.send.push_back(addr);
      buffers_.remote_recv_bytes.push_back(peer_recv[i]);
    }
    return Status::kOk;
  }

  Status send(const SendArgs& args) override {
    const Status started = mailbox_->wait_send_slot(args.buffer, args.start, log_);
    if (started != Status::kOk) return started;
    if (mailbox_->peer_closing()) {
      return TAKYON_FAIL(log_, Status::kDisconnected,
                         "the peer destroyed its endpoint; the message would be lost");
    }
    if (pointer_) {
      mailbox_->post(args.buffer, args.bytes, args.dest_offset, args.piggyback);
    } else if (args.bytes <= kInlineBytes) {
      mailbox_->post_inline(args.buffer, buffers_.send[args.buffer] + args.src_offset, args.bytes,
                            args.dest_offset, args.piggyback);
    } else {
      std::memcpy(peer_.recv_buffer(static_cast<uint32_t>(args.buffer)) + args.dest_offset,
                  buffers_.send[args.buffer] + args.src_offset, args.bytes);
      mailbox_->post(args.buffer, args.bytes, args.dest_offset, args.piggyback);
    }
    return Status::kOk;
  }

  Status is_send_finished(int /*buffer*/, Deadline /*finish*/) override { return Status::kOk; }

  std::byte* peer_recv_memory(int buffer) override {
    return peer_.recv_buffer(static_cast<uint32_t>(buffer));
  }
  Status check_peer(bool thorough) override {
    if (mailbox_->peer_closing())
      return TAKYON_FAIL(log_, Status::kDisconnected, "the peer destroyed its endpoint");
    std::string why;
    if (thorough && !mailbox_->peer_alive(why))
      return TAKYON_FAIL(log_, Status::kDisconnected, "%s", why.c_str());
    return Status::kOk;
  }

  Status recv(int buffer, Deadline start, double /*finish_timeout*/, RecvResult& out) override {
    const auto k = static_cast<uint32_t>(buffer);
    return mailbox_->receive(buffer, start, own_.recv_sizes()[k], own_.recv_buffer(k), out, log_);
  }

  Status destroy(bool graceful, Deadline deadline) override {
    Status status = Status::kOk;
    if (mailbox_) {
      mailbox_->close();
      if (graceful) status = mailbox_->wait_peer_closing(deadline, log_);
      if (status == Status::kTimedOut) {
        status = TAKYON_FAIL(log_, Status::kTimeout,
                             "the peer did not destroy its endpoint within path_destroy_timeout");
      }
    }
    mailbox_.reset();  // it points into the segments unmapped below
    own_.close();
    peer_.close();
    claim_.reset();  // the ID is free again
    return status;
  }

 private:
  bool pointer_;
  bool polling_;
  ErrorLog& log_;
  ShmSegment own_;
  ShmSegment peer_;
  common::UniqueFd claim_;  ///< This side's abstract socket name, held while the path lives.
  std::unique_ptr<PidMonitor> monitor_;
  std::optional<Mailbox> mailbox_;
  std::vector<PageBuffer> owned_send_;
};

Status create_inter_process(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                            std::unique_ptr<Backend>& out, bool pointer) {
  const std::string& name = config.provider->name();
  for (size_t i = 0; i < config.recv.size(); ++i) {
    if (config.recv[i].app_addr != nullptr) {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "recver_addr_list[%zu] is not 0: %s places receive buffers in shared memory it allocates", i,
          name.c_str());
    }
  }
  if (pointer) {
    for (size_t i = 0; i < config.send.size(); ++i) {
      if (config.send[i].app_addr != nullptr) {
        return TAKYON_FAIL(log, Status::kInvalidArgument,
                           "sender_addr_list[%zu] is not 0: %s shares the receiver's buffer, so the sender "
                           "cannot supply its own",
                           i, name.c_str());
      }
    }
  }
  auto endpoint = std::make_unique<InterProcessEndpoint>(pointer, config.is_polling, log);
  if (endpoint->connect(config, deadline) != Status::kOk) return log.status();
  out = std::move(endpoint);
  return Status::kOk;
}

}  // namespace

Status InterProcessBackend::create_memcpy(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                          std::unique_ptr<Backend>& out) {
  return create_inter_process(config, deadline, log, out, false);
}

Status InterProcessBackend::create_pointer(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                           std::unique_ptr<Backend>& out) {
  return create_inter_process(config, deadline, log, out, true);
}

}  // namespace takyon::detail
