// SPDX-License-Identifier: MIT
// A point-to-point operation in flight: what MPI_Request points to. Requests come from a pool
// (no allocation per message); a magic word lets the API reject handles that are not live requests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace takyon::mpi {

inline constexpr int kAnySource = -1;  ///< engine-level wildcards (the API maps MPI_ANY_*)
inline constexpr int kAnyTag = -1;

/// kColl: a nonblocking or persistent collective (coll/schedule.hpp); kGreq: a generalized request
/// (greq.hpp), which the application completes.
enum class RequestKind : std::uint8_t { kSend, kRecv, kColl, kGreq };
enum class SendMode : std::uint8_t { kStandard, kSync, kReady, kBuffered };
/// Where a receive stands (posted -> matched -> complete); cancel works only while kPosted.
enum class RecvState : std::uint8_t { kIdle, kPosted, kMatched };

/// A receive that combines its data into place as it arrives instead of copying it (a collective's
/// receive followed by a reduction, Schedule::start_round). Only the shared-memory bulk pipeline folds:
/// there each chunk is read once, straight from the sender's slot, instead of copied out and read again.
struct Fold {
  /// Combines `bytes` arriving bytes (`data`) at byte offset `at` of the message into place.
  void (*fn)(const void* ctx, const char* data, std::size_t at, std::size_t bytes) = nullptr;
  const void* ctx = nullptr;
  std::size_t item = 0;  ///< bytes per item: a call gets whole items only
};

struct Request {
  static constexpr std::uint32_t kMagic = 0x5245514dU;  // "REQM"
  std::uint32_t magic = 0;

  // --- the operation (set by the API before Engine::start_*) ---
  RequestKind kind = RequestKind::kSend;
  SendMode mode = SendMode::kStandard;
  bool persistent = false;
  bool null_proc = false;  ///< MPI_PROC_NULL: completes at once with an empty status
  void* buf = nullptr;
  std::size_t bytes = 0;           ///< send: message size; receive: buffer capacity
  int peer = 0;                    ///< world rank; receives: or kAnySource
  int tag = 0;                     ///< receives: or kAnyTag
  int ctx = 0;                     ///< communicator context id
  const void* comm = nullptr;      ///< the API's communicator (for error handlers and status ranks)
  const void* datatype = nullptr;  ///< the API's datatype handle (for MPI_Get_count)
  std::unique_ptr<char[]> owned;   ///< MPI_Bsend: the request owns a copy of the data
  // A datatype that is not contiguous: the data moves packed through `owned`.
  std::shared_ptr<const void> dt_hold;  ///< the derived datatype in use (alive after MPI_Type_free)
  /// A send whose caller failed (a collective's or communicator creation's error path) and freed
  /// its own reference: the memory buf points into, kept alive until the engine is done reading it.
  std::shared_ptr<const void> keep;
  void* user_buf = nullptr;  ///< packed: the user's buffer (user_count items of the datatype)
  std::size_t user_count = 0;
  bool packed = false;
  bool delivered = false;  ///< packed receive: already unpacked into user_buf

  // --- state ---
  bool active = false;  ///< started and not yet returned by Wait/Test
  bool complete = false;
  bool freed = false;  ///< MPI_Request_free while active: released when it completes
  bool cancelled = false;
  bool truncated = false;
  /// With `truncated`: the error class of a failed nonblocking collective (0: MPI_ERR_TRUNCATE).
  int error_class = 0;
  RecvState recv_state = RecvState::kIdle;
  int status_source = 0;  ///< world rank
  int status_tag = 0;
  std::size_t status_bytes = 0;
  std::size_t sent_bytes = 0;  ///< receives: the size of the matched message (truncation messages)

  /// MPI_Isendrecv: the receive (the user's request) and its send point at each other; the receive
  /// completes only once both have (Engine::complete), and then releases the send.
  Request* companion = nullptr;
  bool recv_done = false;  ///< with a companion: the receive part is done, the send is not yet

  // --- engine private ---
  bool cancel_asked = false;  ///< sends: MPI_Cancel asked the receiver, no answer yet (pt2pt/cancel.cpp)
  bool cancel_done = false;   ///< with cancel_asked: the transfer itself has completed meanwhile
  Request* prev = nullptr;    ///< posted-receive queue links
  Request* next = nullptr;
  std::uint32_t msg_id = 0;
  std::size_t rndv_total = 0;  ///< rendezvous: bytes to move through the bulk pipeline
  std::size_t rndv_done = 0;
  bool local_work = false;  ///< this rank has local work meanwhile: a split single copy leaves the peer more
  bool fan_in = false;      ///< receives: one of several this rank waits for at once while sending nothing
  bool pipelined =
      false;            ///< receives: through the bulk pipeline, never a single copy (Schedule::start_round)
  Fold fold;            ///< receives: fold the data in if it streams through the bulk pipeline
  bool folded = false;  ///< the engine folded the data (nothing was written to buf); else buf holds it
};

/// Hands out Requests from blocks; single-threaded (the MPI thread).
class RequestPool {
 public:
  RequestPool() = default;
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;
  ~RequestPool() = default;

  Request* acquire();
  void release(Request* r);
  /// Whether `p` points to a live request from this pool (checked without touching foreign memory).
  [[nodiscard]] bool owns_live(const void* p) const;
  [[nodiscard]] std::size_t live() const { return live_; }

 private:
  static constexpr std::size_t kBlock = 256;
  std::vector<std::unique_ptr<Request[]>> blocks_;
  std::vector<Request*> free_;
  std::size_t live_ = 0;
};

}  // namespace takyon::mpi
