// SPDX-License-Identifier: MIT
// The rendezvous protocol: kRts (envelope, size) -> the receiver matches and answers kCts (the bytes
// it wants) -> the sender streams the data through the pair's bulk pipeline in kCts order (over a
// path channel: kData frames in the same ordered stream). A message over shared memory may instead
// take a single copy (single_copy.cpp), a lone one a split copy: start_rndv_recv decides.
#include "pt2pt/engine_internal.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace takyon::mpi {

using namespace engine_detail;

void Engine::start_rndv_recv(Request* r, int source, int tag, std::uint32_t msg_id, std::size_t total,
                             bool solo, bool sender_busy, std::uint64_t addr) {
  std::size_t wanted = total > r->bytes ? r->bytes : total;
  r->truncated = total > r->bytes;
  r->sent_bytes = total;
  r->status_source = source;
  r->status_tag = tag;
  r->status_bytes = wanted;
  r->recv_state = RecvState::kMatched;
  r->rndv_total = wanted;
  r->rndv_done = 0;
  Peer& p = peers_[std::size_t(source)];
  // Past tuning().cma_max_bytes the pipeline's two cores beat CMA, but not a memcpy out of the
  // sender's shared heap (in a ping-pong, a large message read out of the heap arrives much sooner
  // than one sent through the pipeline).
  auto single_size = [&] {
    return wanted <= tuning().cma_max_bytes || heap_view(p, addr, wanted) != nullptr;
  };
  // This rank may read the sender's buffer itself: a shared-memory peer whose memory CMA (or the
  // heap) has reached so far, and nothing cleared for the pipeline still streams from it (so the
  // receives of a pair complete in order).
  const bool readable = addr != 0 && wanted != 0 && !p.path && p.copy.cma && p.rndv.streaming_in.empty();
  auto acknowledge = [&] {  // the data is in place: the send and this receive complete
    queue_or_emit(p, source, Outgoing{Outgoing::Kind::kAck, nullptr, msg_id, 0});
    complete(r);
  };
  // The split: lone messages, and those of a one-way window (this rank sends nothing to that peer,
  // so the sender only waits for its window's acknowledgements and has a core to copy with).
  if (readable && (solo || p.rndv.awaiting.empty()) && !r->pipelined && cma_split_ &&
      wanted >= tuning().cma_split_min && single_size() && read_range(p, r, addr, 0, kCmaProbeBytes)) {
    // Split: the head (whole pages) here, the tail by the sender, at once. The head is half; a
    // quarter when only this rank has local work of its own to do meanwhile (r->local_work:
    // gather's root), three quarters when only the sender has (kFlagBusy: scatter's root); only the
    // probe when this rank is sending to that peer too (an exchange: each rank writes its own data
    // over, which beats each reading the other's in an allgather). Gather's root does best with a
    // quarter, bcast and reduce with half.
    std::size_t split = kCmaProbeBytes;  // the sender copies the rest
    if (p.rndv.awaiting.empty()) {
      std::size_t head = wanted / 2;
      if (r->local_work && !sender_busy) head = wanted / 4;
      if (sender_busy && !r->local_work) head = wanted / 4 * 3;
      split = std::max(kCmaProbeBytes, (head + kCmaProbeBytes - 1) & ~(kCmaProbeBytes - 1));
    }
    r->rndv_done = split;
    p.copy.split_in.emplace(msg_id, Peer::SingleCopy::SplitIn{r, addr});
    Outgoing cts{Outgoing::Kind::kSplitCts, nullptr, msg_id, wanted};
    cts.addr = reinterpret_cast<std::uintptr_t>(r->buf);
    cts.split = split;
    queue_or_emit(p, source, cts);
    if (!read_range(p, r, addr, kCmaProbeBytes, split)) cma_failed(source, "process_vm_readv");
    return;
  }
  // A reduction's receive from a buffer in the sender's shared heap is folded into place straight
  // from there, whatever the schedule chose (r->pipelined): no copy at all, where the pipeline
  // copies every byte once more into its chunks and a single copy once more into scratch.
  if (readable && r->fold.fn != nullptr && r->fold.item != 0 && wanted % r->fold.item == 0) {
    if (const char* src = heap_view(p, addr, wanted)) {
      r->fold.fn(r->fold.ctx, src, 0, wanted);
      r->folded = true;
      heap_copied_bytes_ += wanted;
      acknowledge();
      return;
    }
  }
  // Any other message the receiver can read is one copy too, lone or not: in a window of messages
  // (the common benchmarks' pattern: one send buffer and one receive buffer reused by the whole
  // window) one copy out of the sender's cache-warm buffer moves several times the bytes per second
  // of the pipeline's two copies. A root receiving from several ranks at once on a node with more
  // ranks than cores takes the pipeline: its senders copy half of the work, which beats the root
  // reading from all of them alone.
  const bool fan_in = r->fan_in && oversubscribed_;
  if (readable && !r->pipelined && !fan_in && single_size() && read_from_sender(p, r, addr, wanted)) {
    acknowledge();
    return;
  }
  if (wanted != 0) {
    warm_bulk(p, false);
    // Folded chunk by chunk only where every chunk holds whole items (the shm pipeline; a path
    // channel's frames are copied).
    r->folded = r->fold.fn != nullptr && !p.path && r->fold.item != 0 &&
                p.rndv.bulk_in.chunk_bytes() % r->fold.item == 0 && wanted % r->fold.item == 0;
    p.rndv.streaming_in.push_back(r);
  }
  queue_or_emit(p, source, Outgoing{Outgoing::Kind::kCts, nullptr, msg_id, wanted});
  if (wanted == 0) complete(r);
}

