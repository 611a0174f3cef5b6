// SPDX-License-Identifier: MIT
// The point-to-point engine: protocols, matching glue and progress (see engine.hpp).
#include "pt2pt/engine.hpp"

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
#include <type_traits>

#include "common/knobs.hpp"

namespace takyon::mpi {
namespace {

constexpr int kNoRank = -2;  ///< progress_except: skip no ring
/// recv_eager_now looks at the source's ring this many times between progress calls; a receive that
/// only an inline message fits (<= 40 bytes: the message is the cell's first line) kLooksInline times.
/// Measured, not explained: 128 looks take an 8-32 B ping-pong hop from 0.155-0.16 to 0.115-0.12 us
/// (32 looks 0.14, 64 looks 0.127, 512 no better), but for 64-512 B messages (two lines or more) they
/// cost 10-20% (64 B 0.210 -> 0.247 us), so larger receives keep 16 (alternated takyon-bench-mpi runs).
constexpr int kLooks = 16;
constexpr int kLooksInline = 128;
/// The receiver reads this much first (its proof that CMA works before the sender is asked to write).
constexpr std::size_t kCmaProbeBytes = 4096;

/// The engine's knobs (common/knobs.hpp: what each does and why its default), read by each Engine's
/// constructor (MPI_Init has checked their values).
struct Tuning {
  std::size_t cma_max_bytes = 0;  ///< lone messages up to this size: a single copy; larger: the pipeline
  std::size_t cma_split_min = 0;  ///< single copies from this size on are split between the two ranks
  std::size_t prefault_max = 0;   ///< inboxes up to this size are prefaulted at MPI_Init (prefault())
  bool cma = true;                ///< TAKYON_MPI_CMA != 0
  bool cma_write = true;          ///< not TAKYON_MPI_CMA=readonly (then process_vm_writev counts as refused)
  bool cma_split_forced = false;  ///< TAKYON_MPI_CMA=split: split even with more ranks than cores
};

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

std::uint64_t read_u64(const shm::CellHeader* cell) {
  std::uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const char*>(cell + 1), sizeof v);
  return v;
}

void write_u64(shm::CellHeader* cell, std::uint64_t v, std::size_t at = 0) {
  std::memcpy(reinterpret_cast<char*>(cell + 1) + at, &v, sizeof v);
}

std::uint64_t read_u64_at(const shm::CellHeader* cell, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const char*>(cell + 1) + at, sizeof v);
  return v;
}

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

/// Maps [p, p + bytes) of an inbox writable now (pages allocated, page tables filled), so that the
/// first messages through it take no page faults; a kernel without MADV_POPULATE_WRITE faults later.
/// Then writes, from this CPU, the page holding every `every`-th byte (a ring: each cell's header;
/// else every page), with an atomic add of 0 (peers may be using the memory already; the value never
/// changes): on a hypervisor with shadow page tables (the AMD EPYC VM: PVM) a populated page still
/// costs an exit, ~3 us, on its first access from each process, which made the first 32 lone 1 MiB
/// messages of a pair 90-135 us instead of ~40 (each took two fresh ring cells each way). Touching
/// the cells' header pages moves that to MPI_Init: ~0.2 ms per ring.
void prefault(void* p, std::size_t bytes, std::size_t every = 0) {
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

/// A process that has exited but not been reaped yet still answers kill(pid, 0).
bool is_zombie(int pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char buf[256] = {};
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const char* close_paren = std::strrchr(buf, ')');  // "pid (comm) S ..."
  return n > 0 && close_paren != nullptr && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/// A receive request's state as it starts (start_recv, start_matched_recv).
void mark_started(Request* r) {
  r->active = true;
  r->complete = false;
  r->cancelled = false;
  r->truncated = false;
}

}  // namespace

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
    p.pid = pids[std::size_t(r)];
#ifdef SYS_pidfd_open
    // Opened now, while the peer is known alive (it joined the job): the fd keeps naming that process
    // after its pid is reused. A rank that died already gives ESRCH: the pid checks find it gone.
    if (p.pid > 0) p.pidfd = int(syscall(SYS_pidfd_open, p.pid, 0));
#endif
    void* theirs = inboxes[std::size_t(r)];
    if (theirs == nullptr) continue;  // a path channel (attach_path)
    p.out = shm::RingProducer(layout.cells(theirs, rank), layout.control(theirs, rank), layout.ncells,
                              layout.cell_bytes);
    p.in =
        shm::RingConsumer(layout.cells(mine, r), layout.control(mine, r), layout.ncells, layout.cell_bytes);
    p.bulk_out = shm::BulkProducer(layout.slots(theirs, rank), layout.chunks(theirs, rank), layout.nchunks,
                                   layout.chunk_bytes);
    p.bulk_in =
        shm::BulkConsumer(layout.slots(mine, r), layout.chunks(mine, r), layout.nchunks, layout.chunk_bytes);
    p.header = static_cast<const shm::InboxHeader*>(theirs);
    p.bulk_out_chunks = layout.chunks(theirs, rank);
    p.bulk_in_chunks = layout.chunks(mine, r);
    if (layout.flat_big_offset() <= tuning().prefault_max) {
      prefault(layout.cells(theirs, rank), layout.ring_bytes(),  // this rank's ring in the peer's inbox
               layout.cell_bytes);
    }
    p.cma = cma && p.pid > 0;
  }
}

