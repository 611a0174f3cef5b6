// SPDX-License-Identifier: MIT
// What the engine's protocol files share (engine.cpp: matching, progress, liveness; eager.cpp;
// rendezvous.cpp: rendezvous and the pipeline; single_copy.cpp: CMA, the shared heap and the split):
// the words of a cell's payload, the engine's knobs, and the send templates every channel uses.
// Private to pt2pt/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pt2pt/channel.hpp"
#include "pt2pt/engine.hpp"

namespace takyon::mpi::engine_detail {

/// The receiver reads this much first (its proof that CMA works before the sender is asked to write).
inline constexpr std::size_t kCmaProbeBytes = 4096;

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

/// The current values (engine.cpp).
Tuning& tuning();
/// Reads the knobs into tuning() (each Engine's constructor).
void load_tuning();

inline std::uint64_t read_u64(const shm::CellHeader* cell) {
  std::uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const char*>(cell + 1), sizeof v);
  return v;
}

inline void write_u64(shm::CellHeader* cell, std::uint64_t v, std::size_t at = 0) {
  std::memcpy(reinterpret_cast<char*>(cell + 1) + at, &v, sizeof v);
}

inline std::uint64_t read_u64_at(const shm::CellHeader* cell, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const char*>(cell + 1) + at, sizeof v);
  return v;
}

/// Maps [p, p + bytes) of an inbox writable now (pages allocated, page tables filled), so that the
/// first messages through it take no page faults; a kernel without MADV_POPULATE_WRITE faults
/// later. Then writes, from this CPU, the page holding every `every`-th byte (a ring: each cell's
/// header; else every page), with an atomic add of 0 (peers may be using the memory already; the
/// value never changes): on a hypervisor with shadow page tables (PVM, for one) a populated page
/// still costs an exit on its first access from each process, which made the first lone large
/// messages of a pair much slower than later ones (each takes two fresh ring cells each way).
/// Touching the cells' header pages moves that cost to MPI_Init, once per ring.
void prefault(void* p, std::size_t bytes, std::size_t every = 0);  // (engine.cpp)

/// A receive request's state as it starts (start_recv, start_matched_recv).
inline void mark_started(Request* r) {
  r->active = true;
  r->complete = false;
  r->cancelled = false;
  r->truncated = false;
}

}  // namespace takyon::mpi::engine_detail

namespace takyon::mpi {

// The send templates, one instance per channel kind (shm::RingProducer, PathChannel: channel.hpp).

template <FrameProducer Chan>
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
    // Every message with a request has an id: MPI_Cancel names it to the receiver (cancel.cpp).
    cell->msg_id = p.rndv.next_msg_id++;
    r->msg_id = cell->msg_id;
    if (r->mode == SendMode::kSync) {
      cell->flags = shm::kFlagSync;
      p.rndv.awaiting.emplace(cell->msg_id, r);
      out.publish(cell);
    } else {
      out.publish(cell);
      if constexpr (std::is_same_v<Chan, shm::RingProducer>) stream_hint(p, r->bytes);
      complete(r);
    }
  } else {
    cell->kind = shm::CellKind::kRts;
    cell->bytes = 2 * sizeof(std::uint64_t);
    cell->msg_id = p.rndv.next_msg_id++;
    r->msg_id = cell->msg_id;
    engine_detail::write_u64(cell, r->bytes);
    engine_detail::write_u64(cell, reinterpret_cast<std::uintptr_t>(r->buf), sizeof(std::uint64_t));
    if (!p.path && p.rndv.awaiting.empty() && p.rndv.streaming_out.empty()) {
      cell->flags = r->local_work ? shm::kFlagSolo | shm::kFlagBusy : shm::kFlagSolo;
    }
    p.rndv.awaiting.emplace(cell->msg_id, r);
    out.publish(cell);
  }
  return true;
}

template <FrameProducer Chan>
bool Engine::emit_on(Chan& out, Peer& p, const Outgoing& o) {
  if (o.kind == Outgoing::Kind::kMessage) return emit_message(out, p, o.req);
  shm::CellHeader* cell = out.try_acquire();
  if (cell == nullptr) return false;
  const bool cts = o.kind == Outgoing::Kind::kCts || o.kind == Outgoing::Kind::kSplitCts;
  cell->kind = cts ? shm::CellKind::kCts : shm::CellKind::kAck;
  if (o.kind == Outgoing::Kind::kCancel) cell->kind = shm::CellKind::kCancel;
  if (o.kind == Outgoing::Kind::kCancelAnswer) cell->kind = shm::CellKind::kCancelAnswer;
  const bool split = o.kind == Outgoing::Kind::kSplitCts || o.kind == Outgoing::Kind::kSplitDone;
  cell->flags = split ? shm::kFlagSplit : 0;
  cell->ctx = 0;
  cell->tag = 0;
  cell->msg_id = o.msg_id;
  cell->bytes = sizeof(std::uint64_t);
  engine_detail::write_u64(cell, o.bytes);
  if (o.kind == Outgoing::Kind::kSplitCts) {
    cell->bytes = 3 * sizeof(std::uint64_t);
    engine_detail::write_u64(cell, o.addr, sizeof(std::uint64_t));
    engine_detail::write_u64(cell, o.split, 2 * sizeof(std::uint64_t));
  }
  out.publish(cell);
  return true;
}

template <FrameConsumer Chan>
void Engine::handle_and_release(Chan& chan, Peer& p, int source, const shm::CellHeader* cell) {
  // Released even when handling throws (a PeerFailure out of a rendezvous copy): a cell left in the
  // channel would be handled again at the next progress, and an RTS matched to a second receive.
  struct Release {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
    Chan& chan;
    ~Release() { chan.release(); }
  } release{chan};
  handle_cell(p, source, cell);
}

}  // namespace takyon::mpi
