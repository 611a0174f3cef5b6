// SPDX-License-Identifier: MIT
// Algorithm selection (see select.hpp). The thresholds suit node-local shared memory, where a
// round costs about a microsecond and bandwidth is a few GB/s per core: latency-bound algorithms
// (log2 p rounds of the whole message) below them, bandwidth-bound ones (about 2x the message
// per rank) above.
#include "coll/select.hpp"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

/// Up to this many ranks, one round with every transfer at once (linear) instead of log2 p or p-1
/// rounds (trees, ring, pairwise): small bcasts, gathers of any block, allgathers and alltoalls above
/// their small-message algorithms. Measured at np 4 on 2 cores (there each round that waits costs a
/// trip through the scheduler): alltoall 6 vs 9 us at 1 KiB and 13 vs 24 us at 4 KiB, allgather 75
/// vs 91-101 us at 64 KiB, 8-byte gather 1.1-1.5 vs 2.0-3.6 us.
constexpr int kLinearMaxRanks = 4;
/// Bcast: scatter+allgather from this many bytes on and from this many ranks on. The binomial root
/// sends the whole message ceil(log2 p) times, scatter+allgather moves about twice it in more rounds:
/// at 4 ranks both move 2x, and the binomial tree's 2 rounds beat 2 + 3 (np 4, 64 KiB, 2 cores:
/// 42 vs 60 us).
constexpr std::size_t kBcastScatterAllgatherMin = 64 * 1024;
constexpr int kBcastScatterAllgatherMinRanks = 5;
/// Bcast: linear (the root sends to each rank, one round, nobody forwards) up to this many bytes on
/// up to kLinearMaxRanks ranks. np 4 on 2 cores, 4-64 KiB: 4.0-12.2 us against the binomial tree's
/// 4.8-16.7 (the tree's forwarding rank is often not running); equal within noise below.
constexpr std::size_t kBcastLinearMax = 64 * 1024;
/// Reduce: linear (every rank sends to the root, one round) up to this many bytes on up to
/// kLinearMaxRanks ranks (commutative ops). np 4 on 2 cores: 5.5-13 us against the binomial tree's
/// 10-18 at 4-64 KiB; 0.2-2.4 against 2.0-3.4 us at 8 B.
constexpr std::size_t kReduceLinearMax = 64 * 1024;
/// Allreduce: recursive doubling below this many bytes; above, Rabenseifner on a power of two ranks
/// and the ring otherwise (the ring has no fold step for the extra ranks).
constexpr std::size_t kAllreduceLargeMin = 16 * 1024;
/// Allreduce: reduce + bcast (two rounds, one message per rank each way) in [min, max] bytes on 3 to
/// kLinearMaxRanks ranks. On 2 cores, 64 KiB: np 4 25-38 us against Rabenseifner's 41-48 (its four
/// rounds each wait for a peer to be scheduled), np 3 26-28 against the ring's 30-32; 32 KiB 17-18
/// against 23-31; at 16 KiB the ring and Rabenseifner are as fast or faster (8-10 vs 10-14).
constexpr std::size_t kAllreduceReduceBcastMin = 32 * 1024;
constexpr std::size_t kAllreduceReduceBcastMax = 64 * 1024;
/// Allgather: recursive doubling (Bruck when p is not a power of two) while the gathered total is
/// below this, the ring above.
constexpr std::size_t kAllgatherRingMin = 64 * 1024;
/// Alltoall: Bruck for blocks up to this size from this many ranks on, pairwise otherwise.
constexpr std::size_t kAlltoallBruckMaxBlock = 256;
constexpr int kAlltoallBruckMinRanks = 4;
/// Gather / Scatter: a binomial tree (log2 p messages at the root, blocks forwarded) for blocks up to
/// this size from 4 ranks on (gather: above kLinearMaxRanks); linear (the root posts one transfer
/// per rank, in place) otherwise.
constexpr std::size_t kRootedBinomialMaxBlock = 4 * 1024;
constexpr int kRootedBinomialMinRanks = 4;
/// Reduce_scatter: an allreduce (then each rank keeps its block) below this many bytes in all, the
/// ring reduce-scatter (half an allreduce's traffic, p-1 steps) above.
constexpr std::size_t kReduceScatterRingMin = 64 * 1024;

