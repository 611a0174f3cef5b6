// SPDX-License-Identifier: MIT
// The point-to-point engine: construction, matching, the dispatch of arriving cells, progress and
// liveness (see engine.hpp). The protocols are eager.cpp, rendezvous.cpp and single_copy.cpp.
#include "pt2pt/engine_internal.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/knobs.hpp"

namespace takyon::mpi {

using namespace engine_detail;

namespace {

constexpr int kNoRank = -2;  ///< progress_except: skip no ring

/// Whether `ranks` processes can each run on a core of their own: this process's CPU affinity, or
/// the machine's online CPUs when a launcher bound this rank to fewer (--bind-to core gives each
/// rank its own, so one rank's mask says nothing about the others').
bool has_core_each(int ranks) {
  cpu_set_t set;
  CPU_ZERO(&set);
  int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return ranks <= allowed || (allowed < ranks && online > 0 && ranks <= online);
}

/// How process `pid`, which has exited, ended: "exited with code 9" or "was killed by signal 9
/// (Killed)", read from /proc while it is a zombie (its parent has not reaped it); once reaped only the
/// parent knows, and the text says so.
std::string how_it_ended(pid_t pid) {
  std::string unknown = "exited or was killed (its exit status went to its parent)";
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  std::FILE* f = std::fopen(path, "re");
  if (f == nullptr) return unknown;
  char line[1024];
  const bool got = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* p = got ? std::strrchr(line, ')') : nullptr;  // the command name may hold anything
  if (p == nullptr || p[1] != ' ' || p[2] != 'Z') return unknown;
  // After the name: field 3 (state) ... field 52 (exit_code, a wait status).
  const char* q = p + 2;
  for (int field = 3; field < 52 && q != nullptr; ++field) {
    q = std::strchr(q, ' ');
    if (q != nullptr) ++q;
  }
  if (q == nullptr) return unknown;
  const auto status = int(std::strtol(q, nullptr, 10));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigdescr_np(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name != nullptr ? std::string(" (") + name + ")" : "");
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

namespace engine_detail {

Tuning& tuning() {
  static Tuning t;
  return t;
}

void load_tuning() {
  using common::KnobId;
  const int cma = common::knob_choice(KnobId::kMpiCma);  // 1|0|readonly|split
  tuning() = Tuning{std::size_t(common::knob_integer(KnobId::kMpiCmaMax)),
                    std::size_t(common::knob_integer(KnobId::kMpiCmaSplitMin)),
                    std::size_t(common::knob_integer(KnobId::kMpiPrefaultMax)),
                    cma != 1,
                    cma != 2,
                    cma == 3};
}

void prefault(void* p, std::size_t bytes, std::size_t every) {
  const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE) != 0) return;  // fault later
#else
  return;
#endif
  if (every == 0) every = page;
  for (std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p); at < hi; at += every) {
    __atomic_fetch_add(reinterpret_cast<std::uint64_t*>(at & ~(page - 1)), std::uint64_t{0},
                       __ATOMIC_RELAXED);
  }
}

}  // namespace engine_detail

