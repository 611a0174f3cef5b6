// SPDX-License-Identifier: MIT
// The inbox segment every rank creates in /dev/shm: what lies where, shared by producer and consumer.
//
//   InboxHeader                                      (one cache line: geometry, owner pid, flags)
//   RingControl[nranks]                              (one line each: the consumer's count)
//   cells[nranks][ncells] of cell_bytes              (one SPSC ring per source rank)
//   BulkSlot[nranks][nchunks] + chunks of chunk_bytes (one rendezvous pipeline per source rank)
//   FlatArea[kFlatSlots]                             (the owner's flat-collective lines, coll/flat.hpp)
//   FlatBig[kFlatBigSlots]                           (larger flat buffers of the lowest slots)
//
// A cell's first cache line holds the sequence word, the envelope and the first kInlineBytes of the
// payload, so a message of up to 40 bytes is one cache line written by the sender, read by the receiver.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "shm/copy.hpp"

namespace takyon::mpi::shm {

inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::uint64_t kInboxMagic = 0x54414b594f4e4d31ULL;  // "TAKYONM1"

/// What a cell carries (CellHeader::kind).
enum class CellKind : std::uint8_t {
  kEager = 1,   ///< envelope + the whole payload in the cell
  kRts = 2,     ///< rendezvous request: envelope, total bytes and the sender's address (payload), msg_id
  kCts = 3,     ///< clear to send (receiver -> sender): msg_id, bytes wanted (in the payload)
  kAck = 4,     ///< synchronous-send acknowledgement (receiver -> sender): msg_id
  kData = 5,    ///< path channels only: the next rendezvous chunk (payload), streams in kCts order
  kCancel = 6,  ///< MPI_Cancel of a send (sender -> receiver): msg_id of the message to withdraw
  kCancelAnswer = 7,  ///< (receiver -> sender): msg_id, 1 withdrawn unmatched, 0 already matched (payload)
};

/// CellHeader::flags
inline constexpr std::uint8_t kFlagSync = 1;  ///< the sender wants a kAck once the message is matched
/// kRts: the sender has nothing else in flight to this receiver, so the receiver may copy the data
/// itself from the address in the payload (CMA, process_vm_readv) and answer kAck instead of kCts.
inline constexpr std::uint8_t kFlagSolo = 2;
/// kCts: a split single copy (receiver reads the head, sender writes the tail; pt2pt/engine.hpp);
/// kAck: the sender's answer to it, sent to the receiver.
inline constexpr std::uint8_t kFlagSplit = 4;
/// kRts (with kFlagSolo): the sender has local work to do meanwhile; a split leaves the receiver more.
inline constexpr std::uint8_t kFlagBusy = 8;

struct CellHeader {
  std::atomic<std::uint32_t> seq;  ///< producer's count + 1, stored last (release)
  CellKind kind;
  std::uint8_t flags;
  std::uint16_t reserved;
  std::int32_t ctx;
  std::int32_t tag;
  std::uint32_t bytes;   ///< eager: payload bytes; others: payload bytes of the control data
  std::uint32_t msg_id;  ///< sender's id for kRts / kFlagSync; echoed in kCts / kAck
};
static_assert(sizeof(CellHeader) == 24);
inline constexpr std::size_t kInlineBytes = kCacheLine - sizeof(CellHeader);

struct alignas(kCacheLine) RingControl {
  std::atomic<std::uint32_t> consumed;  ///< cells the consumer has finished with
};

struct alignas(kCacheLine) BulkSlot {
  std::atomic<std::uint64_t> filled;  ///< 0: free; else bytes in the chunk (set by the producer)
};

struct alignas(kCacheLine) InboxHeader {
  std::uint64_t magic;
  std::uint32_t nranks;
  std::uint32_t ncells;       ///< per ring, a power of two
  std::uint32_t cell_bytes;   ///< multiple of kCacheLine
  std::uint32_t nchunks;      ///< per bulk pipeline
  std::uint32_t chunk_bytes;  ///< multiple of 4096
  std::int32_t owner_pid;
  std::atomic<std::uint32_t> finalized;  ///< the owner called MPI_Finalize (its exit is no failure)
  std::int32_t heap_fd;                  ///< the owner's shared heap (shm/heap.hpp): its memfd's number
  std::uint64_t heap_base;               ///< where the owner maps it
  std::uint64_t heap_bytes;              ///< its size; 0: the owner has none
  std::atomic<std::int32_t> cpu;         ///< where the owner last waited (flat barriers, CpuWatch); -1: never
};
static_assert(sizeof(InboxHeader) == kCacheLine);

/// Hands a line this core just wrote (and another core polls) towards the shared cache (CLDEMOTE; a
/// NOP where unsupported), so the reader's load does not have to snoop it out of this core: a small
/// gain on a bare cache-line ping-pong and on a small MPI ping-pong alike.
inline void demote_line(const void* line) {
#if defined(__x86_64__)
  asm volatile("cldemote %0" : : "m"(*static_cast<const char*>(line)));
#else
  (void)line;
#endif
}

/// Copies a message payload; the small sizes of latency-bound messages inline (two overlapping
/// loads and stores) instead of a call to memcpy.
inline void copy_payload(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  if (n > 16) {
    copy_bulk(d, s, n);
  } else if (n >= 8) {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::memcpy(&a, s, 8);
    std::memcpy(&b, s + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    std::memcpy(d, &a, 4);
    std::memcpy(d + n - 4, &b, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

/// Node-local flat collectives (coll/flat.hpp): for each context slot below kFlatSlots, the inbox owner
/// publishes its data for a collective in one of two buffers (epoch e uses e & 1) and then its epoch
/// in `seq`; every member of the communicator in that slot reads them. Up to kFlatInline bytes go in
/// the control line itself, so a small collective moves one cache line per rank.
inline constexpr int kFlatSlots = 32;
inline constexpr std::size_t kFlatInline = 16;
inline constexpr std::size_t kFlatBytes = 4096;  ///< per data buffer: the most a rank publishes

struct alignas(kCacheLine) FlatControl {
  std::atomic<std::uint64_t> seq;                ///< the last epoch the owner entered (stored last, release)
  std::uint32_t bytes[2];                        ///< bytes published in each buffer (readers check them)
  alignas(16) char inline_data[2][kFlatInline];  ///< 16-aligned: reductions read items of up to 16 bytes
  std::uint32_t epoch[2];  ///< the epoch (low 32 bits) whose data each buffer holds (readers check it)
  std::uint32_t what[2];   ///< the collective and root that published it (readers check them)
};
static_assert(sizeof(FlatControl) == kCacheLine);

/// Where the two members of a two-rank communicator meet for a flat barrier (the line in its rank
/// 0's area): each stores its arrival in its own word and polls the other's word in the same line.
/// With the two CPUs far apart that answers clearly sooner than two lines, each written by its
/// owner and polled by the other (the writer of a line the reader holds waits out an invalidation
/// before its store shows); with them close, the one line is slightly slower in a bare loop, and
/// the same either way through MPI_Barrier. The far case, where the gap is large, decided.
/// A word holds (writer's world rank + 1) << 32 | the writer's count of two-rank barriers on the
/// communicator: a member of an earlier communicator of the slot that writes late (an erroneous
/// program) is told apart.
struct alignas(kCacheLine) FlatMeet {
  std::atomic<std::uint64_t> arrived[2];
};
static_assert(sizeof(FlatMeet) == kCacheLine);

struct FlatArea {
  FlatControl control;
  FlatMeet meet;
  alignas(kCacheLine) char data[2][kFlatBytes];
};

/// Larger flat buffers (2 x 256 KiB) for the lowest context slots (WORLD and the first communicators
/// created): the flat collectives of up to kFlatBigBytes per rank (scatter and alltoall publish p
/// blocks), used where ranks share cores (coll/select.cpp). Pages are touched only when used.
inline constexpr int kFlatBigSlots = 4;
inline constexpr std::size_t kFlatBigBytes = 256 * 1024;

struct FlatBig {
  alignas(4096) char data[2][kFlatBigBytes];
};

/// Where everything lies in one inbox, computed alike by its owner and by every peer.
struct InboxLayout {
  std::uint32_t nranks = 0;
  std::uint32_t ncells = 0;
  std::uint32_t cell_bytes = 0;
  std::uint32_t nchunks = 0;
  std::uint32_t chunk_bytes = 0;

  [[nodiscard]] std::size_t controls_offset() const { return sizeof(InboxHeader); }
  [[nodiscard]] std::size_t cells_offset() const {
    return controls_offset() + std::size_t{nranks} * sizeof(RingControl);
  }
  [[nodiscard]] std::size_t ring_bytes() const { return std::size_t{ncells} * cell_bytes; }
  [[nodiscard]] std::size_t slots_offset() const {
    return cells_offset() + std::size_t{nranks} * ring_bytes();
  }
  [[nodiscard]] std::size_t chunks_offset() const {
    std::size_t end = slots_offset() + std::size_t{nranks} * nchunks * sizeof(BulkSlot);
    return (end + 4095) & ~std::size_t{4095};
  }
  [[nodiscard]] std::size_t bulk_bytes() const { return std::size_t{nchunks} * chunk_bytes; }
  [[nodiscard]] std::size_t flat_offset() const {
    std::size_t end = chunks_offset() + std::size_t{nranks} * bulk_bytes();
    return (end + 4095) & ~std::size_t{4095};
  }
  [[nodiscard]] std::size_t flat_big_offset() const {
    return (flat_offset() + kFlatSlots * sizeof(FlatArea) + 4095) & ~std::size_t{4095};
  }
  [[nodiscard]] std::size_t total_bytes() const {
    return flat_big_offset() + kFlatBigSlots * sizeof(FlatBig);
  }

  [[nodiscard]] RingControl* control(void* base, int src) const {
    return reinterpret_cast<RingControl*>(static_cast<char*>(base) + controls_offset()) + src;
  }
  [[nodiscard]] char* cells(void* base, int src) const {
    return static_cast<char*>(base) + cells_offset() + std::size_t(src) * ring_bytes();
  }
  [[nodiscard]] BulkSlot* slots(void* base, int src) const {
    return reinterpret_cast<BulkSlot*>(static_cast<char*>(base) + slots_offset()) +
           std::size_t(src) * nchunks;
  }
  [[nodiscard]] char* chunks(void* base, int src) const {
    return static_cast<char*>(base) + chunks_offset() + std::size_t(src) * bulk_bytes();
  }

  [[nodiscard]] FlatArea* flat(void* base, int slot) const {
    return reinterpret_cast<FlatArea*>(static_cast<char*>(base) + flat_offset()) + slot;
  }
  /// Slot `slot`'s larger buffers (slot < kFlatBigSlots).
  [[nodiscard]] FlatBig* flat_big(void* base, int slot) const {
    return reinterpret_cast<FlatBig*>(static_cast<char*>(base) + flat_big_offset()) + slot;
  }

  /// The geometry for `nranks` ranks on the node, sized down so an inbox stays near 64 MiB at most.
  static InboxLayout for_ranks(std::uint32_t nranks);
};

}  // namespace takyon::mpi::shm
