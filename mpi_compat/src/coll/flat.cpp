// SPDX-License-Identifier: MIT
// Flat node-local collectives through the inboxes' shared lines (see flat.hpp).
#include "coll/flat.hpp"

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
/// other half of the same line, and the reader's load misses again (np 2 8-byte allreduce: a fifth
/// of the time went to that second miss).
struct Seen {
  std::uint32_t bytes = 0;
  alignas(16) char inline_data[shm::kFlatInline];
};

/// What this rank knows of the communicator running flat collectives in one slot.
struct SlotState {
  const CommInfo* comm = nullptr;
  int rank = 0;
  int size = 0;
  std::uint64_t epoch = 0;              ///< flat collectives run on `comm` so far
  std::uint64_t all_entered = 0;        ///< every member is known to have entered this epoch
  std::uint64_t published[2] = {0, 0};  ///< the epoch this rank last wrote buffer b in (0: never)
  std::vector<shm::FlatArea*> areas;    ///< each member's area of the slot, by rank
  std::vector<std::uint64_t> base;      ///< each member's sequence value at the first flat collective
  std::vector<Seen> seen;               ///< reduce: what each member published (wait_seen)
};

std::array<SlotState, shm::kFlatSlots> g_slots;  // constant-initialized: no guard on the fast path

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

SlotState& state(CommInfo& c, const char* fn) {
  SlotState& s = slots()[std::size_t(c.slot)];
  if (s.comm == &c) return s;
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
    for (int m = 0; m < s.size; ++m) {
      s.areas[std::size_t(m)] = inbox_layout().flat(inbox_of(to_world(c, m)), c.slot);
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

/// Polls `ready` while progressing the engine; a dead peer throws PeerFailure.
template <class Ready>
void wait(const Ready& ready) {
  if (ready()) return;
  Engine& eng = engine();
  Backoff backoff;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
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

void wait_member(const SlotState& s, int m, std::uint64_t e) {
  wait([&] { return has_entered(s, m, e); });
}

void wait_all(SlotState& s, std::uint64_t e) {
  if (s.all_entered >= e) return;
  for (int m = 0; m < s.size; ++m) {
    if (m != s.rank) wait_member(s, m, e);
  }
  s.all_entered = e;
}

void enter(SlotState& s, std::uint64_t e) {
  shm::FlatControl& mine = s.areas[std::size_t(s.rank)]->control;
  mine.seq.store(s.base[std::size_t(s.rank)] + e, std::memory_order_release);
  // For the readers; alone, the line would only come back from the shared cache at the next epoch
  // (a one-rank barrier 15 -> 97 ns).
  if (s.size > 1) shm::demote_line(&mine);
}

/// Where this rank writes `bytes` for epoch e, once every reader of the buffer's previous data is done.
char* publish_at(SlotState& s, std::uint64_t e, std::size_t bytes) {
  std::uint64_t& last = s.published[e & 1];
  if (last != 0) wait_all(s, last + 1);
  last = e;
  shm::FlatArea* a = s.areas[std::size_t(s.rank)];
  a->control.bytes[e & 1] = std::uint32_t(bytes);
  return a->at(e, bytes);
}

/// Waits until member m (any rank, this one included) has entered epoch e and takes its Seen.
Seen wait_seen(const SlotState& s, int m, std::uint64_t e) {
  const shm::FlatControl& c = s.areas[std::size_t(m)]->control;
  Seen v;
  auto take = [&] {
    if (c.seq.load(std::memory_order_acquire) < s.base[std::size_t(m)] + e) return false;
    v.bytes = c.bytes[e & 1];
    std::memcpy(v.inline_data, c.inline_data[e & 1], shm::kFlatInline);
    return true;
  };
  wait(take);
  return v;
}

/// Member m's data of epoch e (`v` from wait_seen), which must be `bytes` long: anything else is the
/// error a schedule's mismatched receive gives. Inline data points into `v`.
const char* data_of(const SlotState& s, int m, const Seen& v, std::uint64_t e, std::size_t bytes,
                    const char* fn) {
  if (v.bytes != bytes) {
    fail(MPI_ERR_TRUNCATE, fn,
         "rank " + std::to_string(m) + " sent " + std::to_string(v.bytes) + " bytes where rank " +
             std::to_string(s.rank) + " expected " + std::to_string(bytes) +
             " (counts, datatypes or the root differ across ranks)");
  }
  return bytes <= shm::kFlatInline ? v.inline_data : s.areas[std::size_t(m)]->data[e & 1];
}

void copy(void* dst, const void* src, std::size_t n) {
  if (n != 0 && dst != src) std::memcpy(dst, src, n);
}

}  // namespace

bool usable(const CommInfo& c) {
  if (c.slot >= shm::kFlatSlots) return false;
  if (comm_size(c) == 1) return true;
  for (int m = 0; m < comm_size(c); ++m) {
    if (inbox_of(to_world(c, m)) == nullptr) return false;
  }
  return true;
}

void barrier(CommInfo& c, const char* fn) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  enter(s, e);
  if (!Backoff::is_oversubscribed() || s.size <= 2) {
    wait_all(s, e);  // everyone waits for everyone: one line transfer deep
    return;
  }
  // More ranks than cores: rank 0 gathers the arrivals and releases the others with epoch e + 1,
  // so rank 0 (running when it releases) leaves first and the others leave as they get a core.
  std::uint64_t release = ++s.epoch;
  if (s.rank == 0) {
    wait_all(s, e);
    enter(s, release);
  } else {
    wait_member(s, 0, release);
    enter(s, release);
    s.all_entered = e;
  }
}

void bcast(CommInfo& c, const char* fn, char* buf, std::size_t bytes, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  if (s.rank == root) {
    copy(publish_at(s, e, bytes), buf, bytes);
    enter(s, e);
    return;
  }
  enter(s, e);
  Seen v = wait_seen(s, root, e);
  copy(buf, data_of(s, root, v, e, bytes, fn), bytes);
}

void reduce(CommInfo& c, const char* fn, const char* send, char* recv, const ReduceSpec& r, int root,
            bool all) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t bytes = r.bytes();
  copy(publish_at(s, e, bytes), send, bytes);
  enter(s, e);
  if (!all && s.rank != root) return;
  for (int m = 0; m < s.size; ++m) s.seen[std::size_t(m)] = wait_seen(s, m, e);
  s.all_entered = e;
  // Right to left: acc = x{p-1}; acc = x{i} op acc, so lower ranks stay on the left.
  auto data = [&](int m) { return data_of(s, m, s.seen[std::size_t(m)], e, bytes, fn); };
  copy(recv, data(s.size - 1), bytes);
  for (int m = s.size - 2; m >= 0; --m) apply_op(r.op, r.dt, data(m), recv, r.count);
}