void Engine::on_rts(int source, const shm::CellHeader* cell) {
  std::size_t total = read_u64(cell);
  // Every kRts names the sender's buffer (emit_message); kFlagSolo says nothing else is in flight.
  const bool has_addr = cell->bytes >= 2 * sizeof(std::uint64_t);
  bool solo = (cell->flags & shm::kFlagSolo) != 0 && has_addr;
  std::uint64_t addr = has_addr ? read_u64_at(cell, sizeof(std::uint64_t)) : 0;
  bool busy = (cell->flags & shm::kFlagBusy) != 0;
  if (Request* r = posted_.match(cell->ctx, source, cell->tag)) {
    start_rndv_recv(r, source, cell->tag, cell->msg_id, total, solo, busy, addr);
    return;
  }
  auto u = std::make_unique<Unexpected>();
  u->kind = Unexpected::Kind::kRts;
  u->ctx = cell->ctx;
  u->source = source;
  u->tag = cell->tag;
  u->bytes = total;
  u->msg_id = cell->msg_id;
  u->solo = solo;
  u->busy = busy;
  u->addr = addr;
  unexpected_.add(std::move(u));
}

void Engine::on_cts(Peer& p, int source, const shm::CellHeader* cell) {
  auto it = p.rndv.awaiting.find(cell->msg_id);
  if (it == p.rndv.awaiting.end()) return;  // cannot happen with a well-behaved peer
  Request* r = it->second;
  if ((cell->flags & shm::kFlagSplit) != 0 && cell->bytes >= 3 * sizeof(std::uint64_t)) {
    // Write the tail; the send stays awaiting the receiver's plain kAck.
    std::size_t wanted = read_u64(cell);
    std::size_t split = read_u64_at(cell, 2 * sizeof(std::uint64_t));
    bool wrote = wanted <= r->bytes && split <= wanted &&
                 write_to_receiver(p, r, read_u64_at(cell, sizeof(std::uint64_t)), split, wanted);
    queue_or_emit(p, source, Outgoing{Outgoing::Kind::kSplitDone, nullptr, cell->msg_id, wrote ? 1U : 0U});
    return;
  }
  p.rndv.awaiting.erase(it);
  r->rndv_total = read_u64(cell);
  r->rndv_done = 0;
  if (r->rndv_total == 0) {
    complete(r);
  } else {
    warm_bulk(p, true);
    p.rndv.streaming_out.push_back(r);
  }
}

