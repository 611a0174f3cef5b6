// SPDX-License-Identifier: MIT
// Inter-thread backend: a process-wide rendezvous pairs endpoints by provider and ID; the pair
// then shares a Mailbox and the receive buffers, which live until both endpoints are gone.
#include "backends/inter_thread/inter_thread_backend.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "backends/common/layout_check.hpp"
#include "backends/common/mailbox.hpp"
#include "buffer_alloc.hpp"

namespace takyon::detail {
namespace {

// What one endpoint publishes to its peer.
struct EndpointShare {
  bool published = false;
  bool polling = false;
  std::vector<uint64_t> send_bytes;
  std::vector<uint64_t> recv_bytes;
  std::vector<std::byte*> recv_addrs;
};

// State shared by the two endpoints of one path; lives until both are destroyed.
struct PathPair {
  std::string key;
  EndpointShare share[2];                 // [0] = A, [1] = B
  std::vector<PageBuffer> owned_recv[2];  // Takyon-allocated receive buffers (the peer writes them)
  PageBuffer control;                     // 2 headers, then A's receive slots, then B's receive slots
};

// Process-wide rendezvous: paths waiting for their peer, and the sides currently in use.
class Rendezvous {
 public:
  static Rendezvous& instance() {
    static Rendezvous* r = new Rendezvous();  // never destroyed: endpoints may outlive statics
    return *r;
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::shared_ptr<PathPair>> waiting;  // key -> pair not yet connected
  std::set<std::string> claimed;                             // key + "/A" or "/B" of live endpoints
};

class InterThreadEndpoint final : public Backend {
 public:
  InterThreadEndpoint(const InterThreadEndpoint&) = delete;
  InterThreadEndpoint& operator=(const InterThreadEndpoint&) = delete;
  InterThreadEndpoint(std::shared_ptr<PathPair> pair, int side, std::string claim, bool pointer, bool polling,
                      ErrorLog& log)
      : pair_(std::move(pair)),
        side_(side),
        claim_(std::move(claim)),
        pointer_(pointer),
        log_(log),
        mailbox_(side_mailbox(*pair_, side), side_mailbox(*pair_, 1 - side),
                 static_cast<int>(pair_->share[side].send_bytes.size()),
                 static_cast<int>(pair_->share[side].recv_bytes.size()), false, polling, nullptr,
                 pair_->share[1 - side].polling) {}

  ~InterThreadEndpoint() override {
    mailbox_.close();  // harmless after destroy(); never leave the peer waiting on us
    release_claim();
  }

  Status send(const SendArgs& args) override {
    const Status started = mailbox_.wait_send_slot(args.buffer, args.start, log_);
    if (started != Status::kOk) return started;
    if (mailbox_.peer_closing()) {
      return TAKYON_FAIL(log_, Status::kDisconnected,
                         "the peer destroyed its endpoint; the message would be lost");
    }
    if (pointer_) {
      mailbox_.post(args.buffer, args.bytes, args.dest_offset, args.piggyback);
    } else if (args.bytes <= kInlineBytes) {
      mailbox_.post_inline(args.buffer, buffers_.send[args.buffer] + args.src_offset, args.bytes,
                           args.dest_offset, args.piggyback);
    } else {
      std::memcpy(pair_->share[1 - side_].recv_addrs[args.buffer] + args.dest_offset,
                  buffers_.send[args.buffer] + args.src_offset, args.bytes);
      mailbox_.post(args.buffer, args.bytes, args.dest_offset, args.piggyback);
    }
    return Status::kOk;
  }

  Status is_send_finished(int /*buffer*/, Deadline /*finish*/) override { return Status::kOk; }

  std::byte* peer_recv_memory(int buffer) override { return pair_->share[1 - side_].recv_addrs[buffer]; }
  Status check_peer(bool /*thorough*/) override {
    if (!mailbox_.peer_closing()) return Status::kOk;
    return TAKYON_FAIL(log_, Status::kDisconnected, "the peer destroyed its endpoint");
  }

  Status recv(int buffer, Deadline start, double /*finish_timeout*/, RecvResult& out) override {
    const EndpointShare& mine = pair_->share[side_];
    return mailbox_.receive(buffer, start, mine.recv_bytes[buffer], mine.recv_addrs[buffer], out, log_);
  }

  Status destroy(bool graceful, Deadline deadline) override {
    mailbox_.close();
    Status status = Status::kOk;
    if (graceful) status = mailbox_.wait_peer_closing(deadline, log_);
    if (status == Status::kTimedOut) {
      status = TAKYON_FAIL(log_, Status::kTimeout,
                           "the peer did not destroy its endpoint within path_destroy_timeout");
    }
    release_claim();
    return status;
  }

  std::vector<PageBuffer> owned_send;

 private:
  static Mailbox::Side side_mailbox(PathPair& pair, int side) {
    auto* base = pair.control.data();
    auto* headers = reinterpret_cast<MailboxHeader*>(base);
    auto* slots = reinterpret_cast<MailboxSlot*>(base + 2 * sizeof(MailboxHeader));
    return {&headers[side], side == 0 ? slots : slots + pair.share[0].recv_bytes.size()};
  }

  void release_claim() {
    if (claim_.empty()) return;
    Rendezvous& r = Rendezvous::instance();
    std::lock_guard lock(r.mutex);
    r.claimed.erase(claim_);
    claim_.clear();
  }

  std::shared_ptr<PathPair> pair_;
  int side_;
  std::string claim_;
  bool pointer_;
  ErrorLog& log_;
  Mailbox mailbox_;