void gather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  if (s.rank != root) {
    copy(publish_at(s, e, block), send, block);
    enter(s, e);
    return;
  }
  enter(s, e);
  if (send != nullptr) copy(recv + std::size_t(root) * block, send, block);
  for (int m = 0; m < s.size; ++m) {
    if (m == root) continue;
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, block, fn), block);
  }
}

void scatter(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t total = block * std::size_t(s.size);
  if (s.rank == root) {
    copy(publish_at(s, e, total), send, total);
    enter(s, e);
    if (recv != nullptr) copy(recv, send + std::size_t(root) * block, block);
    return;
  }
  enter(s, e);
  Seen v = wait_seen(s, root, e);
  copy(recv, data_of(s, root, v, e, total, fn) + std::size_t(s.rank) * block, block);
}

void allgather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  char* own = recv + std::size_t(s.rank) * block;
  copy(publish_at(s, e, block), send != nullptr ? send : own, block);
  enter(s, e);
  if (send != nullptr) copy(own, send, block);
  for (int m = 0; m < s.size; ++m) {
    if (m == s.rank) continue;
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, block, fn), block);
  }
  s.all_entered = e;
}

void alltoall(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block) {
  SlotState& s = state(c, fn);
  std::uint64_t e = ++s.epoch;
  const std::size_t total = block * std::size_t(s.size);
  copy(publish_at(s, e, total), send, total);
  enter(s, e);
  for (int m = 0; m < s.size; ++m) {
    Seen v = wait_seen(s, m, e);
    copy(recv + std::size_t(m) * block, data_of(s, m, v, e, total, fn) + std::size_t(s.rank) * block, block);
  }
  s.all_entered = e;
}

void release(CommInfo& c) {
  if (c.slot >= shm::kFlatSlots) return;
  SlotState& s = slots()[std::size_t(c.slot)];
  if (s.comm != &c) return;
  if (s.epoch > 0 && s.size > 1) barrier(c, "MPI_Comm_free");
  s = SlotState{};
}

}  // namespace takyon::mpi::flat
