// SPDX-License-Identifier: MIT
// Algorithm selection (see select.hpp). The thresholds are knobs (common/knobs.cpp): latency-bound
// algorithms (log2 p rounds of the whole message) below them, bandwidth-bound ones (about 2x the
// message per rank) above; their defaults suit node-local shared memory.
#include "coll/select.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "common/knobs.hpp"

#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

using common::KnobId;

/// The selection thresholds (knobs TAKYON_MPI_COLL_*: common/knobs.cpp says what each does and why its
/// default), read once at the first collective; MPI_Init has checked their values.
struct Thresholds {
  int linear_max_ranks;
  std::size_t bcast_scatter_allgather_min;
  int bcast_scatter_allgather_min_ranks;
  std::size_t bcast_linear_max;
  std::size_t reduce_linear_max;
  std::size_t allreduce_large_min;
  std::size_t allreduce_reduce_bcast_min;
  std::size_t allreduce_reduce_bcast_max;
  std::size_t allgather_ring_min;
  std::size_t alltoall_bruck_max_block;
  int alltoall_bruck_min_ranks;
  std::size_t rooted_binomial_max_block;
  int rooted_binomial_min_ranks;
  std::size_t reduce_scatter_ring_min;
  int flat_max_ranks;
  std::size_t flat_max;
  std::size_t flat_max_two_ranks;
  std::size_t flat_max_oversubscribed;
  std::size_t flat_max_oversubscribed_block;
};

const Thresholds& th() {
  static const Thresholds t = [] {
    auto n = [](KnobId id) { return int(common::knob_integer(id)); };
    auto b = [](KnobId id) { return std::size_t(common::knob_integer(id)); };
    return Thresholds{n(KnobId::kCollLinearMaxRanks),
                      b(KnobId::kCollBcastScatterAllgatherMin),
                      n(KnobId::kCollBcastScatterAllgatherMinRanks),
                      b(KnobId::kCollBcastLinearMax),
                      b(KnobId::kCollReduceLinearMax),
                      b(KnobId::kCollAllreduceLargeMin),
                      b(KnobId::kCollAllreduceReduceBcastMin),
                      b(KnobId::kCollAllreduceReduceBcastMax),
                      b(KnobId::kCollAllgatherRingMin),
                      b(KnobId::kCollAlltoallBruckMaxBlock),
                      n(KnobId::kCollAlltoallBruckMinRanks),
                      b(KnobId::kCollRootedBinomialMaxBlock),
                      n(KnobId::kCollRootedBinomialMinRanks),
                      b(KnobId::kCollReduceScatterRingMin),
                      n(KnobId::kCollFlatMaxRanks),
                      b(KnobId::kCollFlatMax),
                      b(KnobId::kCollFlatMaxTwoRanks),
                      b(KnobId::kCollFlatMaxOversubscribed),
                      b(KnobId::kCollFlatMaxOversubscribedBlock)};
  }();
  return t;
}

/// What TAKYON_MPI_COLL_<NAME> forces: an index into the collective's algorithms (the knob's choices
/// after "auto"; -1: not forced), or why its value names none. Read once per collective.
struct Forced {
  int index = -1;
  std::string error;
};

Forced read_forced(KnobId id) {
  try {
    return {common::knob_choice(id) - 1, {}};
  } catch (const common::KnobError& e) {
    return {-1, e.what()};
  }
}

/// The forced algorithm (-1: none); throws MPI_ERR_ARG naming `fn` for a value that names none.
int forced(const Forced& f, const char* fn) {
  if (!f.error.empty()) fail(MPI_ERR_ARG, fn, f.error);
  return f.index;
}

/// The knob that forces collective k's algorithm.
constexpr KnobId kForcedKnob[] = {KnobId::kCollBarrier,   KnobId::kCollBcast,   KnobId::kCollReduce,
                                  KnobId::kCollAllreduce, KnobId::kCollGather,  KnobId::kCollScatter,
                                  KnobId::kCollAllgather, KnobId::kCollAlltoall};

/// Collective k's forced choice; "shm" is the last algorithm of each.
int forced_choice(FlatColl k, const char* fn) {
  static const Forced f[] = {read_forced(kForcedKnob[0]), read_forced(kForcedKnob[1]),
                             read_forced(kForcedKnob[2]), read_forced(kForcedKnob[3]),
                             read_forced(kForcedKnob[4]), read_forced(kForcedKnob[5]),
                             read_forced(kForcedKnob[6]), read_forced(kForcedKnob[7])};
  return forced(f[int(k)], fn);
}

/// The number of algorithms of collective k (its knob's choices but "auto"); the last is "shm".
int algorithm_count(FlatColl k) {
  const std::string_view choices = common::knob(kForcedKnob[int(k)]).choices;
  return int(std::count(choices.begin(), choices.end(), '|'));
}

