// SPDX-License-Identifier: MIT
// Flat node-local collectives through the inboxes' shared lines (see flat.hpp).
#include "coll/flat.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "coll/schedule.hpp"
#include "errors.hpp"
#include "op/op.hpp"
#include "pt2pt/backoff.hpp"
#include "runtime.hpp"
#include "shm/copy.hpp"
#include "shm/layout.hpp"

namespace takyon::mpi::flat {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// What a member published for one epoch in its control line, copied out the moment its "entered"
/// was seen. Read later, the line is often gone: the member, already in its next epoch, writes the
/// other half of the same line, and the reader's load misses again (in a small two-rank allreduce
/// that second miss takes a sizeable share of the time).
struct Seen {
  std::uint32_t bytes = 0;
  std::uint32_t epoch = 0;
  std::uint32_t what = 0;
  alignas(16) char inline_data[shm::kFlatInline];
};

/// The collectives that publish data, as published in FlatControl::what with their root (readers
/// check both: ranks that call different collectives, or one whose earlier collective failed on
/// some ranks only, get an error instead of another collective's data).
enum class Kind : std::uint32_t { kBcast = 1, kReduce, kAllreduce, kGather, kScatter, kAllgather, kAlltoall };

constexpr std::uint32_t what_of(Kind k, int root) {
  return std::uint32_t(k) | std::uint32_t(root) << 8;
}

std::string describe(std::uint32_t what) {
  static const char* const names[] = {"?",          "MPI_Bcast",   "MPI_Reduce",    "MPI_Allreduce",
                                      "MPI_Gather", "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall"};
  const std::uint32_t k = what & 0xff;
  const auto kind = Kind(k);
  std::string name = k < std::size(names) ? names[k] : "?";
  if (kind == Kind::kBcast || kind == Kind::kReduce || kind == Kind::kGather || kind == Kind::kScatter) {
    name += " with root " + std::to_string(what >> 8);
  }
  return name;
}

/// What this rank knows of the communicator running flat collectives in one slot.
struct SlotState {
  const CommInfo* comm = nullptr;
  int rank = 0;
  int size = 0;
  std::uint64_t epoch = 0;                      ///< flat collectives run on `comm` so far
  std::uint64_t all_entered = 0;                ///< every member is known to have entered this epoch
  std::uint64_t published[2] = {0, 0};          ///< the epoch this rank last wrote buffer b in (0: never)
  std::vector<shm::FlatArea*> areas;            ///< each member's area of the slot, by rank
  std::vector<shm::FlatBig*> big;               ///< each member's larger buffers (slots below kFlatBigSlots)
  std::vector<std::uint64_t> base;              ///< each member's sequence value at the first flat collective
  std::vector<Seen> seen;                       ///< reduce: what each member published (wait_seen)
  std::vector<std::atomic<std::int32_t>*> cpu;  ///< each member's InboxHeader::cpu (barrier())
  // Two-rank barriers (meet()): this rank's and the peer's word of rank 0's meet line, and the tags
  // (world rank + 1, in the high half) each writes.
  std::atomic<std::uint64_t>* meet_mine = nullptr;
  const std::atomic<std::uint64_t>* meet_peer = nullptr;
  std::uint64_t meet_tag = 0;
  std::uint64_t meet_peer_tag = 0;
  std::uint32_t meets = 0;  ///< two-rank barriers run so far (the low half of this rank's word)
};

std::array<SlotState, shm::kFlatSlots> g_slots;  // constant-initialized: no guard on the fast path

/// A member of a freed communicator that may still read this rank's buffers of its slot: done once
/// its control line reaches `until` (it announced, freeing the communicator itself, or entered a
/// later epoch) or it called MPI_Finalize. While any is not, this rank does not offer the slot for a
/// new communicator (slot_reusable), so nothing of a new one overwrites what they read.
struct LateReader {
  const shm::FlatControl* line;
  std::uint64_t until;
  const shm::InboxHeader* owner;
};

std::array<std::vector<LateReader>, shm::kFlatSlots> g_quarantine;

std::array<SlotState, shm::kFlatSlots>& slots() {
  return g_slots;
}

/// One-rank communicators publish into a process-local area.
shm::FlatArea* local_area(int slot) {
  static std::array<std::unique_ptr<shm::FlatArea>, shm::kFlatSlots> areas;
  auto& a = areas[std::size_t(slot)];
  if (!a) a = std::make_unique<shm::FlatArea>();
  return a.get();
}

SlotState& set_up(CommInfo& c, const char* fn);

/// The state of `c`'s slot, set up (a point-to-point exchange) at c's first flat collective.
inline SlotState& state(CommInfo& c, const char* fn) {
  SlotState& s = g_slots[std::size_t(c.slot)];
  if (s.comm == &c) return s;
  return set_up(c, fn);
}

SlotState& set_up(CommInfo& c, const char* fn) {
  SlotState& s = slots()[std::size_t(c.slot)];
  s = SlotState{};
  s.size = comm_size(c);
  s.rank = comm_rank(c);
  s.areas.resize(std::size_t(s.size));
  s.base.resize(std::size_t(s.size));
  s.seen.resize(std::size_t(s.size));
  if (s.size == 1) {
    s.areas[0] = local_area(c.slot);
    s.base[0] = s.areas[0]->control.seq.load(std::memory_order_relaxed);
  } else {
    const bool big = c.slot < shm::kFlatBigSlots;
    if (big) s.big.resize(std::size_t(s.size));
    s.cpu.resize(std::size_t(s.size));
    for (int m = 0; m < s.size; ++m) {
      void* inbox = inbox_of(to_world(c, m));
      s.cpu[std::size_t(m)] = &static_cast<shm::InboxHeader*>(inbox)->cpu;
      s.areas[std::size_t(m)] = inbox_layout().flat(inbox, c.slot);
      if (big) s.big[std::size_t(m)] = inbox_layout().flat_big(inbox, c.slot);
    }
    if (s.size == 2) {
      // This rank's word starts at its tag and count 0 before the exchange below: the peer reads the
      // word only after the exchange, so it never sees what the slot's previous communicator left.
      shm::FlatMeet& line = s.areas[0]->meet;
      s.meet_mine = &line.arrived[s.rank];
      s.meet_peer = &line.arrived[1 - s.rank];
      s.meet_tag = std::uint64_t(to_world(c, s.rank) + 1) << 32;
      s.meet_peer_tag = std::uint64_t(to_world(c, 1 - s.rank) + 1) << 32;
      s.meet_mine->store(s.meet_tag, std::memory_order_release);
    }
    // Each member's current value: a point-to-point exchange in the collective context, once.
    std::uint64_t mine = s.areas[std::size_t(s.rank)]->control.seq.load(std::memory_order_relaxed);
    s.base[std::size_t(s.rank)] = mine;
    Schedule x(c, fn);
    for (int m = 0; m < s.size; ++m) {
      if (m == s.rank) continue;
      x.send(m, &mine, sizeof mine);
      x.recv(m, &s.base[std::size_t(m)], sizeof mine);
    }
    x.run();
  }
  s.comm = &c;
  return s;
}

/// wait()'s default: nothing waited for needs this rank's CPU.
struct NeverBlocked {
  bool operator()() const { return false; }
};

/// Polls `ready` while progressing the engine; a dead peer throws PeerFailure. Each round spins
/// first, unless `blocked_here()` says that what `ready` waits for needs this rank's CPU: then it
/// goes straight to the engine and the backoff (which yields at once when ranks outnumber cores).
template <class Ready, class BlockedHere = NeverBlocked>
void wait(const Ready& ready, const BlockedHere& blocked_here = {}) {
  if (ready()) return;
  Engine& eng = engine();
  Backoff backoff;
  for (;;) {
    const int spins = blocked_here() ? 0 : 32;
    for (int i = 0; i < spins; ++i) {
      if (ready()) return;
      cpu_relax();
    }
    bool moved = eng.progress();
    if (ready()) return;
    if (moved) {
      backoff.reset();
    } else if (backoff.idle()) {
      eng.check_peers();
    }
  }
}

bool has_entered(const SlotState& s, int m, std::uint64_t e) {
  return s.areas[std::size_t(m)]->control.seq.load(std::memory_order_acquire) >= s.base[std::size_t(m)] + e;
}

template <class BlockedHere = NeverBlocked>
void wait_member(const SlotState& s, int m, std::uint64_t e, const BlockedHere& blocked_here = {}) {
  wait([&] { return has_entered(s, m, e); }, blocked_here);
}

template <class BlockedHere = NeverBlocked>
void wait_all(SlotState& s, std::uint64_t e, const BlockedHere& blocked_here = {}) {
  if (s.all_entered >= e) return;
  int next = 0;  // members below it (this rank aside) have entered epoch e
  wait(
      [&] {
        while (next < s.size && (next == s.rank || has_entered(s, next, e))) ++next;
        return next == s.size;
      },
      blocked_here);
  s.all_entered = e;
}

void enter(SlotState& s, std::uint64_t e) {
  shm::FlatControl& mine = s.areas[std::size_t(s.rank)]->control;
  mine.seq.store(s.base[std::size_t(s.rank)] + e, std::memory_order_release);
  // For the readers. A lone rank skips it: its line would only come back from the shared cache at
  // the next epoch, which would slow a one-rank barrier several-fold.
  if (s.size > 1) shm::demote_line(&mine);
}

/// Member m's buffer of epoch e for data of `bytes` (more than kFlatInline) bytes.
char* buffer_of(const SlotState& s, int m, std::uint64_t e, std::size_t bytes) {
  return bytes <= shm::kFlatBytes ? s.areas[std::size_t(m)]->data[e & 1] : s.big[std::size_t(m)]->data[e & 1];
}

/// Where this rank writes `bytes` for epoch e of collective `what`, once every reader of the buffer's
/// previous data is done.
char* publish_at(SlotState& s, std::uint64_t e, std::size_t bytes, std::uint32_t what) {
  std::uint64_t& last = s.published[e & 1];
  if (last != 0) wait_all(s, last + 1);
  last = e;
  shm::FlatArea* a = s.areas[std::size_t(s.rank)];
  a->control.bytes[e & 1] = std::uint32_t(bytes);
  a->control.epoch[e & 1] = std::uint32_t(e);
  a->control.what[e & 1] = what;
  return bytes <= shm::kFlatInline ? a->control.inline_data[e & 1] : buffer_of(s, s.rank, e, bytes);
}

/// Waits until member m (any rank, this one included) has entered epoch e and takes its Seen.
Seen wait_seen(const SlotState& s, int m, std::uint64_t e) {
  const shm::FlatControl& c = s.areas[std::size_t(m)]->control;
  Seen v;
  auto take = [&] {
    if (c.seq.load(std::memory_order_acquire) < s.base[std::size_t(m)] + e) return false;
    v.bytes = c.bytes[e & 1];
    v.epoch = c.epoch[e & 1];
    v.what = c.what[e & 1];
    std::memcpy(v.inline_data, c.inline_data[e & 1], shm::kFlatInline);
    return true;
  };
  wait(take);
  return v;
}

/// Member m's data of epoch e (`v` from wait_seen), published by collective `what` and `bytes` long:
/// anything else is an error (for the size, the one a schedule's mismatched receive gives). Inline
/// data points into `v`.
const char* data_of(const SlotState& s, int m, const Seen& v, std::uint64_t e, std::uint32_t what,
                    std::size_t bytes, const char* fn) {
  if (v.epoch != std::uint32_t(e)) {
    fail(MPI_ERR_OTHER, fn,
         "rank " + std::to_string(m) +
             " published no data for this collective: its collectives are out of "
             "step with rank " +
             std::to_string(s.rank) +
             "'s (an earlier collective failed on some ranks only, "
             "or the ranks call collectives in different orders)");
  }
  if (v.what != what) {
    fail(MPI_ERR_OTHER, fn,
         "rank " + std::to_string(m) + " is in " + describe(v.what) + " where rank " +
             std::to_string(s.rank) + " is in " + describe(what) +
             " (the ranks call different collectives or roots)");
  }
  if (v.bytes != bytes) {
    fail(MPI_ERR_TRUNCATE, fn,
         "rank " + std::to_string(m) + " sent " + std::to_string(v.bytes) + " bytes where rank " +
             std::to_string(s.rank) + " expected " + std::to_string(bytes) +
             " (counts, datatypes or the root differ across ranks)");
  }
  return bytes <= shm::kFlatInline ? v.inline_data : buffer_of(s, m, e, bytes);
}

/// An allreduce of more bytes than this splits the reduction (reduce()): each rank reduces 1/p of the
/// items of every vector, publishes its share in a second epoch and copies the others' shares.
constexpr std::size_t kSplitAllreduceMin = 8 * 1024;

void copy(void* dst, const void* src, std::size_t n) {
  if (n != 0 && dst != src) shm::copy_bulk(dst, src, n);
}

/// Publishes the p blocks of `send` at `out` but for block `self`, which no other rank reads (scatter's
/// root, alltoall's own): 1/p less to copy (np 4, 64 KiB blocks: 192 KiB instead of 256 for the root).
void publish_others(char* out, const char* send, std::size_t block, int p, int self) {
  const std::size_t head = std::size_t(self) * block;
  const std::size_t tail = head + block;
  copy(out, send, head);
  copy(out + tail, send + tail, block * std::size_t(p) - tail);
}

}  // namespace

