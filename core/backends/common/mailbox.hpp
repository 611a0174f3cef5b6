// SPDX-License-Identifier: MIT
// Mailbox: the notification protocol of the shared-memory backends (inter-thread, inter-process).
//
// Each receive buffer has one 64-byte slot, placed with the receiver's buffers. The sender writes
// the message count, size and offset into it; the receiver writes its consumed count into the same
// line right after reading it. A message of up to kInlineBytes travels inside the slot itself and
// the receiver copies it into its receive buffer at the offset: one cache line handed over each
// way, where a message in the buffer costs the buffer's lines too. Waiting spins (polling)
// or spins briefly then sleeps on a futex (event driven, AdaptiveSpin); the writer wakes a sleeper
// only when the sleeper advertised itself in the slot, and pays for the store-load fence that
// this needs only when the peer endpoint is event driven, so polling paths make no system calls
// and no fences.
#pragma once

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend.hpp"
#include "backends/common/adaptive_spin.hpp"
#include "common/sys.hpp"

namespace takyon::detail {

/// The slot of one receive buffer: the notification and, for a small message, the message.
struct alignas(64) MailboxSlot {
  std::atomic<uint32_t> posted{0};          ///< Messages posted (sender; futex word of a waiting receiver).
  std::atomic<uint32_t> consumed{0};        ///< Messages received (receiver; futex word of a waiting sender).
  std::atomic<uint8_t> recver_sleeping{0};  ///< Receiver asleep on `posted`.
  std::atomic<uint8_t> sender_sleeping{0};  ///< Sender asleep on `consumed`.
  std::atomic<uint8_t> inline_bytes{0};     ///< Size of a message carried in `payload`, or kInBuffer.
  std::atomic<uint32_t> piggyback{0};       ///< The 32-bit value the latest message carries.
  std::atomic<uint64_t> offset{0};          ///< Offset of the latest message in the receive buffer.
  /// The latest message itself (inline_bytes of it), or, for a message in the buffer, its size in
  /// payload[0]. Words, not bytes, so that a peer writing while we read is no undefined behaviour.
  std::atomic<uint64_t> payload[5]{};

  static constexpr uint8_t kInBuffer = 0xff;
};

/// The largest message that travels inside its mailbox slot.
inline constexpr uint64_t kInlineBytes = sizeof(MailboxSlot::payload);

/// The cache line an endpoint owns for path-wide state.
struct alignas(64) MailboxHeader {
  std::atomic<uint32_t> closing{0};  ///< 1 once this endpoint is being destroyed (futex word).
  std::atomic<uint8_t> waiting{0};   ///< Nonzero while this endpoint sleeps on the peer's closing.
};

static_assert(sizeof(MailboxSlot) == 64 && sizeof(MailboxHeader) == 64);
static_assert(offsetof(MailboxSlot, piggyback) == 12 && offsetof(MailboxSlot, offset) == 16 &&
              offsetof(MailboxSlot, payload) == 24 && kInlineBytes == 40);
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
  /// memory is shared between processes (shared futexes). `monitor` may be null. `peer_polling`:
  /// the peer endpoint never sleeps (it said so at create), so waking it needs no fence.
  Mailbox(Side mine, Side peer, int nsend, int nrecv, bool process_shared, bool polling, PeerMonitor* monitor,
          bool peer_polling = false);