/// Collective k's forced schedule algorithm (-1: none, or the flat one, which schedules cannot run).
int forced_schedule(FlatColl k, const char* fn) {
  const int f = forced_choice(k, fn);
  return f == algorithm_count(k) - 1 ? -1 : f;
}

bool is_pof2(int p) {
  return (p & (p - 1)) == 0;
}

}  // namespace

BcastAlgo select_bcast(std::size_t bytes, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kBcast, fn);
  if (f >= 0) return BcastAlgo(f);
  if (p <= th().linear_max_ranks && bytes <= th().bcast_linear_max) return BcastAlgo::kLinear;
  return bytes >= th().bcast_scatter_allgather_min && p >= th().bcast_scatter_allgather_min_ranks
             ? BcastAlgo::kScatterAllgather
             : BcastAlgo::kBinomial;
}

ReduceAlgo select_reduce(std::size_t bytes, int p, bool commutative, const char* fn) {
  int f = forced_schedule(FlatColl::kReduce, fn);
  if (!commutative) return ReduceAlgo::kOrdered;
  if (f >= 0) return ReduceAlgo(f);
  return p <= th().linear_max_ranks && bytes <= th().reduce_linear_max ? ReduceAlgo::kLinear
                                                                       : ReduceAlgo::kBinomial;
}

AllreduceAlgo select_allreduce(std::size_t bytes, std::size_t count, int p, bool commutative,
                               const char* fn) {
  int f = forced_schedule(FlatColl::kAllreduce, fn);
  if (!commutative) return AllreduceAlgo::kRecursiveDoubling;
  if (f >= 0) return AllreduceAlgo(f);
  if (bytes < th().allreduce_large_min || count < std::size_t(p)) return AllreduceAlgo::kRecursiveDoubling;
  if (p > 2 && p <= th().linear_max_ranks && bytes >= th().allreduce_reduce_bcast_min &&
      bytes <= th().allreduce_reduce_bcast_max) {
    return AllreduceAlgo::kReduceBcast;
  }
  return is_pof2(p) ? AllreduceAlgo::kRabenseifner : AllreduceAlgo::kRing;
}

AllgatherAlgo select_allgather(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kAllgather, fn);
  if (f >= 0) return AllgatherAlgo(f);
  if (block * std::size_t(p) >= th().allgather_ring_min) {
    return p <= th().linear_max_ranks ? AllgatherAlgo::kLinear : AllgatherAlgo::kRing;
  }
  return is_pof2(p) ? AllgatherAlgo::kRecursiveDoubling : AllgatherAlgo::kBruck;
}

AlltoallAlgo select_alltoall(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kAlltoall, fn);
  if (f >= 0) return AlltoallAlgo(f);
  if (block <= th().alltoall_bruck_max_block && p >= th().alltoall_bruck_min_ranks)
    return AlltoallAlgo::kBruck;
  return p <= th().linear_max_ranks ? AlltoallAlgo::kLinear : AlltoallAlgo::kPairwise;
}

ReduceScatterAlgo select_reduce_scatter(std::size_t bytes, int p, bool commutative, const char* fn) {
  static const Forced choice = read_forced(KnobId::kCollReduceScatter);
  const int f = forced(choice, fn);
  if (!commutative) return ReduceScatterAlgo::kAllreduce;
  if (f >= 0) return ReduceScatterAlgo(f);
  return bytes >= th().reduce_scatter_ring_min && p > 1 ? ReduceScatterAlgo::kRing
                                                        : ReduceScatterAlgo::kAllreduce;
}

bool select_flat(FlatColl k, std::size_t bytes, int p, const char* fn) {
  const int f = forced_choice(k, fn);
  if (f >= 0) return f == algorithm_count(k) - 1;  // "shm" is the last algorithm
  if (p > th().flat_max_ranks) return false;
  const bool one_exchange = k == FlatColl::kBcast || k == FlatColl::kAllreduce || k == FlatColl::kAllgather;
  if (p > 2 && node_oversubscribed()) {
    const bool p_blocks = k == FlatColl::kScatter || k == FlatColl::kAlltoall;  // bytes: p blocks
    return p_blocks ? bytes / std::size_t(p) <= th().flat_max_oversubscribed_block
                    : bytes <= th().flat_max_oversubscribed;
  }
  return bytes <= (p == 2 && one_exchange ? th().flat_max_two_ranks : th().flat_max);
}

RootedAlgo select_gather(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kGather, fn);
  if (f >= 0) return RootedAlgo(f);
  return block <= th().rooted_binomial_max_block && p > th().linear_max_ranks ? RootedAlgo::kBinomial
                                                                              : RootedAlgo::kLinear;
}

RootedAlgo select_scatter(std::size_t block, int p, const char* fn) {
  int f = forced_schedule(FlatColl::kScatter, fn);
  if (f >= 0) return RootedAlgo(f);
  return block <= th().rooted_binomial_max_block && p >= th().rooted_binomial_min_ranks
             ? RootedAlgo::kBinomial
             : RootedAlgo::kLinear;
}

}  // namespace takyon::mpi
