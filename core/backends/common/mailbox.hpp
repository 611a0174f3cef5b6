// SPDX-License-Identifier: MIT
// Mailbox: the notification protocol of the shared-memory backends (inter-thread, inter-process).
//
// Each endpoint owns a header, a *post line* and an *ack line* per buffer index, all written only
// by that endpoint and read by its peer. Post line k carries the messages posted on send buffer k
// (count, size, offset) and, piggybacked, how many messages this endpoint has consumed from its
// own receive buffer k; ack line k carries that consumed count as soon as a receive returns. A
// sender finds its buffer free in the peer's post line (which it already holds after a reply) and
// reads the ack line only when nothing came back, so a ping-pong moves one cache line per
// direction, as a bare cache-line ping-pong does, and a one-way stream still sees every receive.
// Waiting spins (polling) or sleeps on a futex (event driven); the writer wakes a sleeper only when
// the sleeper advertised itself, so polling paths make no system calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"

namespace takyon::detail {

/// Post line k: what the peer polls while waiting for a message in its receive buffer k.
struct alignas(64) MailboxLine {
  std::atomic<uint32_t> posted{0};         ///< Messages posted on send buffer k, mod 2^32 (futex word).
  std::atomic<uint32_t> waiting{0};        ///< What this endpoint sleeps on in the peer's lines k (kWait* bits).
  std::atomic<uint64_t> consumed_seen{0};  ///< Receive buffer k's consumed count (64-bit) at the latest post.
  std::atomic<uint64_t> bytes{0};          ///< Size of the latest message posted on send buffer k.
  std::atomic<uint64_t> offset{0};         ///< Its offset in the peer's receive buffer k.
};

/// Ack line k: messages this endpoint has received on its receive buffer k.
struct alignas(64) MailboxAck {
  std::atomic<uint32_t> consumed{0};  ///< Messages received, mod 2^32 (futex word of a waiting sender).
};

/// The cache line an endpoint owns for path-wide state.
struct alignas(64) MailboxHeader {
  std::atomic<uint32_t> closing{0};  ///< 1 once this endpoint is being destroyed (futex word).
  std::atomic<uint32_t> waiting{0};  ///< kWaitClosed while this endpoint sleeps on the peer's closing.
};

static_assert(sizeof(MailboxLine) == 64 && sizeof(MailboxAck) == 64 && sizeof(MailboxHeader) == 64);
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
    MailboxLine* lines = nullptr;
    MailboxAck* acks = nullptr;
  };

  /// `mine` is written only by this endpoint, `peer` only by the peer; both hold `nlines` lines.
  /// `process_shared`: the memory is shared between processes (shared futexes). `monitor` may be null.
  Mailbox(Side mine, Side peer, int nlines, bool process_shared, bool polling, PeerMonitor* monitor);

  /// Waits until the peer received every message posted on send buffer k (its receive buffer is
  /// free). kOk, kTimedOut, kDisconnected.
  Status wait_send_slot(int k, Deadline start, ErrorLog& log);
  /// Publishes a message already written into the peer's receive buffer k and wakes the peer.
  void post(int k, uint64_t bytes, uint64_t offset);
  /// Waits for the next message in receive buffer k (of `recv_bytes` bytes), checks what the peer
  /// wrote, marks it received and wakes the sender if it waits. kOk, kTimedOut, kDisconnected, kProtocol.
  Status receive(int k, Deadline start, uint64_t recv_bytes, RecvResult& out, ErrorLog& log);

  /// Announces that this endpoint is closing and wakes every peer thread that sleeps on it.
  void close();
  [[nodiscard]] bool peer_closing() const noexcept;
  /// Waits for the peer to close too. kOk, kTimedOut, kDisconnected (peer process gone).
  Status wait_peer_closing(Deadline deadline, ErrorLog& log);
  /// Checks the peer process now (false: gone, reason in `why`).
  bool peer_alive(std::string& why);

 private:
  enum class WaitFor { kMessage, kFreeBuffer, kPeerClosing };
  template <typename Ready>
  Status wait(Ready ready, const std::atomic<uint32_t>& word, std::atomic<uint32_t>& my_waiting, uint32_t bit,
              WaitFor what, int k, Deadline deadline, ErrorLog& log);
  Status disconnected(WaitFor what, int k, const std::string& why, ErrorLog& log);

  Side mine_;
  Side peer_;
  int nlines_;
  bool shared_;
  bool polling_;
  PeerMonitor* monitor_;
  std::vector<uint64_t> posted_;    ///< Messages posted per send buffer (mine_.lines[k].posted mod 2^32).
  std::vector<uint64_t> consumed_;  ///< Messages received per receive buffer (mine_.acks[k].consumed mod 2^32).
};

}  // namespace takyon::detail