std::size_t max_publish(const CommInfo& c) {
  return c.slot < shm::kFlatBigSlots && comm_size(c) > 1 ? shm::kFlatBigBytes : shm::kFlatBytes;
}

bool usable(const CommInfo& c) {
  if (c.slot >= shm::kFlatSlots || is_inter(c)) return false;  // flat collectives are within one group
  if (g_slots[std::size_t(c.slot)].comm == &c) return true;    // ran flat before: nothing has changed
  if (comm_size(c) == 1) return true;
  for (int m = 0; m < comm_size(c); ++m) {
    if (inbox_of(to_world(c, m)) == nullptr) return false;
  }
  return true;
}

/// A two-rank barrier in epoch e through rank 0's meet line (shm::FlatMeet). Each word counts its
/// writer's barriers, not epochs: the peer's count is then this barrier's or the one before (it cannot
/// pass this one without us), so 32 bits never wrap into a false arrival, however many other flat
/// collectives (which move the epoch on) run between two barriers. The control line's seq still says
/// e was entered (stored after the meet word, so it does not delay it): a peer out of step, in a
/// collective that publishes in epoch e, then gets its error instead of waiting for ever, and this
/// rank, for the same reason, also takes the peer's seq at e (looked at once every 32 polls) as its
/// arrival.
void meet(SlotState& s, std::uint64_t e) {
  const std::uint32_t n = ++s.meets;
  s.meet_mine->store(s.meet_tag | n, std::memory_order_release);
  enter(s, e);
  const int peer = 1 - s.rank;
  unsigned polls = 0;
  wait([&] {
    const std::uint64_t v = s.meet_peer->load(std::memory_order_acquire);
    const bool tagged = (v & ~std::uint64_t{0xffffffff}) == s.meet_peer_tag;
    if (tagged && std::int32_t(std::uint32_t(v) - n) >= 0) return true;
    return ++polls % 32 == 0 && has_entered(s, peer, e);
  });
  s.all_entered = e;
}