  friend Status create_inter_thread(const EndpointConfig&, Deadline, ErrorLog&, std::unique_ptr<Backend>&,
                                    bool);
};

Status allocate_recv(const EndpointConfig& config, std::vector<PageBuffer>& owned,
                     std::vector<std::byte*>& addrs, ErrorLog& log) {
  for (const BufferSpec& spec : config.recv) {
    std::byte* addr = nullptr;
    if (use_or_allocate(spec.app_addr, spec.bytes, owned, log, addr) != Status::kOk) return log.status();
    addrs.push_back(addr);
  }
  return Status::kOk;
}

Status create_inter_thread(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                           std::unique_ptr<Backend>& out, bool pointer) {
  const ProviderArgs& provider = *config.provider;
  const std::string key = provider.name() + " -ID=" + std::to_string(provider.number("ID"));
  const int side = config.is_endpoint_a ? 0 : 1;
  const std::string claim = key + (side == 0 ? "/A" : "/B");
  if (pointer) {
    for (size_t i = 0; i < config.send.size(); ++i) {
      if (config.send[i].app_addr != nullptr) {
        return TAKYON_FAIL(log, Status::kInvalidArgument,
                           "sender_addr_list[%zu] is not 0: %s shares the receiver's buffer, so the sender "
                           "cannot supply its own",
                           i, provider.name().c_str());
      }
    }
  }

  // Allocate this side's receive buffers before publishing them.
  std::vector<PageBuffer> owned_recv;
  EndpointShare share;
  share.published = true;
  share.polling = config.is_polling;
  for (const BufferSpec& spec : config.send) share.send_bytes.push_back(spec.bytes);
  for (const BufferSpec& spec : config.recv) share.recv_bytes.push_back(spec.bytes);
  if (allocate_recv(config, owned_recv, share.recv_addrs, log) != Status::kOk) return log.status();

  Rendezvous& r = Rendezvous::instance();
  std::unique_lock lock(r.mutex);
  if (r.claimed.count(claim) != 0) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "endpoint %c of '%s' already exists in this process; each side of a path is created once",
        config.side(), key.c_str());
  }
  std::shared_ptr<PathPair>& slot = r.waiting[key];
  if (!slot) {
    slot = std::make_shared<PathPair>();
    slot->key = key;
  }
  std::shared_ptr<PathPair> pair = slot;
  r.claimed.insert(claim);
  pair->share[side] = std::move(share);
  pair->owned_recv[side] = std::move(owned_recv);
  r.changed.notify_all();

  auto give_up = [&](Status status) {
    r.claimed.erase(claim);
    auto it = r.waiting.find(key);
    if (it != r.waiting.end() && it->second == pair && !pair->share[1 - side].published) r.waiting.erase(it);
    pair->share[side] = EndpointShare();
    pair->owned_recv[side].clear();
    return status;
  };

  while (!pair->share[1 - side].published) {
    if (deadline.is_forever()) {
      r.changed.wait(lock);
    } else if (r.changed.wait_for(lock, std::chrono::nanoseconds(deadline.remaining_ns(now_ns()))) ==
                   std::cv_status::timeout &&
               !pair->share[1 - side].published) {
      return give_up(TAKYON_FAIL(log, Status::kTimeout,
                                 "endpoint %c of '%s' was not created by another thread within "
                                 "path_create_timeout",
                                 side == 0 ? 'B' : 'A', key.c_str()));
    }
  }
  // Both sides are here: the next path with this key starts a fresh rendezvous.
  auto it = r.waiting.find(key);
  if (it != r.waiting.end() && it->second == pair) r.waiting.erase(it);

  const EndpointShare& mine = pair->share[side];
  const EndpointShare& peer = pair->share[1 - side];
  LayoutView my_view{config.side(), mine.send_bytes, mine.recv_bytes};
  LayoutView peer_view{side == 0 ? 'B' : 'A', peer.send_bytes, peer.recv_bytes};
  if (check_layout(my_view, peer_view, pointer, provider.name(), log) != Status::kOk) {
    r.claimed.erase(claim);
    return log.status();
  }
  if (pair->control.data() == nullptr) {
    const size_t nslots = pair->share[0].recv_bytes.size() + pair->share[1].recv_bytes.size();
    const uint64_t bytes = 2 * sizeof(MailboxHeader) + nslots * sizeof(MailboxSlot);
    if (pair->control.allocate(bytes, log) != Status::kOk) {
      r.claimed.erase(claim);
      return log.status();
    }
    // Construct the atomics in place (the mapping is zeroed, which is their initial value).
    auto* base = pair->control.data();
    new (base) MailboxHeader[2];
    if (nslots > 0) new (base + 2 * sizeof(MailboxHeader)) MailboxSlot[nslots];
  }
  lock.unlock();

  auto endpoint = std::make_unique<InterThreadEndpoint>(pair, side, claim, pointer, config.is_polling, log);
  endpoint->buffers_.recv = mine.recv_addrs;
  for (size_t i = 0; i < config.send.size(); ++i) {
    std::byte* addr = nullptr;
    if (pointer) {
      addr = peer.recv_addrs[i];
    } else if (use_or_allocate(config.send[i].app_addr, config.send[i].bytes, endpoint->owned_send, log,
                               addr) != Status::kOk) {
      return log.status();
    }
    endpoint->buffers_.send.push_back(addr);
    endpoint->buffers_.remote_recv_bytes.push_back(peer.recv_bytes[i]);
  }
  out = std::move(endpoint);
  return Status::kOk;
}

}  // namespace

Status InterThreadBackend::create_memcpy(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                         std::unique_ptr<Backend>& out) {
  return create_inter_thread(config, deadline, log, out, false);
}

Status InterThreadBackend::create_pointer(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                          std::unique_ptr<Backend>& out) {
  return create_inter_thread(config, deadline, log, out, true);
}

}  // namespace takyon::detail