void Engine::warm_bulk(Peer& p, bool out) {
  // A page's first write fault costs ~20 us on the AMD EPYC VM (the first 4 pipelined 64 KiB messages
  // of a pair took 300-480 us each, one fault per page); populating 512 KiB at once ~0.25 ms.
  bool& warm = out ? p.bulk_out_warm : p.bulk_in_warm;
  char* chunks = out ? p.bulk_out_chunks : p.bulk_in_chunks;
  if (warm || chunks == nullptr) return;
  warm = true;
  prefault(chunks, layout_.bulk_bytes());
}

Engine::~Engine() {
  for (const Peer& p : peers_) {
    if (p.pidfd >= 0) close(p.pidfd);
    if (p.heap != nullptr) munmap(p.heap, p.heap_bytes);
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
  r->complete = true;
  if (r->freed) {
    if (on_freed_complete != nullptr) on_freed_complete(*r);
    r->active = false;
    pool_.release(r);
  }
}

void Engine::free_request(Request* r) {
  if (r->complete || !r->active) {
    pool_.release(r);
  } else {
    r->freed = true;
  }
}

// ---------------------------------------------------------------------------------------------
// Sending

template <class Chan>
bool Engine::emit_message(Chan& out, Peer& p, Request* r) {
  shm::CellHeader* cell = out.try_acquire();
  if (cell == nullptr) return false;
  cell->ctx = r->ctx;
  cell->tag = r->tag;
  cell->flags = 0;
  if (r->bytes <= out.payload_capacity()) {
    cell->kind = shm::CellKind::kEager;
    cell->bytes = std::uint32_t(r->bytes);
    shm::copy_payload(cell + 1, r->buf, r->bytes);
    if (r->mode == SendMode::kSync) {
      cell->flags = shm::kFlagSync;
      cell->msg_id = p.next_msg_id++;
      p.awaiting.emplace(cell->msg_id, r);
      out.publish(cell);
    } else {
      out.publish(cell);
      if constexpr (std::is_same_v<Chan, shm::RingProducer>) stream_hint(p);
      complete(r);
    }
  } else {
    cell->kind = shm::CellKind::kRts;
    cell->bytes = 2 * sizeof(std::uint64_t);
    cell->msg_id = p.next_msg_id++;
    write_u64(cell, r->bytes);
    write_u64(cell, reinterpret_cast<std::uintptr_t>(r->buf), sizeof(std::uint64_t));
    if (!p.path && p.awaiting.empty() && p.streaming_out.empty()) {
      cell->flags = r->local_work ? shm::kFlagSolo | shm::kFlagBusy : shm::kFlagSolo;
    }
    p.awaiting.emplace(cell->msg_id, r);
    out.publish(cell);
  }
  return true;
}

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
  shm::copy_payload(cell + 1, buf, bytes);
  p.out.publish(cell);
  stream_hint(p);
  return true;
}

bool Engine::emit(Peer& p, int /*dest*/, const Outgoing& o) {
  return p.path ? emit_on(*p.path, p, o) : emit_on(p.out, p, o);
}