void barrier(CommInfo& c, const char* fn) {
  SlotState& s = state(c, fn);
  if (s.size == 1) return;  // nothing to wait for, and no one reads a one-rank communicator's epoch
  std::uint64_t e = ++s.epoch;
  if (s.size == 2) {
    meet(s, e);
    return;
  }
  enter(s, e);
  if (!node_oversubscribed()) {
    wait_all(s, e);  // everyone waits for everyone: one line transfer deep
    return;
  }
  // More ranks than cores: rank 0 gathers the arrivals and releases the others with epoch e + 1,
  // so rank 0 (running when it releases) leaves first and the others leave as they get a core.
  std::uint64_t release = ++s.epoch;
  // A member the barrier still waits for (rank 0: until it releases) whose last wait was on this
  // rank's CPU is not running: it cannot arrive until this rank yields. Then the wait yields at once
  // instead of spinning first (32 polls) for a member that cannot arrive, which on rank 0's core
  // happens twice a barrier with two ranks a core: the same switches a barrier, without the spins.
  auto blocked_here = [&] {
    const int cpu = sched_getcpu();
    if (cpu < 0) return false;
    std::atomic<std::int32_t>& mine = *s.cpu[std::size_t(s.rank)];
    if (mine.load(std::memory_order_relaxed) != cpu) mine.store(cpu, std::memory_order_relaxed);
    for (int m = 0; m < s.size; ++m) {
      if (m == s.rank || has_entered(s, m, m == 0 ? release : e)) continue;
      if (s.cpu[std::size_t(m)]->load(std::memory_order_relaxed) == cpu) return true;
    }
    return false;
  };
  if (s.rank == 0) {
    wait_all(s, e, blocked_here);
    enter(s, release);
  } else {
    wait_member(s, 0, release, blocked_here);
    enter(s, release);
    s.all_entered = e;
  }
}