/// Flat shared-memory collectives (coll/flat.hpp): up to this many ranks (the flat reductions read
/// every rank's vector on every rank: p^2 lines; measured up to 5) and this many bytes published per
/// rank (scatter, alltoall: p blocks), never more than flat::max_publish. p50 per call, mpi_coll, flat
/// against the schedules (bcast/reduce/gather/scatter linear, allreduce/allgather recursive doubling,
/// alltoall linear at np 2, Bruck at np 4), 2-core VM at load 3-5:
///   np 4 (on 2 cores), 8 B / 4 KiB: barrier 1.64 vs 2.02 us, bcast 1.54 / 1.45 vs 1.77 / 2.34,
///   reduce 0.80 / 1.15 vs 0.97 / 1.41, allreduce 1.78 / 3.99 vs 3.63 / 5.11, gather 0.78 / 1.11 vs
///   0.93 / 1.30, scatter 1.67 / 3.30 vs 1.81 / 3.31, allgather 1.72 / 3.63 vs 2.88 / 5.45, alltoall
///   1.90 / 4.23 vs 2.62 / 7.07: flat wins at every size up to 4 KiB.
///   np 2, 8 B: barrier 0.19 vs 0.26, bcast 0.20 vs 0.24, reduce 0.25 vs 0.27, allreduce 0.31 vs 0.38,
///   gather 0.20 vs 0.25, scatter 0.22 vs 0.35, allgather 0.22 vs 0.37, alltoall 0.23 vs 0.35. At 4 KiB
///   flat still wins for reduce (0.72 vs 0.79), gather (0.65 vs 0.76), scatter (0.92 vs 1.01) and ties
///   alltoall (1.12 vs 1.12), but from 2 KiB on one message each way beats it for bcast (0.56 vs 0.48),
///   allreduce (1.18 vs 1.00) and allgather (1.02 vs 0.89); at 1 KiB they tie (0.42/0.80/0.68 vs
///   0.40/0.80/0.72, medians of 3).
constexpr int kFlatMaxRanks = 16;
constexpr std::size_t kFlatMax = 4096;
constexpr std::size_t kFlatMaxTwoRanks = 1024;  ///< bcast, allreduce, allgather on 2 ranks
/// With more ranks than cores (and more than 2 ranks), the flat collectives up to this many bytes per
/// block (where the communicator has the larger buffers for all it publishes, flat::max_publish): a
/// rank that publishes leaves at once, and a reader copies when it gets a core, where a rendezvous
/// needs both ends running at once.
constexpr std::size_t kFlatMaxOversubscribed = 64 * 1024;
/// Scatter and alltoall (a publisher copies p blocks, and a reader's copy then comes out of the
/// publisher's cache, where the linear schedule reads each block once, straight from the sender's
/// buffer) only up to this many bytes per block. np 4 on 2 cores, mpi_coll p50, 3 alternated runs,
/// flat / linear / Open MPI ob1+vader+CMA: 64 KiB scatter 15.1 / 8.8 / 21.3 us, alltoall 53 / 46 / 110
/// (without the shared heap, CMA: 46 / 19.7 and 212 / 91); 32 KiB scatter 6.7 / 5.6, alltoall
/// 27.8 / 26.1 (a tie); 16 KiB 5.5 / 22.9 and 27 / 104 (below the single-copy rendezvous). The other
/// flat collectives stay ahead at 64 KiB (bcast 6.5 / 6.8 linear, gather 9.6 / 19.1 linear, allgather
/// 38 / 64 ring, allreduce 31 / 89 ring, reduce 11 / 19 linear).
constexpr std::size_t kFlatMaxOversubscribedBlock = 32 * 1024;

/// What TAKYON_MPI_COLL_<NAME> asks for: read once per collective.
struct Forced {
  int index = -1;     ///< into the algorithm names; -1: not forced
  std::string error;  ///< set: the value names no algorithm
};