Engine::Engine(int rank, int size, const shm::InboxLayout& layout, std::vector<void*> inboxes,
               std::vector<int> pids)
    : rank_(rank), size_(size), layout_(layout), peers_(std::size_t(size)) {
  void* mine = inboxes[std::size_t(rank)];
  my_header_ = static_cast<shm::InboxHeader*>(mine);
  load_tuning();
  const bool cma = tuning().cma;
  // (Up to the flat area: the large flat buffers, FlatBig, are touched only when used.)
  if (mine != nullptr && layout.flat_big_offset() <= tuning().prefault_max) {
    prefault(layout.cells(mine, 0), std::size_t(size) * layout.ring_bytes(),  // every ring in this inbox
             layout.cell_bytes);
    // The flat collectives' lines and buffers (coll/flat.hpp, 264 KiB): written by this rank, but for
    // each slot's meet line, which the other member of a two-rank communicator writes too (the
    // atomic add of 0 loses no store of theirs).
    prefault(layout.flat(mine, 0), std::size_t(shm::kFlatSlots) * sizeof(shm::FlatArea));
  }
  oversubscribed_ = !has_core_each(size);
  cma_split_ = cma && (tuning().cma_split_forced || !oversubscribed_);
  cma_write_ = tuning().cma_write;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    remote_.push_back(r);
    Peer& p = peers_[std::size_t(r)];
    // Watched from now, while the peer is known alive (it joined the job), so a reused pid never
    // passes for it; pid 0 is a peer on another host, which only its path can tell about.
    p.live.watch = common::ProcessWatch(pids[std::size_t(r)]);
    void* theirs = inboxes[std::size_t(r)];
    if (theirs == nullptr) continue;  // a path channel (attach_path)
    p.out = shm::RingProducer(layout.cells(theirs, rank), layout.control(theirs, rank), layout.ncells,
                              layout.cell_bytes);
    p.in =
        shm::RingConsumer(layout.cells(mine, r), layout.control(mine, r), layout.ncells, layout.cell_bytes);
    p.rndv.bulk_out = shm::BulkProducer(layout.slots(theirs, rank), layout.chunks(theirs, rank),
                                        layout.nchunks, layout.chunk_bytes);
    p.rndv.bulk_in =
        shm::BulkConsumer(layout.slots(mine, r), layout.chunks(mine, r), layout.nchunks, layout.chunk_bytes);
    p.live.header = static_cast<const shm::InboxHeader*>(theirs);
    p.rndv.bulk_out_chunks = layout.chunks(theirs, rank);
    p.rndv.bulk_in_chunks = layout.chunks(mine, r);
    if (layout.flat_big_offset() <= tuning().prefault_max) {
      prefault(layout.cells(theirs, rank), layout.ring_bytes(),  // this rank's ring in the peer's inbox
               layout.cell_bytes);
    }
    p.copy.cma = cma && p.live.watch.pid() > 0;
  }
}

Engine::~Engine() {
  for (const Peer& p : peers_) {
    if (p.copy.heap != nullptr) munmap(p.copy.heap, p.copy.heap_bytes);
  }
}

void Engine::attach_path(int peer, std::unique_ptr<PathChannel> path) {
  peers_[std::size_t(peer)].path = std::move(path);
}

void Engine::destroy_paths() {
  for (int r : remote_) {
    if (peers_[std::size_t(r)].path) peers_[std::size_t(r)].path->destroy();
  }
}

void Engine::complete(Request* r) {
  if (r->cancel_asked) {  // a send whose cancel the receiver has not answered yet (cancel.cpp)
    r->cancel_done = true;
    return;
  }
  if (r->companion != nullptr && !settle_pair(r)) return;
  r->complete = true;
  if (r->freed) {
    if (on_freed_complete != nullptr) on_freed_complete(*r);
    r->active = false;
    pool_.release(r);
  }
}

bool Engine::settle_pair(Request* r) {
  Request* other = r->companion;
  if (r->kind == RequestKind::kSend) {  // the send half: done; the pair completes if the receive is
    r->complete = true;
    if (other->recv_done) complete(other);
    return false;
  }
  if (!other->complete) {  // the receive half, its send still in flight
    r->recv_done = true;
    return false;
  }
  r->companion = nullptr;
  r->recv_done = false;
  pool_.release(other);
  return true;
}

void Engine::free_request(Request* r) {
  if (r->complete || !r->active) {
    pool_.release(r);
  } else {
    r->freed = true;
  }
}

bool Engine::emit(Peer& p, int /*dest*/, const Outgoing& o) {
  return p.path ? emit_on(*p.path, p, o) : emit_on(p.out, p, o);
}

void Engine::queue_or_emit(Peer& p, int dest, const Outgoing& o) {
  if (!p.pending.empty() || !emit(p, dest, o)) p.pending.push_back(o);
}

void Engine::flush_pending(Peer& p, int dest) {
  while (!p.pending.empty() && emit(p, dest, p.pending.front())) p.pending.pop_front();
}

void Engine::start_send(Request* r) {
  r->active = true;
  r->complete = false;
  r->cancelled = false;
  if (r->null_proc) {
    complete(r);
    return;
  }
  if (r->peer == rank_) {
    send_to_self(r);
    return;
  }
  Peer& p = peers_[std::size_t(r->peer)];
  queue_or_emit(p, r->peer, Outgoing{Outgoing::Kind::kMessage, r, 0, 0});
}