void bcast(CommInfo& c, const char* fn, char* buf, std::size_t bytes, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::uint32_t what = what_of(Kind::kBcast, root);
  if (s.rank == root) {
    copy(publish_at(s, e, bytes, what), buf, bytes);
    enter(s, e);
    return;
  }
  enter(s, e);
  Seen v = wait_seen(s, root, e);
  copy(buf, data_of(s, root, v, e, what, bytes, fn), bytes);
}

void reduce(CommInfo& c, const char* fn, const char* send, char* recv, const ReduceSpec& r, int root,
            bool all) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t bytes = r.bytes();
  const std::uint32_t what = all ? what_of(Kind::kAllreduce, 0) : what_of(Kind::kReduce, root);
  copy(publish_at(s, e, bytes, what), send, bytes);
  enter(s, e);
  if (!all && s.rank != root) return;
  // This rank's own vector is `send`, not read back from its control line: the line was just
  // written, and a load that overlaps those stores waits until they reach L1, which first takes the
  // line back from the peer that read it last -- a whole line transfer before the peer's line is
  // even polled, a noticeable share of a small allreduce. In place, recv is overwritten below: then
  // a copy of inline data taken now, or the published buffer.
  alignas(16) char own_inline[shm::kFlatInline];
  const char* own = send;
  if (send == recv && bytes <= shm::kFlatInline) {
    copy(own_inline, send, bytes);
    own = own_inline;
  } else if (send == recv) {
    own = buffer_of(s, s.rank, e, bytes);
  }
  for (int m = 0; m < s.size; ++m) {
    if (m != s.rank) s.seen[std::size_t(m)] = wait_seen(s, m, e);
  }
  s.all_entered = e;
  // Right to left: acc = x{p-1}; acc = x{i} op acc, so lower ranks stay on the left.
  auto data = [&](int m) {
    return m == s.rank ? own : data_of(s, m, s.seen[std::size_t(m)], e, what, bytes, fn);
  };
  if (!all || bytes <= kSplitAllreduceMin || r.count < std::size_t(s.size)) {
    copy(recv, data(s.size - 1), bytes);
    for (int m = s.size - 2; m >= 0; --m) apply_op(r.op, r.dt, data(m), recv, r.count);
    return;
  }
  // Split: rank q reduces items [first(q), first(q + 1)) of every vector and publishes them in the
  // next epoch; then every rank copies the others' shares.
  auto first = [&](int q) { return r.count * std::size_t(q) / std::size_t(s.size); };
  const std::size_t off = first(s.rank) * r.item;
  const std::size_t n = first(s.rank + 1) - first(s.rank);
  char* mine = recv + off;
  copy(mine, data(s.size - 1) + off, n * r.item);
  for (int m = s.size - 2; m >= 0; --m) apply_op(r.op, r.dt, data(m) + off, mine, n);
  const std::uint64_t e2 = ++s.epoch;
  copy(publish_at(s, e2, n * r.item, what), mine, n * r.item);
  enter(s, e2);
  for (int q = 0; q < s.size; ++q) {
    if (q == s.rank) continue;
    const std::size_t share = (first(q + 1) - first(q)) * r.item;
    Seen v = wait_seen(s, q, e2);
    copy(recv + first(q) * r.item, data_of(s, q, v, e2, what, share, fn), share);
  }
  s.all_entered = e2;
}