template <class Chan>
bool Engine::emit_on(Chan& out, Peer& p, const Outgoing& o) {
  if (o.kind == Outgoing::Kind::kMessage) return emit_message(out, p, o.req);
  shm::CellHeader* cell = out.try_acquire();
  if (cell == nullptr) return false;
  const bool cts = o.kind == Outgoing::Kind::kCts || o.kind == Outgoing::Kind::kSplitCts;
  cell->kind = cts ? shm::CellKind::kCts : shm::CellKind::kAck;
  const bool split = o.kind == Outgoing::Kind::kSplitCts || o.kind == Outgoing::Kind::kSplitDone;
  cell->flags = split ? shm::kFlagSplit : 0;
  cell->ctx = 0;
  cell->tag = 0;
  cell->msg_id = o.msg_id;
  cell->bytes = sizeof(std::uint64_t);
  write_u64(cell, o.bytes);
  if (o.kind == Outgoing::Kind::kSplitCts) {
    cell->bytes = 3 * sizeof(std::uint64_t);
    write_u64(cell, o.addr, sizeof(std::uint64_t));
    write_u64(cell, o.split, 2 * sizeof(std::uint64_t));
  }
  out.publish(cell);
  return true;
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

// ---------------------------------------------------------------------------------------------
// Receiving

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

void Engine::map_peer_heap(Peer& p) {
  p.heap_tried = true;
  if (p.header == nullptr || p.header->heap_bytes == 0 || p.pidfd < 0) return;
    // Through the pidfd only (the kernel's ptrace check, as for CMA): /proc/<pid>/fd could name another
    // process's file once the pid is reused.
#ifdef SYS_pidfd_getfd
  const int fd = int(syscall(SYS_pidfd_getfd, p.pidfd, p.header->heap_fd, 0));
#else
  const int fd = -1;  // headers older than Linux 5.6: CMA only
#endif
  if (fd < 0) return;
  struct stat st {};
  void* m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && std::uint64_t(st.st_size) == p.header->heap_bytes) {
    m = mmap(nullptr, p.header->heap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  }
  close(fd);
  if (m == MAP_FAILED) return;                      // CMA, as without a heap
  madvise(m, p.header->heap_bytes, MADV_DONTDUMP);  // the peer's memory, not this rank's
  p.heap = static_cast<char*>(m);
  p.heap_base = p.header->heap_base;
  p.heap_bytes = p.header->heap_bytes;
}

char* Engine::heap_view(Peer& p, std::uint64_t addr, std::size_t bytes) {
  if (!p.heap_tried) map_peer_heap(p);
  const std::uint64_t off = addr - p.heap_base;  // wraps (huge) below the base
  if (p.heap == nullptr || off > p.heap_bytes || bytes > p.heap_bytes - off) return nullptr;
  return p.heap + off;
}

bool Engine::read_range(Peer& p, Request* r, std::uint64_t addr, std::size_t from, std::size_t to) {
  if (const char* src = heap_view(p, addr + from, to - from)) {
    // The same pages the sender wrote: no pid involved, so no check for its reuse either.
    shm::copy_bulk(static_cast<char*>(r->buf) + from, src, to - from);
    heap_copied_bytes_ += to - from;
    return true;
  }
  std::size_t done = from;
  while (done < to) {
    iovec local{static_cast<char*>(r->buf) + done, to - done};
    iovec remote{reinterpret_cast<void*>(std::uintptr_t(addr + done)), to - done};
    ssize_t n = process_vm_readv(p.pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      // Not permitted here (seccomp, ptrace rules), or no such memory: the pipeline, for good.
      // Whatever was read is overwritten by the pipeline's copy.
      p.cma = false;
      return false;
    }
    done += std::size_t(n);
  }
  // A sender that exited meanwhile may have had its pid reused: what was read may be another
  // process's memory. One poll per large message (not after the split's first-page probe).
  if (r->rndv_total >= tuning().cma_split_min && to > kCmaProbeBytes && p.pidfd >= 0 && exited(p)) {
    p.cma = false;
    return false;
  }
  return true;
}

bool Engine::read_from_sender(Peer& p, Request* r, std::uint64_t addr, std::size_t bytes) {
  return read_range(p, r, addr, 0, bytes);
}

bool Engine::write_to_receiver(Peer& p, const Request* r, std::uint64_t addr, std::size_t split,
                               std::size_t bytes) {
  if (!cma_write_) return false;
  // A receiver that exited may have had its pid reused: never write into whatever process has it now
  // (refused: the kSplitDone says so; a dead receiver reads nothing anyway).
  if (p.pidfd >= 0 && exited(p)) return false;
  if (char* dst = heap_view(p, addr + split, bytes - split)) {
    shm::copy_bulk(dst, static_cast<const char*>(r->buf) + split, bytes - split);
    heap_copied_bytes_ += bytes - split;
    return true;
  }
  std::size_t done = split;
  while (done < bytes) {
    iovec local{static_cast<char*>(r->buf) + done, bytes - done};
    iovec remote{reinterpret_cast<void*>(std::uintptr_t(addr + done)), bytes - done};
    ssize_t n = process_vm_writev(p.pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;  // the receiver reads the tail itself (what was written it overwrites alike)
    }
    done += std::size_t(n);
  }
  return true;
}

void Engine::cma_failed(int peer, const char* what) const {
  const int err = errno;
  check_peers();  // a peer that died meanwhile is the better message
  throw PeerFailure(std::string(what) + " of rank " + std::to_string(peer) + "'s memory failed (" +
                    std::strerror(err) + ") after it had worked on the same message");
}

void Engine::finish_split_recv(Peer& p, int source, std::uint32_t msg_id, bool wrote) {
  auto it = p.split_in.find(msg_id);
  if (it == p.split_in.end()) return;  // cannot happen with a well-behaved peer
  Request* r = it->second.req;
  const std::uint64_t addr = it->second.addr;
  p.split_in.erase(it);
  // The sender was refused: the tail too is read from its memory (the send is still waiting).
  if (!wrote && !read_range(p, r, addr, r->rndv_done, r->rndv_total)) {
    cma_failed(source, "process_vm_readv");
  }
  queue_or_emit(p, source, Outgoing{Outgoing::Kind::kAck, nullptr, msg_id, 0});
  complete(r);
}

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
  // Past tuning().cma_max_bytes the pipeline's two cores beat CMA, but not a memcpy out of the sender's
  // shared heap (ping-pong, AMD EPYC VM: 2 MiB 85 us through the pipeline, 1 MiB 16 us out of the heap).
  auto single_size = [&] {
    return wanted <= tuning().cma_max_bytes || heap_view(p, addr, wanted) != nullptr;
  };
  if (solo && !r->pipelined && cma_split_ && p.cma && !p.path && wanted >= tuning().cma_split_min &&
      single_size() && p.streaming_in.empty() && read_range(p, r, addr, 0, kCmaProbeBytes)) {
    // Split: the head (whole pages) here, the tail by the sender, at once. The head is half; a
    // quarter when only this rank has local work of its own to do meanwhile (r->local_work: gather's
    // root), three quarters when only the sender has (kFlagBusy: scatter's root); only the probe when
    // this rank is sending to that peer too (an exchange: each rank writes its own data over, which
    // beats each reading the other's -- np 2, 1 MiB allgather 115 vs 150 us; gather: 57 us with a
    // quarter, 66-72 with none or half; bcast and reduce best with half).
    std::size_t split = kCmaProbeBytes;  // the sender copies the rest
    if (p.awaiting.empty()) {
      std::size_t head = wanted / 2;
      if (r->local_work && !sender_busy) head = wanted / 4;
      if (sender_busy && !r->local_work) head = wanted / 4 * 3;
      split = std::max(kCmaProbeBytes, (head + kCmaProbeBytes - 1) & ~(kCmaProbeBytes - 1));
    }
    r->rndv_done = split;
    p.split_in.emplace(msg_id, Peer::SplitIn{r, addr});
    Outgoing cts{Outgoing::Kind::kSplitCts, nullptr, msg_id, wanted};
    cts.addr = reinterpret_cast<std::uintptr_t>(r->buf);
    cts.split = split;
    queue_or_emit(p, source, cts);
    if (!read_range(p, r, addr, kCmaProbeBytes, split)) cma_failed(source, "process_vm_readv");
    return;
  }
  // A root receiving from several ranks at once on a node with more ranks than cores takes the
  // pipeline: its senders copy half of the work (np 4 on 2 cores, 64 KiB gather 8.9-10 us against
  // 10.7-11.8 reading all three alone).
  const bool fan_in = r->fan_in && oversubscribed_;
  if (solo && !r->pipelined && p.cma && !p.path && !fan_in && wanted != 0 && single_size() &&
      p.streaming_in.empty() && read_from_sender(p, r, addr, wanted)) {
    queue_or_emit(p, source, Outgoing{Outgoing::Kind::kAck, nullptr, msg_id, 0});
    complete(r);
    return;
  }
  if (wanted != 0) {
    warm_bulk(p, false);
    // Folded chunk by chunk only where every chunk holds whole items (the shm pipeline; a path
    // channel's frames are copied).
    r->folded = r->fold.fn != nullptr && !p.path && r->fold.item != 0 &&
                p.bulk_in.chunk_bytes() % r->fold.item == 0 && wanted % r->fold.item == 0;
    p.streaming_in.push_back(r);
  }
  queue_or_emit(p, source, Outgoing{Outgoing::Kind::kCts, nullptr, msg_id, wanted});
  if (wanted == 0) complete(r);
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
  for (const auto& [id, in] : p.split_in) {
    if (in.req == r) return true;
  }
  return std::find(p.streaming_in.begin(), p.streaming_in.end(), r) != p.streaming_in.end();
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
      for (auto it = p.split_in.begin(); it != p.split_in.end();) {
        it = it->second.req == r ? p.split_in.erase(it) : std::next(it);
      }
      std::erase(p.streaming_in, r);
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

template <class Chan>
void Engine::handle_and_release(Chan& chan, Peer& p, int source, const shm::CellHeader* cell) {
  // Released even when handling throws (a PeerFailure out of a rendezvous copy): a cell left in the
  // channel would be handled again at the next progress, and an RTS matched to a second receive.
  struct Release {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
    Chan& chan;
    ~Release() { chan.release(); }
  } release{chan};
  handle_cell(p, source, cell);
}

void Engine::handle_cell(Peer& p, int source, const shm::CellHeader* cell) {
  switch (cell->kind) {
    case shm::CellKind::kEager: {
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
      return;
    }
    case shm::CellKind::kRts: {
      std::size_t total = read_u64(cell);
      bool solo = (cell->flags & shm::kFlagSolo) != 0 && cell->bytes >= 2 * sizeof(std::uint64_t);
      std::uint64_t addr = solo ? read_u64_at(cell, sizeof(std::uint64_t)) : 0;
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
      return;
    }
    case shm::CellKind::kCts: {
      auto it = p.awaiting.find(cell->msg_id);
      if (it == p.awaiting.end()) return;  // cannot happen with a well-behaved peer
      Request* r = it->second;
      if ((cell->flags & shm::kFlagSplit) != 0 && cell->bytes >= 3 * sizeof(std::uint64_t)) {
        // Write the tail; the send stays awaiting the receiver's plain kAck.
        std::size_t wanted = read_u64(cell);
        std::size_t split = read_u64_at(cell, 2 * sizeof(std::uint64_t));
        bool wrote = wanted <= r->bytes && split <= wanted &&
                     write_to_receiver(p, r, read_u64_at(cell, sizeof(std::uint64_t)), split, wanted);
        queue_or_emit(p, source,
                      Outgoing{Outgoing::Kind::kSplitDone, nullptr, cell->msg_id, wrote ? 1U : 0U});
        return;
      }
      p.awaiting.erase(it);
      r->rndv_total = read_u64(cell);
      r->rndv_done = 0;
      if (r->rndv_total == 0) {
        complete(r);
      } else {
        warm_bulk(p, true);
        p.streaming_out.push_back(r);
      }
      return;
    }
    case shm::CellKind::kAck: {
      if ((cell->flags & shm::kFlagSplit) != 0) {  // the sender's answer to a split kCts
        finish_split_recv(p, source, cell->msg_id, read_u64(cell) != 0);
        return;
      }
      auto it = p.awaiting.find(cell->msg_id);
      if (it == p.awaiting.end()) return;
      Request* r = it->second;
      p.awaiting.erase(it);
      complete(r);
      return;
    }
    case shm::CellKind::kData: {  // path channels: the next chunk of the oldest cleared receive
      if (p.streaming_in.empty()) return;
      Request* r = p.streaming_in.front();
      std::size_t n = cell->bytes;
      if (n > r->rndv_total - r->rndv_done) n = r->rndv_total - r->rndv_done;
      shm::copy_bulk(static_cast<char*>(r->buf) + r->rndv_done, reinterpret_cast<const char*>(cell + 1), n);
      r->rndv_done += n;
      if (r->rndv_done < r->rndv_total) return;
      p.streaming_in.pop_front();
      complete(r);
      return;
    }
  }
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

// ---------------------------------------------------------------------------------------------
// Progress

bool Engine::pump_streams(Peer& p) {
  bool moved = false;
  while (!p.streaming_out.empty()) {
    Request* r = p.streaming_out.front();
    std::size_t n =
        p.bulk_out.push(static_cast<const char*>(r->buf) + r->rndv_done, r->rndv_total - r->rndv_done);
    if (n == 0) break;
    moved = true;
    r->rndv_done += n;
    if (r->rndv_done < r->rndv_total) break;
    p.streaming_out.pop_front();
    complete(r);
  }
  while (!p.streaming_in.empty()) {
    Request* r = p.streaming_in.front();
    std::size_t n = 0;
    if (r->folded) {
      const std::size_t base = r->rndv_done;
      n = p.bulk_in.consume(r->rndv_total - base,
                            [r, base](const char* chunk, std::size_t at, std::size_t len) {
                              r->fold.fn(r->fold.ctx, chunk, base + at, len);
                            });
    } else {
      n = p.bulk_in.pop(static_cast<char*>(r->buf) + r->rndv_done, r->rndv_total - r->rndv_done,
                        r->rndv_total >= shm::kStreamingMin);
    }
    if (n == 0) break;
    moved = true;
    r->rndv_done += n;
    if (r->rndv_done < r->rndv_total) break;
    p.streaming_in.pop_front();
    complete(r);
  }
  return moved;
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
  if (!p.streaming_out.empty() || !p.streaming_in.empty()) moved = pump_streams(p) || moved;
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

bool Engine::pump_path_streams(Peer& p) {
  bool moved = false;
  PathChannel& out = *p.path;
  while (!p.streaming_out.empty()) {
    Request* r = p.streaming_out.front();
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
    p.streaming_out.pop_front();
    complete(r);
  }
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
  if (!p.streaming_out.empty()) moved = pump_path_streams(p) || moved;
  return path.service() || moved;
}

// ---------------------------------------------------------------------------------------------
// Liveness

bool Engine::exited(const Peer& p) {
  if (p.pidfd >= 0) {
    pollfd fd{p.pidfd, POLLIN, 0};
    return poll(&fd, 1, 0) > 0;  // readable (POLLIN) once the process exited
  }
  return (kill(p.pid, 0) != 0 && errno == ESRCH) || is_zombie(p.pid);
}

bool Engine::peer_gone(int world_rank) const noexcept {
  if (world_rank < 0 || world_rank >= size_ || world_rank == rank_) return false;
  const Peer& p = peers_[std::size_t(world_rank)];
  if (p.header != nullptr && p.header->finalized.load(std::memory_order_acquire) != 0) return true;
  return p.pid > 0 && exited(p);
}

void Engine::check_peers() const {
  for (int r : remote_) {
    const Peer& p = peers_[std::size_t(r)];
    // A path peer reaches MPI_Finalize's barrier alive; its path reports a disconnect on its own.
    if (p.header != nullptr && p.header->finalized.load(std::memory_order_acquire) != 0) continue;
    if (p.pid <= 0) continue;  // another host: only its path can tell
    if (exited(p)) {
      throw PeerFailure("rank " + std::to_string(r) + " (pid " + std::to_string(p.pid) +
                        ") exited without calling MPI_Finalize");
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
