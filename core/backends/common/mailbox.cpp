// SPDX-License-Identifier: MIT
// Mailbox implementation: spin, or spin briefly then sleep on a futex, with peer liveness checks
// every few milliseconds; zero-timeout looks without a system call.
#include "backends/common/mailbox.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "backends/common/spin.hpp"
#include "common/sys.hpp"

namespace takyon::detail {
namespace {

// How often a waiter checks that the peer process still exists, well inside the 100 ms budget:
// a spinning waiter checks often (a pidfd poll is cheap next to spinning), a sleeping one wakes
// for it 50 times a second.
constexpr int64_t kPollingLivenessPeriodNs = 5'000'000;
constexpr int64_t kEventLivenessPeriodNs = 20'000'000;

inline const uint32_t* futex_word(const std::atomic<uint32_t>& word) noexcept {
  return reinterpret_cast<const uint32_t*>(&word);
}

const char* wait_name(int what) {
  switch (what) {
    case 0:
      return "a message";
    case 1:
      return "the peer to receive the previous message in this buffer";
    default:
      return "the peer to destroy its endpoint";
  }
}

}  // namespace

Mailbox::Mailbox(Side mine, Side peer, int nsend, int nrecv, bool process_shared, bool polling,
                 PeerMonitor* monitor, bool peer_polling)
    : mine_(mine),
      peer_(peer),
      nsend_(nsend),
      nrecv_(nrecv),
      shared_(process_shared),
      polling_(polling),
      peer_polling_(peer_polling),
      monitor_(monitor),
      posted_(static_cast<size_t>(nsend)),
      consumed_(static_cast<size_t>(nrecv)) {
  for (int k = 0; k < nsend_; ++k) posted_[k] = peer_.recv_slots[k].posted.load(std::memory_order_relaxed);
  for (int k = 0; k < nrecv_; ++k)
    consumed_[k] = mine_.recv_slots[k].consumed.load(std::memory_order_relaxed);
}

bool Mailbox::peer_alive(std::string& why) {
  return monitor_ == nullptr || monitor_->alive(why);
}

Status Mailbox::disconnected(WaitFor what, int k, const std::string& why, ErrorLog& log) {
  if (what == WaitFor::kPeerClosing) {
    return TAKYON_FAIL(log, Status::kDisconnected, "%s while waiting for the peer to destroy its endpoint",
                       why.c_str());
  }
  return TAKYON_FAIL(log, Status::kDisconnected, "%s while waiting on buffer %d for %s", why.c_str(), k,
                     wait_name(static_cast<int>(what)));
}

template <typename Ready>
Status Mailbox::wait(Ready ready, const std::atomic<uint32_t>& word, std::atomic<uint8_t>& my_flag,
                     WaitFor what, int k, Deadline deadline, ErrorLog& log) {
  if (ready()) return Status::kOk;
  if (deadline.is_immediate()) return look_once(ready, what, k, log);
  // Event driven: spin first, for as long as this kind of wait's AdaptiveSpin allows.
  AdaptiveSpin* spin = polling_ || what == WaitFor::kPeerClosing ? nullptr
                       : what == WaitFor::kMessage               ? &message_spin_
                                                                 : &free_buffer_spin_;
  const int64_t spin_ns = spin == nullptr ? 0 : spin->budget_ns();
  bool sleeping = !polling_ && spin_ns == 0;
  bool slept = false;
  // The clock is read only once a wait lasts (first check after 64 spins when polling, 16 when
  // spinning before a sleep): a ping-pong's waits are shorter than that and never pay for it.
  const uint32_t check_mask = polling_ ? 63u : 15u;
  int64_t start = -1;
  for (uint32_t spins = 1;; ++spins) {
    if (sleeping || (spins & check_mask) == 0) {
      const int64_t now = now_ns();
      if (start < 0) start = now;
      if (what != WaitFor::kPeerClosing && peer_closing()) {
        if (ready()) return Status::kOk;  // delivered before the peer left
        return disconnected(what, k, "the peer destroyed its endpoint", log);
      }
      if (now >= next_liveness_ns_.load(std::memory_order_relaxed)) {
        std::string why;
        if (!peer_alive(why)) {
          if (ready()) return Status::kOk;
          return disconnected(what, k, why, log);
        }
        next_liveness_ns_.store(now + (polling_ ? kPollingLivenessPeriodNs : kEventLivenessPeriodNs),
                                std::memory_order_relaxed);
      }
      if (deadline.expired(now)) return ready() ? Status::kOk : Status::kTimedOut;
      if (!polling_ && !sleeping && now - start >= spin_ns) sleeping = true;
      if (sleeping) {
        // Event driven: advertise, re-check (the writer either sees the bit or we see its
        // store), then sleep until woken, the deadline, or the next liveness check.
        const uint32_t observed = word.load(std::memory_order_seq_cst);
        my_flag.store(1, std::memory_order_seq_cst);
        if (!ready() && (what == WaitFor::kPeerClosing || !peer_closing())) {
          // Without a peer process to watch (threads), only a post, a close or the deadline can
          // end the wait, and each of those wakes us: sleep until then. Otherwise wake up for
          // the next liveness check.
          int64_t slice = deadline.remaining_ns(now);
          if (monitor_ != nullptr) {
            slice = std::min(slice,
                             std::max<int64_t>(next_liveness_ns_.load(std::memory_order_relaxed) - now, 0));
          }
          slept = true;
          sys::futex_wait(futex_word(word), observed,
                          slice == INT64_MAX ? -1 : std::max<int64_t>(slice, 1000), shared_);
        }
        my_flag.store(0, std::memory_order_relaxed);
      } else if (polling_ && now - start > kSpinBeforeYieldNs) {
        sched_yield();
      }
    } else {
      cpu_relax();
    }
    if (ready()) {
      if (spin != nullptr) {
        if (slept) {
          spin->slept();
        } else {
          spin->spun();
        }
      }
      return Status::kOk;
    }
  }
}

template <typename Ready>
Status Mailbox::look_once(Ready ready, WaitFor what, int k, ErrorLog& log) {
  // A zero timeout (MPI over a path polls every buffer this way): no spinning, no system call. A
  // destroyed peer shows in shared memory; a dead process is checked every 64th empty look, and
  // then only once the liveness period has passed since the last check (the first look checks).
  if (what != WaitFor::kPeerClosing && peer_closing()) {
    if (ready()) return Status::kOk;
    return disconnected(what, k, "the peer destroyed its endpoint", log);
  }
  if (monitor_ != nullptr && (immediate_looks_.fetch_add(1, std::memory_order_relaxed) & 63u) == 0) {
    const int64_t now = now_ns();
    if (now >= next_liveness_ns_.load(std::memory_order_relaxed)) {
      std::string why;
      if (!peer_alive(why)) {
        if (ready()) return Status::kOk;
        return disconnected(what, k, why, log);
      }
      next_liveness_ns_.store(now + (polling_ ? kPollingLivenessPeriodNs : kEventLivenessPeriodNs),
                              std::memory_order_relaxed);
    }
  }
  return ready() ? Status::kOk : Status::kTimedOut;
}

Status Mailbox::wait_free_buffer(int k, Deadline start, ErrorLog& log) {
  MailboxSlot& slot = peer_.recv_slots[k];
  const uint32_t target = posted_[k];
  return wait([&] { return slot.consumed.load(std::memory_order_acquire) == target; }, slot.consumed,
              slot.sender_sleeping, WaitFor::kFreeBuffer, k, start, log);
}

Status Mailbox::wait_message(int k, Deadline start, ErrorLog& log) {
  MailboxSlot& slot = mine_.recv_slots[k];
  const uint32_t seen = consumed_[k];
  return wait([&] { return slot.posted.load(std::memory_order_acquire) != seen; }, slot.posted,
              slot.recver_sleeping, WaitFor::kMessage, k, start, log);
}

Status Mailbox::bad_announcement(int k, uint64_t bytes, uint64_t offset, uint64_t recv_bytes, ErrorLog& log) {
  return TAKYON_FAIL(
      log, Status::kProtocol,
      "the peer announced %llu bytes at offset %llu in receive buffer %d, which holds %llu bytes",
      static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(offset), k,
      static_cast<unsigned long long>(recv_bytes));
}

Status Mailbox::bad_inline(int k, uint64_t bytes, ErrorLog& log) {
  return TAKYON_FAIL(
      log, Status::kProtocol, "the peer sent %llu bytes inside the mailbox slot of receive buffer %d, %s",
      static_cast<unsigned long long>(bytes), k,
      bytes > kInlineBytes ? "which holds at most 40" : "a buffer with no memory to copy them to");
}

void Mailbox::close() {
  mine_.header->closing.store(1, std::memory_order_seq_cst);
  // Wake every peer thread that may sleep on a word it shares with us; it will see `closing`.
  sys::futex_wake(futex_word(mine_.header->closing), INT_MAX, shared_);
  for (int k = 0; k < nrecv_; ++k)
    sys::futex_wake(futex_word(mine_.recv_slots[k].consumed), INT_MAX, shared_);
  for (int k = 0; k < nsend_; ++k) sys::futex_wake(futex_word(peer_.recv_slots[k].posted), INT_MAX, shared_);
}

Status Mailbox::wait_peer_closing(Deadline deadline, ErrorLog& log) {
  const std::atomic<uint32_t>& closing = peer_.header->closing;
  return wait([&] { return closing.load(std::memory_order_acquire) != 0; }, closing, mine_.header->waiting,
              WaitFor::kPeerClosing, 0, deadline, log);
}

}  // namespace takyon::detail
