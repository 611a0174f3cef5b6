// SPDX-License-Identifier: MIT
// One-sided communication (MPI RMA): windows and the protocol that runs their operations.
//
// Every window owns a private duplicate of its communicator; all of the window's traffic is
// point-to-point messages in that duplicate's context, so it never meets a user message. An
// operation is a message to the target (an active message, tag kAmTag): a header, the target
// datatype's flattened blocks and, for puts and accumulates, the origin data packed. The target runs
// it when it makes progress (the engine's after_progress hook, rma/am.cpp: service), one message at a
// time in arrival order, which makes every accumulate atomic with respect to the others and keeps
// the operations of one origin in the order they were issued (accumulate_ordering rar,raw,war,waw).
// What an operation returns (get, get_accumulate, fetch_and_op, compare_and_swap) comes back as a
// reply in a tag of its own, received straight into the origin buffer with its datatype.
//
// Synchronization is messages too, ordered after the operations they close:
//   fence          every rank sends kFence to every rank, then waits for all of them: a kFence from an
//                  origin arrives after that origin's operations, so all of them have run here. On
//                  dynamic windows (whose targets check addresses) a second round, kFenceReport,
//                  carries what each origin's operations met back to it before the fence returns.
//   PSCW           post -> kPost to each origin of the group; an origin's first operation to a target
//                  (or its complete) waits for that target's kPost; complete -> kComplete; wait/test
//                  consume one kComplete from each origin of the posted group.
//   lock/unlock    kLock (shared or exclusive) -> the target grants it (kGrant) when its lock table
//                  allows, in request order; kUnlock -> the target releases and answers kAck; flush ->
//                  kFlush -> kAck. lock_all: a shared lock on every rank. MPI_MODE_NOCHECK: no kLock,
//                  and the unlock is a flush.
// Progress: the target runs operations while it is inside any MPI call. A target that computes
// without calling MPI delays the origins that wait on it (documented in docs/mpi.md).
//
// Errors found at the target (a displacement outside a dynamic window's attached memory) are kept
// per origin and reported by the next kAck or kFence to it, which the origin raises.
//
// Window memory: MPI_Win_create and attach use the caller's memory. MPI_Win_allocate_shared maps one
// /dev/shm segment (shm/segment.hpp) on every rank of the communicator, which must all share this
// host's memory, rank r's part right after rank r-1's (page-aligned parts with the
// alloc_shared_noncontig hint); MPI_Win_allocate does the same (page-aligned parts) when every rank
// shares this host's memory, and allocates privately otherwise.
//
// Direct windows: where every rank maps every rank's memory (the segment's windows), operations run
// at the origin on the mapped memory instead of as messages, and synchronization goes through the
// segment's control area (Control; its counters are used through std::atomic_ref):
//   put, get       memcpy (datatypes: through the flattened blocks), complete when the call returns
//   accumulates    every accumulate, get_accumulate, fetch_and_op and compare_and_swap under the
//                  target's accumulate lock (a word of its control block), the reduction kernels
//                  over whole blocks: atomic with respect to each other whatever the operations.
//   lock           the target's lock word (exclusive bit, shared count); unlock and flush are
//                  memory fences.
//   fence          every rank publishes its fence count and waits for all to reach it.
//   PSCW           a matrix of post and complete counters.
// Waiting progresses the engine, so a peer that dies is reported (PeerFailure). TAKYON_MPI_RMA=am
// makes every window use messages (tests of that protocol).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attributes.hpp"
#include "comm/comm.hpp"
#include "errors.hpp"
#include "mpi.h"
#include "pt2pt/request.hpp"
#include "shm/segment.hpp"

