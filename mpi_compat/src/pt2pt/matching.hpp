// SPDX-License-Identifier: MIT
// MPI matching: the posted-receive queue and the unexpected-message queue of one rank. Both are kept
// in arrival/posting order and searched front to back, which gives MPI's non-overtaking rule: the
// rings deliver each source's messages in send order, so the first match is the oldest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "pt2pt/request.hpp"

namespace takyon::mpi {

/// A message that arrived before its receive was posted.
struct Unexpected {
  enum class Kind : std::uint8_t { kEager, kRts };
  Kind kind = Kind::kEager;
  int ctx = 0;
  int source = 0;  ///< world rank
  int tag = 0;
  std::size_t bytes = 0;           ///< the message's full size
  std::unique_ptr<char[]> data;    ///< kEager: a copy of the payload
  std::uint32_t msg_id = 0;        ///< kRts, or a synchronous eager send: what to answer
  bool sync = false;               ///< eager: the sender waits for a kAck
  bool solo = false;               ///< kRts: kFlagSolo (the data may be read from `addr` directly)
  bool busy = false;               ///< kRts: kFlagBusy (the sender has local work meanwhile)
  std::uint64_t addr = 0;          ///< kRts: the data's address in the sender
  Request* self_sender = nullptr;  ///< a synchronous self-send completes when this is matched
  std::uint64_t serial = 0;        ///< UnexpectedQueue::added() when it was queued
  Unexpected* prev = nullptr;
  Unexpected* next = nullptr;
};

[[nodiscard]] inline bool envelope_matches(int want_ctx, int want_source, int want_tag, int ctx, int source,
                                           int tag) {
  return want_ctx == ctx && (want_source == kAnySource || want_source == source) &&
         (want_tag == kAnyTag || want_tag == tag);
}

/// Doubly linked FIFO over T::prev/T::next; does not own its elements.
template <class T>
class IntrusiveFifo {
 public:
  void push_back(T* e) {
    e->next = nullptr;
    e->prev = tail_;
    (tail_ != nullptr ? tail_->next : head_) = e;
    tail_ = e;
    ++size_;
  }
  void erase(T* e) {
    (e->prev != nullptr ? e->prev->next : head_) = e->next;
    (e->next != nullptr ? e->next->prev : tail_) = e->prev;
    e->prev = e->next = nullptr;
    --size_;
  }
  [[nodiscard]] T* front() const { return head_; }
  [[nodiscard]] T* back() const { return tail_; }
  [[nodiscard]] bool empty() const { return head_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  std::size_t size_ = 0;
};

class PostedQueue {
 public:
  void post(Request* r) { q_.push_back(r); }
  /// The oldest receive that accepts (ctx, source, tag), removed from the queue; nullptr if none.
  Request* match(int ctx, int source, int tag);
  /// Removes `r` if it is queued (MPI_Cancel); returns whether it was.
  bool remove(Request* r);
  [[nodiscard]] std::size_t size() const { return q_.size(); }

 private:
  IntrusiveFifo<Request> q_;
};

class UnexpectedQueue {
 public:
  UnexpectedQueue() = default;
  UnexpectedQueue(const UnexpectedQueue&) = delete;
  UnexpectedQueue& operator=(const UnexpectedQueue&) = delete;
  ~UnexpectedQueue();
  void add(std::unique_ptr<Unexpected> u) {
    u->serial = ++added_;
    q_.push_back(u.release());
  }
  /// The oldest message a receive for (ctx, source, tag) accepts; nullptr if none. Stays queued.
  [[nodiscard]] Unexpected* find(int ctx, int source, int tag) const;
  /// Messages queued so far (a serial number: add() numbers them 1, 2, ...).
  [[nodiscard]] std::uint64_t added() const { return added_; }
  /// Whether a message queued after added() was `since` is accepted by (ctx, source, tag): what a
  /// wait that found no match at `since` needs to look at, without rescanning older messages.
  [[nodiscard]] bool any_since(std::uint64_t since, int ctx, int source, int tag) const;
  /// Like find(), but removes it from the queue and hands it over.
  std::unique_ptr<Unexpected> take(int ctx, int source, int tag);
  /// Removes and deletes the message `msg_id` (not 0) from `source`, if queued: a cancelled send's
  /// (MPI_Cancel). Returns whether it was.
  bool withdraw(int source, std::uint32_t msg_id);
  [[nodiscard]] std::size_t size() const { return q_.size(); }

 private:
  IntrusiveFifo<Unexpected> q_;
  std::uint64_t added_ = 0;
};

}  // namespace takyon::mpi
