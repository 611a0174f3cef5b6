// SPDX-License-Identifier: MIT
// Mailbox: the notification protocol of the shared-memory backends (inter-thread, inter-process).
//
// Each receive buffer has one 64-byte slot, placed with the receiver's buffers. The sender writes
// the message count, size and offset into it; the receiver writes its consumed count into the same
// line right after reading it. Each side thus reads a line and then writes it, the pattern the
// cache coherence protocol hands over in a single migration (a layout where each side only writes
// its own lines makes a ping-pong clearly slower: more coherence transactions per message). Waiting
// spins (polling) or sleeps on a futex (event driven); the writer wakes a sleeper only when the
// sleeper advertised itself in the slot, so polling paths make no system calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "common/sys.hpp"

namespace takyon::detail {

/// The slot of one receive buffer.
struct alignas(64) MailboxSlot {
  std::atomic<uint32_t> posted{0};    ///< Messages posted (sender; futex word of a waiting receiver).
  std::atomic<uint32_t> consumed{0};  ///< Messages received (receiver; futex word of a waiting sender).
  std::atomic<uint32_t> recver_sleeping{0};  ///< Receiver asleep on `posted`.
  std::atomic<uint32_t> sender_sleeping{0};  ///< Sender asleep on `consumed`.
  std::atomic<uint64_t> bytes{0};            ///< Size of the latest message.
  std::atomic<uint64_t> offset{0};           ///< Its offset in the receive buffer.
};

/// The cache line an endpoint owns for path-wide state.
struct alignas(64) MailboxHeader {
  std::atomic<uint32_t> closing{0};  ///< 1 once this endpoint is being destroyed (futex word).
  std::atomic<uint32_t> waiting{0};  ///< Nonzero while this endpoint sleeps on the peer's closing.
};

static_assert(sizeof(MailboxSlot) == 64 && sizeof(MailboxHeader) == 64);
static_assert(std::atomic<uint32_t>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free);

/// Tells whether the peer endpoint's process still exists (inter-process only).
class PeerMonitor {
 public:
  virtual ~PeerMonitor() = default;
  /// false (with the reason in `why`) once the peer is gone. Called every few milliseconds.
  virtual bool alive(std::string& why) = 0;
};

class Mailbox {
 public:
  struct Side {
    MailboxHeader* header = nullptr;
    MailboxSlot* recv_slots = nullptr;  ///< One per receive buffer of that endpoint.
  };

  /// `mine`: this endpoint's header and the slots of its `nrecv` receive buffers; `peer`: the
  /// peer's, whose receive buffers are this endpoint's `nsend` send buffers. `process_shared`: the
  /// memory is shared between processes (shared futexes). `monitor` may be null.
  Mailbox(Side mine, Side peer, int nsend, int nrecv, bool process_shared, bool polling,
          PeerMonitor* monitor);

  /// Waits until the peer received every message posted on send buffer k (its receive buffer is
  /// free). kOk, kTimedOut, kDisconnected.
  Status wait_send_slot(int k, Deadline start, ErrorLog& log) {
    // The receiver's consumed count is posted - 1 or posted, so 32 bits compare exactly.
    if (peer_.recv_slots[k].consumed.load(std::memory_order_acquire) == posted_[k]) [[likely]]
      return Status::kOk;
    return wait_free_buffer(k, start, log);
  }
  /// Publishes a message already written into the peer's receive buffer k and wakes the peer.
  void post(int k, uint64_t bytes, uint64_t offset) {
    MailboxSlot& slot = peer_.recv_slots[k];
    slot.bytes.store(bytes, std::memory_order_relaxed);
    slot.offset.store(offset, std::memory_order_relaxed);
    slot.posted.store(++posted_[k], std::memory_order_seq_cst);
    if (slot.recver_sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]] {
      sys::futex_wake(reinterpret_cast<const uint32_t*>(&slot.posted), INT32_MAX, shared_);
    }
  }
  /// Waits for the next message in receive buffer k (of `recv_bytes` bytes), checks what the peer
  /// wrote, marks it received and wakes the sender if it waits. kOk, kTimedOut, kDisconnected, kProtocol.
  Status receive(int k, Deadline start, uint64_t recv_bytes, RecvResult& out, ErrorLog& log) {
    MailboxSlot& slot = mine_.recv_slots[k];
    if (slot.posted.load(std::memory_order_acquire) == consumed_[k]) {
      const Status status = wait_message(k, start, log);
      if (status != Status::kOk) return status;
    }
    const uint64_t bytes = slot.bytes.load(std::memory_order_relaxed);
    const uint64_t offset = slot.offset.load(std::memory_order_relaxed);
    if (offset > recv_bytes || bytes > recv_bytes - offset) [[unlikely]] {
      return bad_announcement(k, bytes, offset, recv_bytes, log);
    }
    out.bytes = bytes;
    out.offset = offset;
    slot.consumed.store(++consumed_[k], std::memory_order_seq_cst);
    if (slot.sender_sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]] {
      sys::futex_wake(reinterpret_cast<const uint32_t*>(&slot.consumed), INT32_MAX, shared_);
    }
    return Status::kOk;
  }

  /// Announces that this endpoint is closing and wakes every peer thread that sleeps on it.
  void close();
  [[nodiscard]] bool peer_closing() const noexcept {
    return peer_.header->closing.load(std::memory_order_acquire) != 0;
  }
  /// Waits for the peer to close too. kOk, kTimedOut, kDisconnected (peer process gone).
  Status wait_peer_closing(Deadline deadline, ErrorLog& log);
  /// Checks the peer process now (false: gone, reason in `why`).
  bool peer_alive(std::string& why);

 private:
  enum class WaitFor { kMessage, kFreeBuffer, kPeerClosing };
  // The waits proper, out of line: the inline fast paths above call them only when not ready.
  Status wait_free_buffer(int k, Deadline start, ErrorLog& log);
  Status wait_message(int k, Deadline start, ErrorLog& log);
  [[gnu::cold]] Status bad_announcement(int k, uint64_t bytes, uint64_t offset, uint64_t recv_bytes,
                                        ErrorLog& log);
  template <typename Ready>
  Status wait(Ready ready, const std::atomic<uint32_t>& word, std::atomic<uint32_t>& my_flag, WaitFor what,
              int k, Deadline deadline, ErrorLog& log);
  template <typename Ready>
  Status look_once(Ready ready, WaitFor what, int k, ErrorLog& log);
  Status disconnected(WaitFor what, int k, const std::string& why, ErrorLog& log);

  Side mine_;
  Side peer_;
  int nsend_;
  int nrecv_;
  bool shared_;
  bool polling_;
  PeerMonitor* monitor_;
  std::vector<uint32_t> posted_;    ///< Messages posted per send buffer.
  std::vector<uint32_t> consumed_;  ///< Messages received per receive buffer.
  // Peer liveness is checked at a bounded rate across calls, not on every call (atomics: a path's
  // sends and receives may wait in different threads). 0: check at the first opportunity.
  std::atomic<int64_t> next_liveness_ns_{0};
  std::atomic<uint32_t> immediate_looks_{0};  ///< Zero-timeout looks that found nothing.
};

}  // namespace takyon::detail
