// SPDX-License-Identifier: MIT
// The collective algorithms as common/coll_algorithms.def lists them: one row per algorithm, each a
// function `void <collective>_<name>(Schedule&, const CollArgs&)` in coll/<collective>_<name>.cpp.
// The selection (coll/select.cpp) returns a row; the collectives (coll/build.cpp) fill CollArgs and
// run it. Adding an algorithm: its file and its row in coll_algorithms.def.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "coll/algorithms.hpp"

namespace takyon::mpi {

/// The collectives that have algorithms to choose from (all also have a flat form: coll/flat.hpp),
/// in common/coll_algorithms.def's order.
enum class Coll : std::uint8_t {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kScatter,
  kAllgather,
  kAlltoall,
  kReduceScatter,
};

/// What an algorithm works on. Each collective fills the fields its algorithms read:
///   bcast           buf (every rank's), bytes, root
///   reduce          send, recv (the root's; nullptr elsewhere), reduce, root
///   allreduce       send, recv, reduce
///   reduce_scatter  send (the whole vector), recv (this rank's block), reduce (of the whole vector),
///                   counts (items per rank)
///   gather          own (this rank's block; nullptr in place at the root), own_bytes, blocks (the
///                   root's receive blocks, one per rank, block bytes each), block, root
///   scatter         own_out (this rank's receive block; nullptr in place at the root), own_bytes,
///                   blocks (the root's send blocks), block, root
///   allgather       recv (p blocks of block bytes, rank i's at i * block), send (this rank's block,
///                   which the algorithm puts into place; nullptr: in place, already there)
///   alltoall        send, recv (p blocks of block bytes each)
struct CollArgs {
  char* buf = nullptr;
  const char* send = nullptr;
  char* recv = nullptr;
  std::size_t bytes = 0;
  std::size_t block = 0;
  int root = 0;
  const ReduceSpec* reduce = nullptr;
  const std::vector<std::size_t>* counts = nullptr;
  const Blocks* blocks = nullptr;
  const char* own = nullptr;
  char* own_out = nullptr;
  std::size_t own_bytes = 0;
};

using CollFn = void (*)(Schedule& s, const CollArgs& a);

/// One row of common/coll_algorithms.def.
struct Algorithm {
  Coll coll;
  const char* name;  ///< what TAKYON_MPI_COLL_<COLLECTIVE> forces
  CollFn run;
};

/// Every algorithm, in common/coll_algorithms.def's order.
[[nodiscard]] std::span<const Algorithm> algorithms();
/// How many algorithms collective `c` has (its flat form not counted).
[[nodiscard]] int algorithm_count(Coll c);
/// Collective `c`'s `index`-th algorithm (0 .. algorithm_count(c) - 1).
[[nodiscard]] const Algorithm& algorithm_at(Coll c, int index);
/// Collective `c`'s algorithm `name`; std::logic_error if it has none of that name (a selection rule
/// naming an algorithm that was removed from the table).
[[nodiscard]] const Algorithm& algorithm_named(Coll c, std::string_view name);

// The algorithms' entry points, one per row (defined in their files).
#define TAKYON_COLL_ALGORITHM(COLL, coll, name) void coll##_##name(Schedule& s, const CollArgs& a);
#define TAKYON_COLL_FLAT(COLL)
#include "common/coll_algorithms.def"
#undef TAKYON_COLL_ALGORITHM
#undef TAKYON_COLL_FLAT

}  // namespace takyon::mpi