void Engine::send_to_self(Request* r) {
  if (Request* recv = posted_.match(r->ctx, rank_, r->tag)) {
    deliver_eager(recv, rank_, r->tag, static_cast<const char*>(r->buf), r->bytes);
    complete(r);
    return;
  }
  auto u = std::make_unique<Unexpected>();
  u->kind = Unexpected::Kind::kEager;
  u->ctx = r->ctx;
  u->source = rank_;
  u->tag = r->tag;
  u->bytes = r->bytes;
  u->msg_id = r->msg_id = ++self_msg_id_;  // what cancel_send looks for
  if (r->bytes != 0) {
    u->data = std::make_unique_for_overwrite<char[]>(r->bytes);
    std::memcpy(u->data.get(), r->buf, r->bytes);
  }
  if (r->mode == SendMode::kSync) {
    u->self_sender = r;
  }
  unexpected_.add(std::move(u));
  if (r->mode != SendMode::kSync) complete(r);
}

void Engine::match_unexpected(Request* r, std::unique_ptr<Unexpected> u) {
  if (u->kind == Unexpected::Kind::kRts) {
    start_rndv_recv(r, u->source, u->tag, u->msg_id, u->bytes, u->solo, u->busy, u->addr);
    return;
  }
  deliver_eager(r, u->source, u->tag, u->data.get(), u->bytes);
  if (u->self_sender != nullptr) {
    complete(u->self_sender);
  } else if (u->sync) {
    Peer& p = peers_[std::size_t(u->source)];
    queue_or_emit(p, u->source, Outgoing{Outgoing::Kind::kAck, nullptr, u->msg_id, 0});
  }
}

void Engine::start_recv(Request* r) {
  mark_started(r);
  if (r->null_proc) {
    complete(r);
    return;
  }
  if (auto u = unexpected_.take(r->ctx, r->peer, r->tag)) {
    match_unexpected(r, std::move(u));
    return;
  }
  r->recv_state = RecvState::kPosted;
  posted_.post(r);
}

void Engine::start_matched_recv(Request* r, std::unique_ptr<Unexpected> u) {
  mark_started(r);
  match_unexpected(r, std::move(u));
}

bool Engine::holds_recv(const Peer& p, const Request* r) {
  for (const auto& [id, in] : p.copy.split_in) {
    if (in.req == r) return true;
  }
  return std::find(p.rndv.streaming_in.begin(), p.rndv.streaming_in.end(), r) != p.rndv.streaming_in.end();
}

void Engine::abandon_recv(Request* r) noexcept {
  if (!r->complete && r->recv_state == RecvState::kPosted) cancel_recv(r);
  const int source = r->status_source;
  const bool remote = source >= 0 && source < size_ && source != rank_;
  if (!r->complete && r->recv_state == RecvState::kMatched && remote) {
    Peer& p = peers_[std::size_t(source)];
    // Every channel (progress_channels: no collective advances from inside a schedule's
    // destructor): the sender may itself be abandoning a receive from a third rank and need this
    // rank's channel to it to move (a ring of survivors after a death would otherwise wait on each
    // other for ever); a dead peer's ring just has nothing new.
    Backoff backoff;
    int failures = 0;
    while (!r->complete && holds_recv(p, r)) {
      bool moved = false;
      try {
        moved = progress_channels();
        failures = 0;
      } catch (...) {
        // A path's error comes again at every poll; a ring's cell that failed (a refused copy) is
        // consumed, so the loop looks again, a bounded number of times in a row.
        if (p.path || ++failures > 64) break;
        moved = true;
      }
      if (moved) {
        backoff.reset();
      } else if (backoff.idle() && peer_gone(source)) {
        break;
      }
    }
    if (!r->complete) {  // the sender is gone: nothing may write into r->buf on its behalf later
      for (auto it = p.copy.split_in.begin(); it != p.copy.split_in.end();) {
        it = it->second.req == r ? p.copy.split_in.erase(it) : std::next(it);
      }
      std::erase(p.rndv.streaming_in, r);
    }
  }
  r->recv_state = RecvState::kIdle;
  r->active = false;
  pool_.release(r);
}

bool Engine::cancel_recv(Request* r) {
  if (r->recv_state != RecvState::kPosted || !posted_.remove(r)) return false;
  r->recv_state = RecvState::kIdle;
  r->cancelled = true;
  r->status_bytes = 0;
  complete(r);
  return true;
}

bool Engine::probe(int ctx, int source, int tag, ProbeResult& out) {
  const Unexpected* u = unexpected_.find(ctx, source, tag);
  if (u == nullptr) return false;
  out.source = u->source;
  out.tag = u->tag;
  out.bytes = u->bytes;
  return true;
}