void gather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::uint32_t what = what_of(Kind::kGather, root);
  if (s.rank != root) {
    copy(publish_at(s, e, block, what), send, block);
    enter(s, e);
    return;
  }
  enter(s, e);
  if (send != nullptr) copy(recv + std::size_t(root) * block, send, block);
  for (int m = 0; m < s.size; ++m) {
    if (m == root) continue;
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, what, block, fn), block);
  }
}

void scatter(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t total = block * std::size_t(s.size);
  const std::uint32_t what = what_of(Kind::kScatter, root);
  if (s.rank == root) {
    publish_others(publish_at(s, e, total, what), send, block, s.size, root);
    enter(s, e);
    if (recv != nullptr) copy(recv, send + std::size_t(root) * block, block);
    return;
  }
  enter(s, e);
  Seen v = wait_seen(s, root, e);
  copy(recv, data_of(s, root, v, e, what, total, fn) + std::size_t(s.rank) * block, block);
}

void allgather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  char* own = recv + std::size_t(s.rank) * block;
  const std::uint32_t what = what_of(Kind::kAllgather, 0);
  copy(publish_at(s, e, block, what), send != nullptr ? send : own, block);
  enter(s, e);
  if (send != nullptr) copy(own, send, block);
  for (int m = 0; m < s.size; ++m) {
    if (m == s.rank) continue;
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, what, block, fn), block);
  }
  s.all_entered = e;
}

