// SPDX-License-Identifier: MIT
// Inter-process backend: each endpoint publishes a segment (its mailbox and receive buffers) and
// maps its peer's; a nonce handshake pairs the two current incarnations; a pidfd tells when the
// peer process is gone.
#include "backends/inter_process/inter_process_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

#include "backends/common/layout_check.hpp"
#include "backends/common/mailbox.hpp"
#include "backends/inter_process/shm_segment.hpp"
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

class InterProcessEndpoint final : public Backend {
 public:
  InterProcessEndpoint(bool pointer, bool polling, ErrorLog& log)
      : pointer_(pointer), polling_(polling), log_(log) {}
  InterProcessEndpoint(const InterProcessEndpoint&) = delete;
  InterProcessEndpoint& operator=(const InterProcessEndpoint&) = delete;
  ~InterProcessEndpoint() override {
    if (mailbox_) mailbox_->close();
    own_.unlink_and_close();
    peer_.close();
  }

  Status connect(const EndpointConfig& config, Deadline deadline) {
    const ProviderArgs& provider = *config.provider;
    const uint64_t id = provider.number("ID");
    SegmentLayout layout;
    layout.pointer = pointer_;
    for (const BufferSpec& spec : config.send) layout.send_bytes.push_back(spec.bytes);
    for (const BufferSpec& spec : config.recv) layout.recv_bytes.push_back(spec.bytes);
    if (own_.create(segment_name(provider.name(), id, config.side()), layout, deadline, log_) !=
        Status::kOk) {
      return log_.status();
    }
    const std::string peer_name = segment_name(provider.name(), id, config.is_endpoint_a ? 'B' : 'A');
    SegmentHeader& mine = own_.header();
    int64_t backoff_ns = 20'000;
    for (;;) {
      if (!peer_.mapped()) {
        const Status opened = peer_.open_peer(peer_name, log_);
        if (opened != Status::kOk && opened != Status::kTimedOut) return opened;
        if (opened == Status::kOk) {
          LayoutView my_view{config.side(), layout.send_bytes, layout.recv_bytes};
          const std::vector<uint64_t> peer_send = peer_.send_sizes();
          const std::vector<uint64_t> peer_recv = peer_.recv_sizes();
          LayoutView peer_view{config.is_endpoint_a ? 'B' : 'A', peer_send, peer_recv};
          if (peer_.header().pointer != (pointer_ ? 1u : 0u)) {
            return TAKYON_FAIL(log_, Status::kProtocol,
                               "the peer endpoint of %s uses a different provider kind", peer_name.c_str());
          }
          if (check_layout(my_view, peer_view, pointer_, provider.name(), log_) != Status::kOk) {
            // Tell the peer, which may be waiting for us, why the pairing is refused.
            SegmentHeader& theirs = peer_.header();
            std::snprintf(theirs.reject_reason, sizeof(theirs.reject_reason), "%s", log_.cause().c_str());
            theirs.rejected.store(1, std::memory_order_release);
            return log_.status();
          }
          mine.peer_nonce.store(peer_.header().nonce, std::memory_order_seq_cst);
        }
      }
      if (mine.rejected.load(std::memory_order_acquire) != 0) {
        mine.reject_reason[sizeof(mine.reject_reason) - 1] = '\0';
        return TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c refused the pairing: %s",
                           config.is_endpoint_a ? 'B' : 'A', mine.reject_reason);
      }
      if (peer_.mapped()) {
        const SegmentHeader& theirs = peer_.header();
        if (theirs.peer_nonce.load(std::memory_order_seq_cst) == mine.nonce) break;  // both paired: connected
        if (theirs.mailbox.closing.load(std::memory_order_acquire) != 0 || peer_.owner_gone()) {
          peer_.close();  // an old incarnation on its way out; wait for the new one
          mine.peer_nonce.store(0, std::memory_order_seq_cst);
        }
      }
      if (deadline.expired()) {
        return TAKYON_FAIL(log_, Status::kTimeout,
                           "endpoint %c of '%s' did not appear (shared memory %s) within path_create_timeout",
                           config.is_endpoint_a ? 'B' : 'A', provider.text().c_str(), peer_name.c_str());
      }
      std::this_thread::sleep_for(
          std::chrono::nanoseconds(std::min(backoff_ns, deadline.remaining_ns(now_ns()))));
      backoff_ns = std::min<int64_t>(backoff_ns * 2, 2'000'000);
    }

    const SegmentHeader& theirs = peer_.header();
    if (theirs.pid != mine.pid) monitor_ = std::make_unique<PidMonitor>(theirs.pid);
    mailbox_.emplace(Mailbox::Side{&mine.mailbox, own_.slots()},
                     Mailbox::Side{&peer_.header().mailbox, peer_.slots()}, static_cast<int>(mine.nsend),
                     static_cast<int>(mine.nrecv), true, polling_, monitor_.get());
    recv_bytes_ = layout.recv_bytes;
    for (uint32_t i = 0; i < layout.recv_bytes.size(); ++i) buffers_.recv.push_back(own_.recv_buffer(i));
    const std::vector<uint64_t> peer_recv = peer_.recv_sizes();
    for (uint32_t i = 0; i < config.send.size(); ++i) {
      peer_recv_.push_back(peer_.recv_buffer(i));
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
    if (!pointer_ && args.bytes > 0) {
      std::memcpy(peer_recv_[args.buffer] + args.dest_offset, buffers_.send[args.buffer] + args.src_offset,
                  args.bytes);
    }
    mailbox_->post(args.buffer, args.bytes, args.dest_offset);
    return Status::kOk;
  }

  Status is_send_finished(int /*buffer*/, Deadline /*finish*/) override { return Status::kOk; }

  Status recv(int buffer, Deadline start, double /*finish_timeout*/, RecvResult& out) override {
    return mailbox_->receive(buffer, start, recv_bytes_[buffer], out, log_);
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
    own_.unlink_and_close();
    peer_.unlink_if_stale_and_close();  // a crashed peer leaves nothing behind in /dev/shm
    return status;
  }

 private:
  bool pointer_;
  bool polling_;
  ErrorLog& log_;
  ShmSegment own_;
  ShmSegment peer_;
  std::unique_ptr<PidMonitor> monitor_;
  std::optional<Mailbox> mailbox_;
  std::vector<uint64_t> recv_bytes_;
  std::vector<std::byte*> peer_recv_;
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
