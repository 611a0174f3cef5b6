// SPDX-License-Identifier: MIT
// The eager protocol: a message of up to a cell's payload travels in one cell with its envelope;
// matched when it is polled, else copied to the unexpected queue (the ring never waits for a
// receive). A synchronous send (kFlagSync) is answered with kAck when it matches. Also the blocking
// fast paths (try_send_eager_now, recv_eager_now) that skip requests for plain eager messages.
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

namespace {

/// recv_eager_now looks at the source's ring this many times between progress calls; a receive that
/// only an inline message fits (<= 40 bytes: the message is the cell's first line) kLooksInline
/// times. Found by timing, not explained: 128 looks make a ping-pong of inline messages clearly
/// faster (fewer looks help less, more help no further), but for larger messages (two lines or
/// more) they slow the ping-pong down, so larger receives keep 16.
constexpr int kLooks = 16;
constexpr int kLooksInline = 128;

}  // namespace

bool Engine::try_send_eager_now(int dest, int ctx, int tag, const void* buf, std::size_t bytes) {
  if (dest == rank_) return false;
  Peer& p = peers_[std::size_t(dest)];
  if (!p.pending.empty() || p.path || bytes > p.out.payload_capacity()) return false;
  shm::CellHeader* cell = p.out.try_acquire();
  if (cell == nullptr) return false;
  cell->kind = shm::CellKind::kEager;
  cell->flags = 0;
  cell->ctx = ctx;
  cell->tag = tag;
  cell->bytes = std::uint32_t(bytes);
  cell->msg_id = 0;  // no request, nothing can cancel it
  shm::copy_payload(cell + 1, buf, bytes);
  p.out.publish(cell);
  stream_hint(p, bytes);
  return true;
}

void Engine::deliver_eager(Request* r, int source, int tag, const char* data, std::size_t bytes) {
  std::size_t n = bytes;
  r->truncated = bytes > r->bytes;
  r->sent_bytes = bytes;
  if (r->truncated) n = r->bytes;
  shm::copy_payload(r->buf, data, n);
  r->status_source = source;
  r->status_tag = tag;
  r->status_bytes = n;
  r->recv_state = RecvState::kMatched;
  complete(r);
}

void Engine::on_eager(Peer& p, int source, const shm::CellHeader* cell) {
  const char* data = reinterpret_cast<const char*>(cell + 1);
  bool sync = (cell->flags & shm::kFlagSync) != 0;
  if (Request* r = posted_.match(cell->ctx, source, cell->tag)) {
    deliver_eager(r, source, cell->tag, data, cell->bytes);
    if (sync) queue_or_emit(p, source, Outgoing{Outgoing::Kind::kAck, nullptr, cell->msg_id, 0});
    return;
  }
  auto u = std::make_unique<Unexpected>();
  u->kind = Unexpected::Kind::kEager;
  u->ctx = cell->ctx;
  u->source = source;
  u->tag = cell->tag;
  u->bytes = cell->bytes;
  u->sync = sync;
  u->msg_id = cell->msg_id;
  if (cell->bytes != 0) {
    u->data = std::make_unique_for_overwrite<char[]>(cell->bytes);
    std::memcpy(u->data.get(), data, cell->bytes);
  }
  unexpected_.add(std::move(u));
}

int Engine::take_eager(Peer& p, int source, int ctx, int tag, void* buf, std::size_t capacity,
                       FastRecv& out) {
  const shm::CellHeader* cell = p.in.peek();
  if (cell == nullptr) return 0;
  if (cell->kind == shm::CellKind::kEager && cell->flags == 0 && cell->bytes <= capacity &&
      envelope_matches(ctx, kAnySource, tag, cell->ctx, source, cell->tag)) {
    shm::copy_payload(buf, cell + 1, cell->bytes);
    out.source = source;
    out.tag = cell->tag;
    out.bytes = cell->bytes;
    p.in.release();
    return 1;
  }
  handle_and_release(p.in, p, source, cell);
  return -1;
}

bool Engine::recv_eager_now(int ctx, int source, int tag, void* buf, std::size_t capacity, FastRecv& out) {
  // Earlier posted receives match first, and a queued message is the oldest match: general path.
  if (source == rank_ || posted_.size() != 0 || unexpected_.find(ctx, source, tag) != nullptr) return false;
  if (source != kAnySource && peers_[std::size_t(source)].path) return false;
  std::uint64_t seen = unexpected_.added();  // nothing queued up to here matches
  const int looks = capacity <= shm::kInlineBytes ? kLooksInline : kLooks;
  Backoff backoff;
  for (;;) {
    int got = 0;
    if (source != kAnySource) {
      // Look at the one ring a few times before the rest of progress: a ping-pong's reply lands here.
      Peer& p = peers_[std::size_t(source)];
      for (int look = 0; look < looks && got == 0; ++look)
        got = take_eager(p, source, ctx, tag, buf, capacity, out);
    } else {
      for (int s : remote_) {
        Peer& p = peers_[std::size_t(s)];
        if (p.path) continue;  // progress_except drains path channels
        got = take_eager(p, s, ctx, tag, buf, capacity, out);
        if (got != 0) break;
      }
    }
    if (got == 1) return true;
    // What was handled (or arrived on another channel) may be ours now, and only a request takes it.
    if (progress_except(source) || got < 0) {
      if (unexpected_.any_since(seen, ctx, source, tag)) return false;
      seen = unexpected_.added();
      backoff.reset();
    } else if (backoff.idle()) {
      check_peers();
    }
  }
}

}  // namespace takyon::mpi
