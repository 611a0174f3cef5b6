// SPDX-License-Identifier: MIT
// Algorithm selection (see select.hpp). The thresholds are knobs (common/knobs.cpp): latency-bound
// algorithms (log2 p rounds of the whole message) below them, bandwidth-bound ones (about 2x the
// message per rank) above; their defaults suit node-local shared memory.
#include "coll/select.hpp"

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

/// The knob that forces collective k's algorithm, in Coll order.
constexpr KnobId kForcedKnob[] = {KnobId::kCollBarrier,   KnobId::kCollBcast,    KnobId::kCollReduce,
                                  KnobId::kCollAllreduce, KnobId::kCollGather,   KnobId::kCollScatter,
                                  KnobId::kCollAllgather, KnobId::kCollAlltoall, KnobId::kCollReduceScatter};

/// Collective k's forced choice: an index into its algorithms (algorithm_count(k): "shm", the flat
/// form), or -1.
int forced_choice(Coll k, const char* fn) {
  static const Forced f[] = {
      read_forced(kForcedKnob[0]), read_forced(kForcedKnob[1]), read_forced(kForcedKnob[2]),
      read_forced(kForcedKnob[3]), read_forced(kForcedKnob[4]), read_forced(kForcedKnob[5]),
      read_forced(kForcedKnob[6]), read_forced(kForcedKnob[7]), read_forced(kForcedKnob[8])};
  return forced(f[int(k)], fn);
}

/// Collective k's forced algorithm; nullptr when none is forced, or the flat form (which schedules
/// cannot run).
const Algorithm* forced_schedule(Coll k, const char* fn) {
  const int f = forced_choice(k, fn);
  return f >= 0 && f < algorithm_count(k) ? &algorithm_at(k, f) : nullptr;
}

bool is_pof2(int p) {
  return (p & (p - 1)) == 0;
}

}  // namespace

const Algorithm& select_bcast(std::size_t bytes, int p, const char* fn) {
  static const Algorithm& binomial = algorithm_named(Coll::kBcast, "binomial");
  static const Algorithm& scatter_allgather = algorithm_named(Coll::kBcast, "scatter_allgather");
  static const Algorithm& linear = algorithm_named(Coll::kBcast, "linear");
  if (const Algorithm* f = forced_schedule(Coll::kBcast, fn)) return *f;
  if (p <= th().linear_max_ranks && bytes <= th().bcast_linear_max) return linear;
  return bytes >= th().bcast_scatter_allgather_min && p >= th().bcast_scatter_allgather_min_ranks
             ? scatter_allgather
             : binomial;
}

const Algorithm& select_reduce(std::size_t bytes, int p, bool commutative, const char* fn) {
  static const Algorithm& binomial = algorithm_named(Coll::kReduce, "binomial");
  static const Algorithm& ordered = algorithm_named(Coll::kReduce, "ordered");
  static const Algorithm& linear = algorithm_named(Coll::kReduce, "linear");
  const Algorithm* f = forced_schedule(Coll::kReduce, fn);
  if (!commutative) return ordered;
  if (f != nullptr) return *f;
  return p <= th().linear_max_ranks && bytes <= th().reduce_linear_max ? linear : binomial;
}

const Algorithm& select_allreduce(std::size_t bytes, std::size_t count, int p, bool commutative,
                                  const char* fn) {
  static const Algorithm& recursive_doubling = algorithm_named(Coll::kAllreduce, "recursive_doubling");
  static const Algorithm& rabenseifner = algorithm_named(Coll::kAllreduce, "rabenseifner");
  static const Algorithm& ring = algorithm_named(Coll::kAllreduce, "ring");
  static const Algorithm& reduce_bcast = algorithm_named(Coll::kAllreduce, "reduce_bcast");
  const Algorithm* f = forced_schedule(Coll::kAllreduce, fn);
  if (!commutative) return recursive_doubling;
  if (f != nullptr) return *f;
  if (bytes < th().allreduce_large_min || count < std::size_t(p)) return recursive_doubling;
  if (p > 2 && p <= th().linear_max_ranks && bytes >= th().allreduce_reduce_bcast_min &&
      bytes <= th().allreduce_reduce_bcast_max) {
    return reduce_bcast;
  }
  return is_pof2(p) ? rabenseifner : ring;
}