void alltoall(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t total = block * std::size_t(s.size);
  const std::uint32_t what = what_of(Kind::kAlltoall, 0);
  publish_others(publish_at(s, e, total, what), send, block, s.size, s.rank);
  enter(s, e);
  // This rank's own block from `send`, not back from what it published (see own_seen()).
  copy(recv + std::size_t(s.rank) * block, send + std::size_t(s.rank) * block, block);
  for (int m = 0; m < s.size; ++m) {
    if (m == s.rank) continue;
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, what, total, fn) + std::size_t(s.rank) * block,
         block);
  }
  s.all_entered = e;
}

void release(CommInfo& c) {
  if (c.slot >= shm::kFlatSlots) return;
  SlotState& s = slots()[std::size_t(c.slot)];
  if (s.comm != &c) return;
  if (s.epoch > 0 && s.size > 1) {
    // Announce, never wait (MPI_Comm_free is local in practice: ranks free in different orders, or
    // not at all): "entered" one epoch past the last tells the others this rank has read everything.
    const std::uint64_t done = s.epoch + 1;
    enter(s, done);
    // A member that entered the epoch after this rank's last publication has read it all.
    const std::uint64_t last = std::max(s.published[0], s.published[1]);
    if (last != 0 && s.all_entered < last + 1) {
      for (int m = 0; m < s.size; ++m) {
        if (m == s.rank || has_entered(s, m, last + 1)) continue;
        g_quarantine[std::size_t(c.slot)].push_back(
            LateReader{&s.areas[std::size_t(m)]->control, s.base[std::size_t(m)] + last + 1,
                       static_cast<const shm::InboxHeader*>(inbox_of(to_world(c, m)))});
      }
    }
  }
  s = SlotState{};
}

bool slot_reusable(int slot) {
  if (slot >= shm::kFlatSlots) return true;
  std::vector<LateReader>& q = g_quarantine[std::size_t(slot)];
  for (const LateReader& r : q) {
    if (r.line->seq.load(std::memory_order_acquire) < r.until &&
        r.owner->finalized.load(std::memory_order_acquire) == 0) {
      return false;
    }
  }
  q.clear();
  return true;
}

}  // namespace takyon::mpi::flat
