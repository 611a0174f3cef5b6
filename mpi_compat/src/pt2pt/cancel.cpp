// SPDX-License-Identifier: MIT
// Cancelling a send (MPI_Cancel). The receiver decides, as it does for every protocol: the sender
// asks with kCancel naming the message's id, and the receiver answers kCancelAnswer. A message still
// in its unexpected queue (eager data, a synchronous eager message or a kRts, none matched yet) is
// withdrawn there -- no receive can match it afterwards -- and the answer is yes; a message already
// matched (by a receive, or taken by a matched probe) is not, and the send completes as it would have.
// Channels deliver each pair's frames in order (shm rings and path channels alike), so when the kCancel
// is handled the message before it has been handled too: it is either in the unexpected queue or
// matched, never still on its way. The sender's request completes only once the answer is in (and,
// when the answer is no, once its transfer has completed): complete() holds back a send whose cancel
// is unanswered.
#include "pt2pt/engine_internal.hpp"

namespace takyon::mpi {

void Engine::cancel_send(Request* r) {
  if (!r->active || r->cancelled || r->cancel_asked || r->null_proc || r->companion != nullptr) return;
  if (r->peer == rank_) {
    // A self-send is in this rank's own unexpected queue until matched; a synchronous one waits there.
    if (!unexpected_.withdraw(rank_, r->msg_id)) return;
    r->cancelled = true;
    if (!r->complete) complete(r);
    return;
  }
  Peer& p = peers_[std::size_t(r->peer)];
  for (auto it = p.pending.begin(); it != p.pending.end(); ++it) {
    if (it->kind == Outgoing::Kind::kMessage && it->req == r) {  // never left this rank
      p.pending.erase(it);
      r->cancelled = true;
      complete(r);
      return;
    }
  }
  // A send streaming its data has been matched: nothing to ask.
  for (const Request* s : p.rndv.streaming_out) {
    if (s == r) return;
  }
  r->cancel_asked = true;
  r->cancel_done = r->complete;  // an eager send completed when it was written
  r->complete = false;
  p.rndv.cancels[r->msg_id] = r;
  queue_or_emit(p, r->peer, Outgoing{Outgoing::Kind::kCancel, nullptr, r->msg_id, 0});
}

void Engine::on_cancel(Peer& p, int source, const shm::CellHeader* cell) {
  const bool withdrawn = unexpected_.withdraw(source, cell->msg_id);
  queue_or_emit(p, source,
                Outgoing{Outgoing::Kind::kCancelAnswer, nullptr, cell->msg_id, withdrawn ? 1U : 0U});
}

void Engine::on_cancel_answer(Peer& p, const shm::CellHeader* cell) {
  auto it = p.rndv.cancels.find(cell->msg_id);
  if (it == p.rndv.cancels.end()) return;  // cannot happen with a well-behaved peer
  Request* r = it->second;
  p.rndv.cancels.erase(it);
  r->cancel_asked = false;
  if (engine_detail::read_u64(cell) != 0) {
    // Withdrawn: no kCts or kAck will come for it (a kRts, a synchronous message).
    p.rndv.awaiting.erase(r->msg_id);
    r->cancelled = true;
    complete(r);
    return;
  }
  if (r->cancel_done) complete(r);  // matched: as if never asked; else its transfer completes it
}

}  // namespace takyon::mpi