const Algorithm& select_allgather(std::size_t block, int p, const char* fn) {
  static const Algorithm& ring = algorithm_named(Coll::kAllgather, "ring");
  static const Algorithm& recursive_doubling = algorithm_named(Coll::kAllgather, "recursive_doubling");
  static const Algorithm& bruck = algorithm_named(Coll::kAllgather, "bruck");
  static const Algorithm& linear = algorithm_named(Coll::kAllgather, "linear");
  if (const Algorithm* f = forced_schedule(Coll::kAllgather, fn)) return *f;
  if (block * std::size_t(p) >= th().allgather_ring_min) return p <= th().linear_max_ranks ? linear : ring;
  return is_pof2(p) ? recursive_doubling : bruck;
}

const Algorithm& select_alltoall(std::size_t block, int p, const char* fn) {
  static const Algorithm& pairwise = algorithm_named(Coll::kAlltoall, "pairwise");
  static const Algorithm& bruck = algorithm_named(Coll::kAlltoall, "bruck");
  static const Algorithm& linear = algorithm_named(Coll::kAlltoall, "linear");
  if (const Algorithm* f = forced_schedule(Coll::kAlltoall, fn)) return *f;
  if (block <= th().alltoall_bruck_max_block && p >= th().alltoall_bruck_min_ranks) return bruck;
  return p <= th().linear_max_ranks ? linear : pairwise;
}

const Algorithm& select_reduce_scatter(std::size_t bytes, int p, bool commutative, const char* fn) {
  static const Algorithm& allreduce = algorithm_named(Coll::kReduceScatter, "allreduce");
  static const Algorithm& ring = algorithm_named(Coll::kReduceScatter, "ring");
  const Algorithm* f = forced_schedule(Coll::kReduceScatter, fn);
  if (!commutative) return allreduce;
  if (f != nullptr) return *f;
  // Two ranks: the ring is one exchange of a block and one reduction, against an allreduce of both.
  return (bytes >= th().reduce_scatter_ring_min || p == 2) && p > 1 ? ring : allreduce;
}

bool select_flat(Coll k, std::size_t bytes, int p, const char* fn) {
  const int f = forced_choice(k, fn);
  if (f >= 0) return f == algorithm_count(k);  // "shm", after the table's algorithms
  if (p > th().flat_max_ranks) return false;
  if (p > 2 && node_oversubscribed()) {
    const bool p_blocks = k == Coll::kScatter || k == Coll::kAlltoall;  // bytes: p blocks
    return p_blocks ? bytes / std::size_t(p) <= th().flat_max_oversubscribed_block
                    : bytes <= th().flat_max_oversubscribed;
  }
  const bool reduces = k == Coll::kReduce || k == Coll::kReduceScatter;
  return bytes <= (p == 2 && !reduces ? th().flat_max_two_ranks : th().flat_max);
}

const Algorithm& select_gather(std::size_t block, int p, const char* fn) {
  static const Algorithm& linear = algorithm_named(Coll::kGather, "linear");
  static const Algorithm& binomial = algorithm_named(Coll::kGather, "binomial");
  if (const Algorithm* f = forced_schedule(Coll::kGather, fn)) return *f;
  return block <= th().rooted_binomial_max_block && p > th().linear_max_ranks ? binomial : linear;
}

const Algorithm& select_scatter(std::size_t block, int p, const char* fn) {
  static const Algorithm& linear = algorithm_named(Coll::kScatter, "linear");
  static const Algorithm& binomial = algorithm_named(Coll::kScatter, "binomial");
  if (const Algorithm* f = forced_schedule(Coll::kScatter, fn)) return *f;
  return block <= th().rooted_binomial_max_block && p >= th().rooted_binomial_min_ranks ? binomial : linear;
}

}  // namespace takyon::mpi