void Engine::handle_cell(Peer& p, int source, const shm::CellHeader* cell) {
  switch (cell->kind) {
    case shm::CellKind::kEager:
      on_eager(p, source, cell);  // eager.cpp
      return;
    case shm::CellKind::kRts:
      on_rts(source, cell);  // rendezvous.cpp
      return;
    case shm::CellKind::kCts:
      on_cts(p, source, cell);  // rendezvous.cpp
      return;
    case shm::CellKind::kAck:
      on_ack(p, source, cell);
      return;
    case shm::CellKind::kData:
      on_data(p, cell);  // rendezvous.cpp
      return;
    case shm::CellKind::kCancel:
      on_cancel(p, source, cell);  // cancel.cpp
      return;
    case shm::CellKind::kCancelAnswer:
      on_cancel_answer(p, cell);  // cancel.cpp
      return;
  }
}

void Engine::on_ack(Peer& p, int source, const shm::CellHeader* cell) {
  if ((cell->flags & shm::kFlagSplit) != 0) {  // the sender's answer to a split kCts
    finish_split_recv(p, source, cell->msg_id, read_u64(cell) != 0);
    return;
  }
  auto it = p.rndv.awaiting.find(cell->msg_id);
  if (it == p.rndv.awaiting.end()) return;
  Request* r = it->second;
  p.rndv.awaiting.erase(it);
  complete(r);
}

bool Engine::progress() {
  return progress_except(kNoRank);
}

bool Engine::progress_channels() {
  struct Restore {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
    Engine& e;
    bool (*hook)();
    ~Restore() { e.after_progress = hook; }
  } restore{*this, after_progress};
  after_progress = nullptr;
  return progress_except(kNoRank);
}

bool Engine::progress_peer(Peer& p, int source, bool drain_ring) {
  if (p.path) return progress_path(p, source);
  bool moved = false;
  if (drain_ring) {
    while (const shm::CellHeader* cell = p.in.peek()) {
      handle_and_release(p.in, p, source, cell);
      moved = true;
    }
  }
  if (!p.pending.empty()) {
    std::size_t before = p.pending.size();
    flush_pending(p, source);
    moved = moved || p.pending.size() != before;
  }
  if (!p.rndv.streaming_out.empty() || !p.rndv.streaming_in.empty()) moved = pump_streams(p) || moved;
  return moved;
}

bool Engine::progress_except(int skip_ring) {
  bool moved = false;
  for (int source : remote_) {
    const bool drain = skip_ring != source && skip_ring != kAnySource;
    moved = progress_peer(peers_[std::size_t(source)], source, drain) || moved;
  }
  if (after_progress != nullptr) moved = after_progress() || moved;
  return moved;
}

bool Engine::progress_path(Peer& p, int source) {
  bool moved = false;
  PathChannel& path = *p.path;
  while (const shm::CellHeader* cell = path.peek()) {
    handle_and_release(path, p, source, cell);
    moved = true;
  }
  if (!p.pending.empty()) {
    std::size_t before = p.pending.size();
    flush_pending(p, source);
    moved = moved || p.pending.size() != before;
  }
  if (!p.rndv.streaming_out.empty()) moved = pump_path_streams(p) || moved;
  return path.service() || moved;
}

bool Engine::exited(const Peer& p) {
  return p.live.watch.exited();
}

bool Engine::peer_gone(int world_rank) const noexcept {
  if (world_rank < 0 || world_rank >= size_ || world_rank == rank_) return false;
  const Peer& p = peers_[std::size_t(world_rank)];
  if (p.live.header != nullptr && p.live.header->finalized.load(std::memory_order_acquire) != 0) return true;
  return exited(p);
}

void Engine::check_peers() const {
  for (int r : remote_) {
    const Peer& p = peers_[std::size_t(r)];
    // A path peer reaches MPI_Finalize's barrier alive; its path reports a disconnect on its own.
    if (p.live.header != nullptr && p.live.header->finalized.load(std::memory_order_acquire) != 0) continue;
    if (p.live.watch.pid() <= 0) continue;  // another host: only its path can tell
    if (exited(p)) {
      const pid_t pid = p.live.watch.pid();
      throw PeerFailure("rank " + std::to_string(r) + " (pid " + std::to_string(pid) + ") " +
                        how_it_ended(pid) + " without calling MPI_Finalize");
    }
  }
}

bool Engine::has_pending_output() const {
  for (int r : remote_) {
    if (!peers_[std::size_t(r)].pending.empty()) return true;
  }
  return false;
}

void Engine::mark_finalized() {
  if (my_header_ != nullptr) my_header_->finalized.store(1, std::memory_order_release);
}

}  // namespace takyon::mpi