  /// Waits until the peer received every message posted on send buffer k (its receive buffer is
  /// free). kOk, kTimedOut, kDisconnected.
  Status wait_send_slot(int k, Deadline start, ErrorLog& log) {
    MailboxSlot& slot = peer_.recv_slots[k];
    // The receiver's consumed count is posted - 1 or posted, so 32 bits compare exactly.
    if (slot.consumed.load(std::memory_order_acquire) == posted_[k]) [[likely]]
      return Status::kOk;
    return wait_free_buffer(k, start, log);
  }
  /// Publishes a message already written into the peer's receive buffer k (with its 32-bit
  /// piggyback value) and wakes the peer.
  void post(int k, uint64_t bytes, uint64_t offset, uint32_t piggyback) {
    MailboxSlot& slot = peer_.recv_slots[k];
    slot.inline_bytes.store(MailboxSlot::kInBuffer, std::memory_order_relaxed);
    slot.piggyback.store(piggyback, std::memory_order_relaxed);
    slot.payload[0].store(bytes, std::memory_order_relaxed);
    slot.offset.store(offset, std::memory_order_relaxed);
    publish(slot, k);
  }
  /// Sends a message of at most kInlineBytes inside the slot of the peer's receive buffer k; the
  /// peer's receive() copies it to `offset` in its buffer.
  void post_inline(int k, const std::byte* data, uint64_t bytes, uint64_t offset, uint32_t piggyback) {
    MailboxSlot& slot = peer_.recv_slots[k];
    slot.piggyback.store(piggyback, std::memory_order_relaxed);
    size_t word = 0;
    for (; 8 * word + 8 <= bytes; ++word) {
      uint64_t value;
      std::memcpy(&value, data + 8 * word, 8);
      slot.payload[word].store(value, std::memory_order_relaxed);
    }
    if (8 * word < bytes)
      slot.payload[word].store(load_tail(data + 8 * word, bytes - 8 * word), std::memory_order_relaxed);
    slot.inline_bytes.store(static_cast<uint8_t>(bytes), std::memory_order_relaxed);
    slot.offset.store(offset, std::memory_order_relaxed);
    publish(slot, k);
  }
  /// Waits for the next message in receive buffer k (of `recv_bytes` bytes at `recv_buffer`),
  /// checks what the peer wrote, copies a message that came inside the slot into the buffer, marks
  /// it received and wakes the sender if it waits. kOk, kTimedOut, kDisconnected, kProtocol.
  Status receive(int k, Deadline start, uint64_t recv_bytes, std::byte* recv_buffer, RecvResult& out,
                 ErrorLog& log) {
    MailboxSlot& slot = mine_.recv_slots[k];
    if (slot.posted.load(std::memory_order_acquire) == consumed_[k]) {
      const Status status = wait_message(k, start, log);
      if (status != Status::kOk) return status;
    }
    const uint8_t inline_bytes = slot.inline_bytes.load(std::memory_order_relaxed);
    const uint64_t bytes = inline_bytes == MailboxSlot::kInBuffer
                               ? slot.payload[0].load(std::memory_order_relaxed)
                               : inline_bytes;
    const uint64_t offset = slot.offset.load(std::memory_order_relaxed);
    if (offset > recv_bytes || bytes > recv_bytes - offset) [[unlikely]] {
      return bad_announcement(k, bytes, offset, recv_bytes, log);
    }
    if (inline_bytes != MailboxSlot::kInBuffer && bytes > 0) {
      if (bytes > kInlineBytes || recv_buffer == nullptr) [[unlikely]]
        return bad_inline(k, bytes, log);
      copy_inline(slot, recv_buffer + offset, bytes);
    }
    out.bytes = bytes;
    out.offset = offset;
    out.piggyback = slot.piggyback.load(std::memory_order_relaxed);
    if (peer_polling_) {
      slot.consumed.store(++consumed_[k], std::memory_order_release);
    } else {
      slot.consumed.store(++consumed_[k], std::memory_order_seq_cst);
      if (slot.sender_sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]] {
        sys::futex_wake(reinterpret_cast<const uint32_t*>(&slot.consumed), INT32_MAX, shared_);
      }
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
  [[gnu::cold]] Status bad_inline(int k, uint64_t bytes, ErrorLog& log);

  void publish(MailboxSlot& slot, int k) {
    if (peer_polling_) {
      slot.posted.store(++posted_[k], std::memory_order_release);
      return;
    }
    // The store-load pair that pairs with the sleeper's advertise-then-check in wait().
    slot.posted.store(++posted_[k], std::memory_order_seq_cst);
    if (slot.recver_sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]] {
      sys::futex_wake(reinterpret_cast<const uint32_t*>(&slot.posted), INT32_MAX, shared_);
    }
  }
  // The last 1..7 bytes of an inline message as one word, without reading past them.
  static uint64_t load_tail(const std::byte* p, size_t n) noexcept {
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) value |= static_cast<uint64_t>(p[i]) << (8 * i);
    return value;
  }
  static void copy_inline(const MailboxSlot& slot, std::byte* to, uint64_t bytes) noexcept {
    size_t word = 0;
    for (; 8 * word + 8 <= bytes; ++word) {
      const uint64_t value = slot.payload[word].load(std::memory_order_relaxed);
      std::memcpy(to + 8 * word, &value, 8);
    }
    if (8 * word < bytes) {
      const uint64_t value = slot.payload[word].load(std::memory_order_relaxed);
      for (size_t i = 0; 8 * word + i < bytes; ++i)
        to[8 * word + i] = static_cast<std::byte>(value >> (8 * i));
    }
  }
  template <typename Ready>
  Status wait(Ready ready, const std::atomic<uint32_t>& word, std::atomic<uint8_t>& my_flag, WaitFor what,
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
  bool peer_polling_;
  PeerMonitor* monitor_;
  std::vector<uint32_t> posted_;    ///< Messages posted per send buffer.
  std::vector<uint32_t> consumed_;  ///< Messages received per receive buffer.
  // Peer liveness is checked at a bounded rate across calls, not on every call (atomics: a path's
  // sends and receives may wait in different threads). 0: check at the first opportunity.
  std::atomic<int64_t> next_liveness_ns_{0};
  std::atomic<uint32_t> immediate_looks_{0};  ///< Zero-timeout looks that found nothing.
  AdaptiveSpin message_spin_;                 ///< Event driven: spin before sleeping for a message,
  AdaptiveSpin free_buffer_spin_;             ///< and for the peer to free a buffer.
};

}  // namespace takyon::detail