// A path channel's kData: the next chunk of the oldest cleared receive.
void Engine::on_data(Peer& p, const shm::CellHeader* cell) {
  if (p.rndv.streaming_in.empty()) return;
  Request* r = p.rndv.streaming_in.front();
  std::size_t n = cell->bytes;
  if (n > r->rndv_total - r->rndv_done) n = r->rndv_total - r->rndv_done;
  shm::copy_bulk(static_cast<char*>(r->buf) + r->rndv_done, reinterpret_cast<const char*>(cell + 1), n);
  r->rndv_done += n;
  if (r->rndv_done < r->rndv_total) return;
  p.rndv.streaming_in.pop_front();
  complete(r);
}

void Engine::warm_bulk(Peer& p, bool out) {
  // A page's first write fault is expensive under a hypervisor with shadow page tables (one fault
  // per page made the first pipelined 64 KiB messages of a pair far slower than later ones);
  // populating 512 KiB at once costs much less than those faults.
  bool& warm = out ? p.rndv.bulk_out_warm : p.rndv.bulk_in_warm;
  char* chunks = out ? p.rndv.bulk_out_chunks : p.rndv.bulk_in_chunks;
  if (warm || chunks == nullptr) return;
  warm = true;
  prefault(chunks, layout_.bulk_bytes());
}

bool Engine::pump_streams(Peer& p) {
  bool moved = false;
  while (!p.rndv.streaming_out.empty()) {
    Request* r = p.rndv.streaming_out.front();
    std::size_t n =
        p.rndv.bulk_out.push(static_cast<const char*>(r->buf) + r->rndv_done, r->rndv_total - r->rndv_done);
    if (n == 0) break;
    moved = true;
    r->rndv_done += n;
    if (r->rndv_done < r->rndv_total) break;
    p.rndv.streaming_out.pop_front();
    complete(r);
  }
  while (!p.rndv.streaming_in.empty()) {
    Request* r = p.rndv.streaming_in.front();
    std::size_t n = 0;
    if (r->folded) {
      const std::size_t base = r->rndv_done;
      n = p.rndv.bulk_in.consume(r->rndv_total - base,
                                 [r, base](const char* chunk, std::size_t at, std::size_t len) {
                                   r->fold.fn(r->fold.ctx, chunk, base + at, len);
                                 });
    } else {
      n = p.rndv.bulk_in.pop(static_cast<char*>(r->buf) + r->rndv_done, r->rndv_total - r->rndv_done,
                             r->rndv_total >= shm::kStreamingMin);
    }
    if (n == 0) break;
    moved = true;
    r->rndv_done += n;
    if (r->rndv_done < r->rndv_total) break;
    p.rndv.streaming_in.pop_front();
    complete(r);
  }
  return moved;
}

bool Engine::pump_path_streams(Peer& p) {
  bool moved = false;
  PathChannel& out = *p.path;
  while (!p.rndv.streaming_out.empty()) {
    Request* r = p.rndv.streaming_out.front();
    shm::CellHeader* cell = out.try_acquire();
    if (cell == nullptr) break;
    std::size_t n = r->rndv_total - r->rndv_done;
    if (n > out.chunk_capacity()) n = out.chunk_capacity();
    cell->kind = shm::CellKind::kData;
    cell->flags = 0;
    cell->ctx = 0;
    cell->tag = 0;
    cell->msg_id = 0;
    cell->bytes = std::uint32_t(n);
    shm::copy_bulk(reinterpret_cast<char*>(cell + 1), static_cast<const char*>(r->buf) + r->rndv_done, n);
    out.publish(cell);
    moved = true;
    r->rndv_done += n;
    if (r->rndv_done < r->rndv_total) continue;
    p.rndv.streaming_out.pop_front();
    complete(r);
  }
  return moved;
}

}  // namespace takyon::mpi