namespace takyon::mpi::rma {

/// Info hints as (key, value) pairs (the layout of api/info.hpp's InfoEntries).
using Hints = std::vector<std::pair<std::string, std::string>>;

/// The tag of every protocol message; replies use kReplyBase + (id % kReplySpan).
inline constexpr int kAmTag = 0x524d41;  // "RMA"
inline constexpr int kReplyBase = 0x1000000;
inline constexpr std::uint32_t kReplySpan = 0x40000000;

enum class Kind : std::uint32_t {
  kPut = 1,
  kGet,
  kAcc,
  kGetAcc,
  kCas,
  kLock,
  kUnlock,
  kFlush,
  kGrant,
  kAck,
  kPost,
  kComplete,
  kFence,
  kFenceReport,
  kFree,
};

/// The header of every protocol message; for an operation it is followed by `nblocks` Blocks of the
/// target datatype and `data_bytes` of packed origin data, for kAck and kFence by `error_len` bytes
/// of an error message (error class `error_class`).
struct Header {
  Kind kind;
  std::int32_t lock_type = 0;    ///< kLock
  std::uint64_t seq = 0;         ///< kFence: the fence; operations with a reply: the reply's tag
  std::uint64_t disp = 0;        ///< target displacement (an address in dynamic windows)
  std::uint64_t count = 0;       ///< target items
  std::int64_t extent = 0;       ///< of the target datatype
  std::int64_t true_lb = 0;      ///< of the target datatype (bounds checks)
  std::int64_t true_ub = 0;      ///< true_lb + true extent
  std::uint64_t nblocks = 0;     ///< blocks per target item
  std::uint64_t data_bytes = 0;  ///< packed origin data
  std::int64_t basic = 0;        ///< accumulates: the predefined element type (its ABI handle value)
  std::int64_t op = 0;           ///< accumulates: the predefined MPI_Op (its ABI handle value)
  std::int32_t error_class = 0;  ///< kAck, kFence
  std::uint32_t error_len = 0;   ///< kAck, kFence
};

/// One contiguous piece of a target item: `len` bytes at `disp` from the item's start.
struct WireBlock {
  std::int64_t disp;
  std::uint64_t len;
};

/// A protocol message being received at the target.
struct Incoming {
  Request* req;
  std::vector<char> buf;
  int source;  ///< window rank
};

/// A message on its way out (the buffer lives until the send completes).
struct Outgoing {
  Request* req;
  std::vector<char> buf;
};

/// A reply an origin waits for: a receive into the origin (or result) buffer.
struct Reply {
  Request* req;
  int target;  ///< window rank
};

/// A rank's block in a direct window's control area.
struct alignas(128) Control {
  std::uint64_t lock;      ///< kExclusiveBit, or the count of shared holders
  std::uint32_t acc_lock;  ///< 1 while an origin accumulates into this rank's memory under the lock
  std::uint32_t pad;
  std::uint64_t fence;  ///< fences this rank has entered
};
inline constexpr std::uint64_t kExclusiveBit = std::uint64_t(1) << 63;

struct Window {
  MPI_Win handle{};
  MPI_Comm comm = MPI_COMM_NULL;  ///< the private duplicate
  CommInfo* info = nullptr;       ///< its CommInfo
  int rank = 0;
  int size = 0;
  std::vector<int> world;  ///< world rank of each window rank

  int flavor = MPI_WIN_FLAVOR_CREATE;
  char* base = nullptr;  ///< this rank's memory
  MPI_Aint bytes = 0;
  MPI_Aint disp_unit = 1;
  std::vector<MPI_Aint> sizes;  ///< every rank's size and disp_unit (all but dynamic windows)
  std::vector<MPI_Aint> units;
  void* allocated = nullptr;             ///< MPI_Win_allocate's memory (freed with the window)
  shm::Segment segment;                  ///< MPI_Win_allocate_shared's memory
  std::vector<MPI_Aint> shared_offsets;  ///< every rank's part in the segment
  std::vector<std::pair<std::uintptr_t, std::size_t>> attached;  ///< dynamic windows
  // Direct windows (see above).
  bool direct = false;
  std::vector<char*> bases;                    ///< every rank's memory, mapped here
  Control* control = nullptr;                  ///< one block per rank
  std::uint64_t* post_counts = nullptr;        ///< [o * size + t]: posts of rank t to origin o
  std::uint64_t* complete_counts = nullptr;    ///< [t * size + o]: completes of origin o to target t
  std::vector<std::uint64_t> posts_taken;      ///< per target: kPost counters consumed (direct)
  std::vector<std::uint64_t> completes_taken;  ///< per origin

  std::string name;
  AttrList attrs;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  Hints hints;
  // What MPI_Win_get_attr returns pointers to.
  MPI_Aint attr_size = 0;
  int attr_disp_unit = 1;
  int attr_flavor = MPI_WIN_FLAVOR_CREATE;
  int attr_model = MPI_WIN_UNIFIED;

  // Origin side: epochs.
  bool fence_epoch = false;
  std::vector<int> locked;            ///< per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
  std::vector<std::uint8_t> nocheck;  ///< per target: locked with MPI_MODE_NOCHECK (no kLock sent)
  bool lock_all = false;
  bool access = false;  ///< a PSCW access epoch (MPI_Win_start)
  std::vector<int> access_group;
  std::vector<std::uint8_t> post_taken;  ///< per target: this access epoch consumed its kPost
  bool exposure = false;                 ///< a PSCW exposure epoch (MPI_Win_post)
  std::vector<int> exposure_group;

