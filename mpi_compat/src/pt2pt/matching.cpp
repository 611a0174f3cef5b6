// SPDX-License-Identifier: MIT
// Posted and unexpected queues (see matching.hpp).
#include "pt2pt/matching.hpp"

namespace takyon::mpi {

Request* PostedQueue::match(int ctx, int source, int tag) {
  for (Request* r = q_.front(); r != nullptr; r = r->next) {
    if (envelope_matches(r->ctx, r->peer, r->tag, ctx, source, tag)) {
      q_.erase(r);
      return r;
    }
  }
  return nullptr;
}

bool PostedQueue::remove(Request* r) {
  for (Request* e = q_.front(); e != nullptr; e = e->next) {
    if (e == r) {
      q_.erase(r);
      return true;
    }
  }
  return false;
}

UnexpectedQueue::~UnexpectedQueue() {
  while (Unexpected* u = q_.front()) {
    q_.erase(u);
    delete u;  // owned since add() released it into the queue
  }
}

Unexpected* UnexpectedQueue::find(int ctx, int source, int tag) const {
  for (Unexpected* u = q_.front(); u != nullptr; u = u->next) {
    if (envelope_matches(ctx, source, tag, u->ctx, u->source, u->tag)) return u;
  }
  return nullptr;
}

bool UnexpectedQueue::any_since(std::uint64_t since, int ctx, int source, int tag) const {
  // Queued in serial order: the new ones are at the back.
  for (const Unexpected* u = q_.back(); u != nullptr && u->serial > since; u = u->prev) {
    if (envelope_matches(ctx, source, tag, u->ctx, u->source, u->tag)) return true;
  }
  return false;
}

std::unique_ptr<Unexpected> UnexpectedQueue::take(int ctx, int source, int tag) {
  Unexpected* u = find(ctx, source, tag);
  if (u == nullptr) return nullptr;
  q_.erase(u);
  return std::unique_ptr<Unexpected>(u);
}

bool UnexpectedQueue::withdraw(int source, std::uint32_t msg_id) {
  if (msg_id == 0) return false;
  for (Unexpected* u = q_.front(); u != nullptr; u = u->next) {
    if (u->source == source && u->msg_id == msg_id) {
      q_.erase(u);
      delete u;  // owned since add() released it into the queue
      return true;
    }
  }
  return false;
}

}  // namespace takyon::mpi