template <std::size_t N>
Forced read_forced(const char* var, const char* const (&names)[N]) {
  Forced f;
  const char* value = std::getenv(var);
  if (value == nullptr || *value == '\0') return f;
  std::string accepted;
  for (std::size_t i = 0; i < N; ++i) {
    if (std::strcmp(names[i], value) == 0) {
      f.index = int(i);
      return f;
    }
    accepted += (i == 0 ? "" : ", ") + std::string(names[i]);
  }
  f.error = std::string(var) + "=" + value + " names no algorithm (accepted: " + accepted + ")";
  return f;
}

/// The forced algorithm (-1: none); throws MPI_ERR_ARG naming `fn` for a value that names none.
int forced(const Forced& f, const char* fn) {
  if (!f.error.empty()) fail(MPI_ERR_ARG, fn, f.error);
  return f.index;
}

// The accepted names of each collective; "shm" (last) is the flat algorithm (select_flat).
const char* const kBarrierNames[] = {"dissemination", "shm"};
const char* const kBcastNames[] = {"binomial", "scatter_allgather", "linear", "shm"};
const char* const kReduceNames[] = {"binomial", "ordered", "linear", "shm"};
const char* const kAllreduceNames[] = {"recursive_doubling", "rabenseifner", "ring", "reduce_bcast", "shm"};
const char* const kAllgatherNames[] = {"ring", "recursive_doubling", "bruck", "linear", "shm"};
const char* const kAlltoallNames[] = {"pairwise", "bruck", "linear", "shm"};
const char* const kRootedNames[] = {"linear", "binomial", "shm"};

/// Collective k's forced choice (static: the variable is read at its first call).
const Forced& forced_choice(FlatColl k) {
  static const Forced f[] = {
      read_forced("TAKYON_MPI_COLL_BARRIER", kBarrierNames),
      read_forced("TAKYON_MPI_COLL_BCAST", kBcastNames),
      read_forced("TAKYON_MPI_COLL_REDUCE", kReduceNames),
      read_forced("TAKYON_MPI_COLL_ALLREDUCE", kAllreduceNames),
      read_forced("TAKYON_MPI_COLL_GATHER", kRootedNames),
      read_forced("TAKYON_MPI_COLL_SCATTER", kRootedNames),
      read_forced("TAKYON_MPI_COLL_ALLGATHER", kAllgatherNames),
      read_forced("TAKYON_MPI_COLL_ALLTOALL", kAlltoallNames),
  };
  return f[int(k)];
}

/// Collective k's forced schedule algorithm (-1: none, or the flat one, which schedules cannot run).
template <std::size_t N>
int forced_schedule(FlatColl k, const char* const (&/*names*/)[N], const char* fn) {
  int f = forced(forced_choice(k), fn);
  return f == int(N) - 1 ? -1 : f;
}

bool is_pof2(int p) {
  return (p & (p - 1)) == 0;
}

}  // namespace

BcastAlgo select_bcast(std::size_t bytes, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kBcast, kBcastNames, fn);
  if (f >= 0) return BcastAlgo(f);
  if (p <= kLinearMaxRanks && bytes <= kBcastLinearMax) return BcastAlgo::kLinear;
  return bytes >= kBcastScatterAllgatherMin && p >= kBcastScatterAllgatherMinRanks
             ? BcastAlgo::kScatterAllgather
             : BcastAlgo::kBinomial;
}

ReduceAlgo select_reduce(std::size_t bytes, int p, bool commutative, const char* fn) {
  int f = forced_schedule(FlatColl::kReduce, kReduceNames, fn);
  if (!commutative) return ReduceAlgo::kOrdered;
  if (f >= 0) return ReduceAlgo(f);
  return p <= kLinearMaxRanks && bytes <= kReduceLinearMax ? ReduceAlgo::kLinear : ReduceAlgo::kBinomial;
}