  // Origin side: what came back.
  std::vector<std::uint64_t> grants, grants_wanted;  ///< per target
  std::vector<std::uint64_t> acks, acks_wanted;      ///< per target
  std::vector<std::uint32_t> posts;                  ///< per target: kPost not yet consumed
  std::vector<int> remote_class;                     ///< per target: error reported, 0 none
  std::vector<std::string> remote_error;
  std::uint64_t fence_seq = 0;
  std::map<std::uint64_t, int> fence_arrivals;
  std::map<std::uint64_t, int> fence_reports;  ///< dynamic windows: the fence's second round
  int free_arrivals = 0;
  std::uint32_t next_reply = 0;
  std::deque<Reply> replies;

  // Target side.
  std::vector<std::uint32_t> completes;  ///< per origin: kComplete not yet consumed
  int lock_shared = 0;
  bool lock_exclusive = false;
  std::deque<std::pair<int, int>> lock_waiters;  ///< (origin, lock type), in request order
  std::vector<int> error_class_for;              ///< per origin: first error not yet reported
  std::vector<std::string> error_for;

  // Messages in flight.
  std::deque<Incoming> incoming;
  std::deque<Outgoing> outgoing;
  bool in_service = false;
};

/// The live window behind a handle; nullptr for anything else (never dereferences the handle).
Window* find_win(MPI_Win win);
/// Every live window, in creation order (the progress hook serves them; it neither creates nor frees one).
const std::vector<std::unique_ptr<Window>>& live_windows();
/// find_win or MPI_ERR_WIN naming `fn`; also checks MPI is initialized.
Window& check_win(MPI_Win win, const char* fn);

/// The creation of every flavor: collective over `comm` (an intracommunicator). `base`/`size` are
/// this rank's memory for MPI_WIN_FLAVOR_CREATE, the size to allocate for ALLOCATE and SHARED,
/// unused for DYNAMIC. Returns the new window (registered).
/// `given` are the info argument's entries; `info_error` set: the info argument was bad (this rank
/// still takes part in the creation's exchange, so that every rank fails alike).
Window& create_window(const char* fn, int flavor, void* base, MPI_Aint size, MPI_Aint disp_unit,
                      const Hints& given, const std::optional<MpiError>& info_error, MPI_Comm comm);
/// MPI_Win_free: waits until every rank is done with the window, runs the attributes' delete
/// callbacks, frees the duplicate communicator and the memory, unregisters the window.
void free_window(Window& w, const char* fn);

/// The hints a window keeps (the standard's window keys, with their defaults).
Hints win_hints(const Hints& given, const Hints& previous);

// Operations (rma/am.cpp). target may be MPI_PROC_NULL (nothing happens).
struct OpArgs {
  Kind kind = Kind::kPut;
  const void* origin = nullptr;
  std::size_t origin_count = 0;
  MPI_Datatype origin_type = MPI_DATATYPE_NULL;
  void* result = nullptr;  ///< get: the origin buffer; get_accumulate etc.: the result buffer
  std::size_t result_count = 0;
  MPI_Datatype result_type = MPI_DATATYPE_NULL;
  const void* compare = nullptr;  ///< compare_and_swap
  int target = 0;
  MPI_Aint disp = 0;
  std::size_t target_count = 0;
  MPI_Datatype target_type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};
/// Checks and issues one operation; with `wait`, returns once its reply (if any) has arrived.
void issue(Window& w, const OpArgs& a, const char* fn, bool wait);

// Synchronization (rma/am.cpp).
void fence(Window& w, int assert_flags, const char* fn);
void post(Window& w, MPI_Group group, int assert_flags, const char* fn);
void start(Window& w, MPI_Group group, int assert_flags, const char* fn);
void complete(Window& w, const char* fn);
/// MPI_Win_wait (block) or MPI_Win_test (returns whether the epoch ended).
bool wait_exposure(Window& w, bool block, const char* fn);
void lock(Window& w, int lock_type, int target, int assert_flags, const char* fn);
void unlock(Window& w, int target, const char* fn);
void lock_all(Window& w, int assert_flags, const char* fn);
void unlock_all(Window& w, const char* fn);
/// target -1: every rank. local: only the operations' local completion (their replies).
void flush(Window& w, int target, bool local, const char* fn);

/// Window-side progress: installs the engine hook (idempotent).
void install_service();
/// Before freeing: waits for every rank's kFree (the window's last message from it).
void quiesce(Window& w, const char* fn);

}  // namespace takyon::mpi::rma
