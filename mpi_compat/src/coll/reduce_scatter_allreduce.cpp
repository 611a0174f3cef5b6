// SPDX-License-Identifier: MIT
// Reduce-scatter by allreduce: every rank reduces the whole vector (the allreduce the selection picks
// for its size) and keeps its own block. Twice the ring's traffic, but in the allreduce's few rounds:
// the choice for small vectors, and the only one for non-commutative ops (the allreduce keeps rank
// order).
#include "coll/algorithms.hpp"
#include "coll/select.hpp"
#include "coll/table.hpp"
#include "op/op.hpp"

namespace takyon::mpi {

void reduce_scatter_allreduce(Schedule& s, const CollArgs& a) {
  const ReduceSpec& r = *a.reduce;
  char* whole = s.scratch(r.bytes());
  CollArgs all;
  all.send = a.send;
  all.recv = whole;
  all.reduce = &r;
  select_allreduce(r.bytes(), r.count, s.size(), op_commutative(r.op), s.fn()).run(s, all);
  std::size_t first = 0;
  for (int i = 0; i < s.rank(); ++i) first += (*a.counts)[std::size_t(i)];
  s.copy(whole + first * r.item, a.recv, (*a.counts)[std::size_t(s.rank())] * r.item);
  s.next_round();
}

}  // namespace takyon::mpi
