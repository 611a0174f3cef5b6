// SPDX-License-Identifier: MIT
// A collective as a schedule: rounds of point-to-point sends and receives in the communicator's
// collective context, each followed by local steps (copy, reduce, unpack) that run once every
// transfer of the round has completed. Algorithms (one per file in coll/) only build schedules;
// a blocking collective runs its schedule to the end, a nonblocking one hands it to an MPI_Request
// that MPI_Wait/Test (and every other call that progresses the engine) advance.
//
// Every schedule of a communicator takes the next value of CommInfo::coll_seq (mod 2^30) as its tag, so
// back-to-back and overlapping collectives never match each other's messages (all ranks start the
// collectives of a communicator in the same order, as MPI requires).
// Single-threaded: the MPI thread only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/comm.hpp"
#include "mpi.h"

namespace takyon::mpi {

struct Request;

/// A vector whose first N elements live inline (no allocation for the small schedules of small
/// collectives); past N it moves to the heap. T: trivially copyable.
template <class T, std::size_t N>
class SmallVec {  // NOLINT(cppcoreguidelines-special-member-functions): a move is the copy of what is in use
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  SmallVec() = default;
  /// Copies only the elements in use (the rest of the inline array is never read).
  SmallVec(const SmallVec& o) {
    for (const T& v : o) push_back(v);
  }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) {
      clear();
      for (const T& v : o) push_back(v);
    }
    return *this;
  }
  ~SmallVec() = default;
  void push_back(const T& v) {
    if (heap_.empty() && size_ < N) {
      inline_.items[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.items, inline_.items + N);
    heap_.push_back(v);
    ++size_;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  T* begin() { return heap_.empty() ? inline_.items : heap_.data(); }
  T* end() { return begin() + size_; }
  const T* begin() const { return heap_.empty() ? inline_.items : heap_.data(); }
  const T* end() const { return begin() + size_; }
  T* data() { return begin(); }
  const T* data() const { return begin(); }
  T& operator[](std::size_t i) { return begin()[i]; }
  const T& operator[](std::size_t i) const { return begin()[i]; }
  const T& back() const { return begin()[size_ - 1]; }
  void clear() {
    size_ = 0;
    heap_.clear();
  }

 private:
  // Left uninitialized: a schedule is built per collective call, and constructing N elements (the
  // defaults of Schedule::Step) was a tenth of a small nonblocking collective's time. Elements are
  // only read once push_back assigned them (T's assignment is trivial, which begins their lifetime).
  union Storage {
    Storage() {}  // NOLINT(modernize-use-equals-default): = default would initialize the elements
    T items[N];
  } inline_;
  std::vector<T> heap_;
  std::size_t size_ = 0;
};

class Schedule {
 public:
  /// A schedule of collective `fn` on `c`; takes the communicator's next collective tag.
  Schedule(CommInfo& c, const char* fn);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  ~Schedule();
  /// Schedules are recycled (a few freed ones are kept): a collective call allocates nothing.
  static void* operator new(std::size_t bytes);
  static void operator delete(void* p);

  [[nodiscard]] CommInfo& comm() const { return *comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] const char* fn() const { return fn_; }

  /// Ends the current round: later steps wait until its transfers and local steps are done.
  void next_round();
  /// Transfers of the current round (peer: a rank of the communicator). A receive must get exactly
  /// `bytes`; anything else is an error naming the peer (counts or datatypes differ across ranks).
  void send(int peer, const void* buf, std::size_t bytes);
  void recv(int peer, void* buf, std::size_t bytes);
  /// Local steps of the current round, run in order after its transfers.
  void copy(const void* src, void* dst, std::size_t bytes);
  /// A copy that does not depend on the round's transfers: it runs as soon as they have started,
  /// overlapping them (and the round's receives let their senders copy more of a split, engine.hpp).
  void copy_early(const void* src, void* dst, std::size_t bytes);
  /// inout = in op inout for `count` items of `dt`.
  void reduce(const void* in, void* inout, std::size_t count, MPI_Datatype dt, MPI_Op op);
  /// Unpacks `count` items of `dt` from packed bytes into `buf` (datatype::unpack).
  void unpack(const void* in, std::size_t count, MPI_Datatype dt, void* buf);
  /// Packs `count` items of `dt` at `buf` into `packed` each time the schedule starts, before its
  /// first round: the data a collective reads is the user's buffer at that moment (a persistent
  /// collective packs it again at every MPI_Start).
  void pack(const void* buf, std::size_t count, MPI_Datatype dt, char* packed);
  /// Scratch memory that lives as long as the schedule.
  char* scratch(std::size_t bytes);

  /// Starts the next rounds as far as completed transfers allow; true once everything is done.
  /// Throws MpiError naming the collective when a message does not have the expected size.
  bool advance();
  /// Blocking: advances until done, progressing the engine.
  void run();
  /// Makes a finished (or failed, then abandon()ed) schedule runnable again from its first round,
  /// with the same tag, buffers and algorithm: a persistent collective's MPI_Start.
  void rewind();
  /// After a failure: gives up the transfers in flight as the destructor does (receives abandoned,
  /// sends left to complete), so that nothing writes into the buffers once the error is reported.
  void abandon();

 private:
  struct Step {
    enum class Kind : unsigned char { kSend, kRecv, kCopy, kReduce, kUnpack, kCopyEarly, kPack } kind;
    int peer = 0;
    const void* src = nullptr;
    void* dst = nullptr;
    std::size_t bytes = 0;
    std::size_t count = 0;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    const void* type = nullptr;  ///< kPack, kUnpack of a derived datatype: its Type, held in held_
  };
  /// The derived datatype `dt` kept alive for this schedule (its Type; nullptr: predefined), so that
  /// a persistent collective's packing outlives an MPI_Type_free after its init call.
  const void* hold(MPI_Datatype dt);
  void start_round();
  bool finish_round();
  /// Whether the schedule both receives and reduces (start_round's default for the pipeline).
  [[nodiscard]] bool receives_to_reduce() const;
  /// Whether some round receives from a peer it also sends to (the copy tuner's exchanges).
  [[nodiscard]] bool exchanges() const;
  /// Before a failed schedule's destruction: a send still in flight whose data is in this schedule's
  /// scratch keeps it (Request::keep, or a copy of inline scratch in Request::owned).
  void keep_send_data(Request& r);
  /// Picks the round's reduction to fold into its receive (fold_), if it has one that can be.
  void plan_fold(std::size_t begin, std::size_t end);
  /// Which scratch memory holds [buf, buf+bytes): kInline (inline_scratch_), an index into scratch_,
  /// or kNotScratch.
  static constexpr int kInline = -1;
  static constexpr int kNotScratch = -2;
  [[nodiscard]] int scratch_of(const void* buf, std::size_t bytes) const;
  /// Whether [buf, buf+bytes) is scratch memory whose contents no step reads after this round's
  /// receive `skip_a` and reduction `skip_b` (before a later receive overwrites it whole).
  [[nodiscard]] bool dead_scratch(const void* buf, std::size_t bytes, std::size_t skip_a,
                                  std::size_t skip_b) const;
  /// Fold::fn for fold_: combines arriving bytes into place.
  static void fold_data(const void* ctx, const char* data, std::size_t at, std::size_t bytes);
  /// A copy step of `kind` (kCopy or kCopyEarly); none for nothing to copy.
  void add_copy(Step::Kind kind, const void* src, void* dst, std::size_t bytes);

  CommInfo* comm_;
  const char* fn_;
  int rank_;
  int size_;
  int tag_;
  SmallVec<Step, 24> steps_;
  SmallVec<std::size_t, 16> round_end_;  ///< index into steps_ where each round ends
  SmallVec<Step, 4> packs_;              ///< kPack steps, run when the first round starts
  std::size_t round_ = 0;                ///< the round in progress
  bool started_ = false;
  int pipelined_ = -1;            ///< whether the receives take the bulk pipeline (-1: not decided yet)
  std::size_t recv_largest_ = 0;  ///< the largest receive step's bytes (the copy tuner's key)
  std::size_t recv_total_ = 0;    ///< all receive steps' bytes
  struct Inflight {
    Request* req;
    std::size_t step;
  };
  SmallVec<Inflight, 16> inflight_;
  /// The current round's reduction folded into one of its receives as the data arrives, when that
  /// receive streams through the bulk pipeline (Request::fold): `out = other op data` (data_is_x false)
  /// or `out = data op out` (true). Its reduce step is skipped once the request says it folded.
  struct FoldPlan {
    std::size_t recv_step = 0;
    std::size_t reduce_step = 0;
    const char* other = nullptr;
    char* out = nullptr;
    bool data_is_x = false;
    MPI_Op op = MPI_OP_NULL;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    std::size_t item = 0;
    bool active = false;
  };
  FoldPlan fold_;
  /// Keeps what a step names by handle usable until the schedule is done, though the program may free
  /// it right after the call that started the collective (derived datatypes, user ops).
  void hold(std::shared_ptr<const void> object);
  std::vector<std::shared_ptr<const void>> held_;
  /// Shared so that a send still in flight when a failed collective's schedule is destroyed keeps
  /// the block it reads from (Request::keep).
  struct ScratchBlock {
    std::shared_ptr<char[]> data;
    std::size_t bytes;
  };
  std::vector<ScratchBlock> scratch_;
  /// Small collectives take their scratch memory from here: no allocation per call.
  static constexpr std::size_t kInlineScratch = 512;
  alignas(16) char inline_scratch_[kInlineScratch];
  std::size_t inline_used_ = 0;
};

/// Runs `s` as the nonblocking collective behind a new MPI request (kind kColl), returned as handle.
MPI_Request start_nonblocking(std::unique_ptr<Schedule> s);
/// A persistent collective (MPI_Bcast_init and the other MPI_*_init collectives): an inactive request
/// of kind kColl that keeps `s`, built once, and runs it again at each start_persistent.
MPI_Request make_persistent(std::unique_ptr<Schedule> s);
/// MPI_Start of an inactive persistent collective request: its schedule rewound and handed to progress.
void start_persistent(Request& r);
/// MPI_Request_free of an inactive persistent collective request: released with its schedule.
void free_persistent(Request& r);
/// Why the nonblocking collective behind `r` failed (it completed with r->truncated set, reported as
/// MPI_ERR_TRUNCATE); forgets it.
std::string take_nonblocking_error(const Request* r);
/// Advances every nonblocking collective in flight (called at the end of each Engine::progress()).
bool progress_nonblocking();

}  // namespace takyon::mpi