AllreduceAlgo select_allreduce(std::size_t bytes, std::size_t count, int p, bool commutative,
                               const char* fn) {
  int f = forced_schedule(FlatColl::kAllreduce, kAllreduceNames, fn);
  if (!commutative) return AllreduceAlgo::kRecursiveDoubling;
  if (f >= 0) return AllreduceAlgo(f);
  if (bytes < kAllreduceLargeMin || count < std::size_t(p)) return AllreduceAlgo::kRecursiveDoubling;
  if (p > 2 && p <= kLinearMaxRanks && bytes >= kAllreduceReduceBcastMin &&
      bytes <= kAllreduceReduceBcastMax) {
    return AllreduceAlgo::kReduceBcast;
  }
  return is_pof2(p) ? AllreduceAlgo::kRabenseifner : AllreduceAlgo::kRing;
}

AllgatherAlgo select_allgather(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kAllgather, kAllgatherNames, fn);
  if (f >= 0) return AllgatherAlgo(f);
  if (block * std::size_t(p) >= kAllgatherRingMin) {
    return p <= kLinearMaxRanks ? AllgatherAlgo::kLinear : AllgatherAlgo::kRing;
  }
  return is_pof2(p) ? AllgatherAlgo::kRecursiveDoubling : AllgatherAlgo::kBruck;
}

AlltoallAlgo select_alltoall(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kAlltoall, kAlltoallNames, fn);
  if (f >= 0) return AlltoallAlgo(f);
  if (block <= kAlltoallBruckMaxBlock && p >= kAlltoallBruckMinRanks) return AlltoallAlgo::kBruck;
  return p <= kLinearMaxRanks ? AlltoallAlgo::kLinear : AlltoallAlgo::kPairwise;
}

ReduceScatterAlgo select_reduce_scatter(std::size_t bytes, int p, bool commutative, const char* fn) {
  static const char* const names[] = {"allreduce", "ring"};
  static const Forced choice = read_forced("TAKYON_MPI_COLL_REDUCE_SCATTER", names);
  int f = forced(choice, fn);
  if (!commutative) return ReduceScatterAlgo::kAllreduce;
  if (f >= 0) return ReduceScatterAlgo(f);
  return bytes >= kReduceScatterRingMin && p > 1 ? ReduceScatterAlgo::kRing : ReduceScatterAlgo::kAllreduce;
}

bool select_flat(FlatColl k, std::size_t bytes, int p, const char* fn) {
  // The index of "shm" (last) in each collective's names, in FlatColl order.
  static constexpr std::size_t kShm[] = {std::size(kBarrierNames) - 1,   std::size(kBcastNames) - 1,
                                         std::size(kReduceNames) - 1,    std::size(kAllreduceNames) - 1,
                                         std::size(kRootedNames) - 1,    std::size(kRootedNames) - 1,
                                         std::size(kAllgatherNames) - 1, std::size(kAlltoallNames) - 1};
  int f = forced(forced_choice(k), fn);
  if (f >= 0) return std::size_t(f) == kShm[int(k)];
  if (p > kFlatMaxRanks) return false;
  const bool one_exchange = k == FlatColl::kBcast || k == FlatColl::kAllreduce || k == FlatColl::kAllgather;
  if (p > 2 && node_oversubscribed()) {
    const bool p_blocks = k == FlatColl::kScatter || k == FlatColl::kAlltoall;  // bytes: p blocks
    return p_blocks ? bytes / std::size_t(p) <= kFlatMaxOversubscribedBlock : bytes <= kFlatMaxOversubscribed;
  }
  return bytes <= (p == 2 && one_exchange ? kFlatMaxTwoRanks : kFlatMax);
}

RootedAlgo select_gather(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kGather, kRootedNames, fn);
  if (f >= 0) return RootedAlgo(f);
  return block <= kRootedBinomialMaxBlock && p > kLinearMaxRanks ? RootedAlgo::kBinomial
                                                                 : RootedAlgo::kLinear;
}

RootedAlgo select_scatter(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kScatter, kRootedNames, fn);
  if (f >= 0) return RootedAlgo(f);
  return block <= kRootedBinomialMaxBlock && p >= kRootedBinomialMinRanks ? RootedAlgo::kBinomial
                                                                          : RootedAlgo::kLinear;
}

}  // namespace takyon::mpi
