// SPDX-License-Identifier: MIT
// The algorithm table (see table.hpp), built from common/coll_algorithms.def.
#include "coll/table.hpp"

#include <stdexcept>
#include <string>

namespace takyon::mpi {
namespace {

namespace coll_id {
// COLLECTIVE (the .def's upper-case name) -> Coll.
constexpr Coll BARRIER = Coll::kBarrier;
constexpr Coll BCAST = Coll::kBcast;
constexpr Coll REDUCE = Coll::kReduce;
constexpr Coll ALLREDUCE = Coll::kAllreduce;
constexpr Coll GATHER = Coll::kGather;
constexpr Coll SCATTER = Coll::kScatter;
constexpr Coll ALLGATHER = Coll::kAllgather;
constexpr Coll ALLTOALL = Coll::kAlltoall;
constexpr Coll REDUCE_SCATTER = Coll::kReduceScatter;
}  // namespace coll_id

constexpr Algorithm kAlgorithms[] = {
#define TAKYON_COLL_ALGORITHM(COLL, coll, name) {coll_id::COLL, #name, &coll##_##name},
#define TAKYON_COLL_FLAT(COLL)
#include "common/coll_algorithms.def"
#undef TAKYON_COLL_ALGORITHM
#undef TAKYON_COLL_FLAT
};

}  // namespace

std::span<const Algorithm> algorithms() {
  return kAlgorithms;
}

int algorithm_count(Coll c) {
  int n = 0;
  for (const Algorithm& a : kAlgorithms) n += a.coll == c ? 1 : 0;
  return n;
}

const Algorithm& algorithm_at(Coll c, int index) {
  for (const Algorithm& a : kAlgorithms) {
    if (a.coll == c && index-- == 0) return a;
  }
  throw std::logic_error("collective " + std::to_string(int(c)) + " has no algorithm at that index");
}

const Algorithm& algorithm_named(Coll c, std::string_view name) {
  for (const Algorithm& a : kAlgorithms) {
    if (a.coll == c && name == a.name) return a;
  }
  throw std::logic_error("collective " + std::to_string(int(c)) + " has no algorithm '" + std::string(name) +
                         "'");
}

}  // namespace takyon::mpi
