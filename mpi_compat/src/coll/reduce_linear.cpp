// SPDX-License-Identifier: MIT
// Linear reduce (commutative ops): every other rank sends its vector to the root in one round and
// is done; the root receives them all at once (the first straight into recv, the others into
// scratch) and combines them afterwards. For few ranks: no rank waits for another non-root (on a
// node with more ranks than cores the binomial tree's inner rank is often not running).
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void reduce_linear(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root) {
  int p = s.size();
  int rank = s.rank();
  std::size_t bytes = r.bytes();
  if (rank != root) {
    s.send(root, send, bytes);
    s.next_round();
    return;
  }
  bool in_place = send == recv;
  int others = p - 1;
  // Without MPI_IN_PLACE the first other rank's vector lands in recv and takes the root's after.
  int in_scratch = in_place ? others : others - 1;
  char* tmp = in_scratch > 0 ? s.scratch(bytes * std::size_t(in_scratch)) : nullptr;
  int slot = 0;
  bool first = !in_place;
  for (int k = 1; k < p; ++k) {
    int from = (root + k) % p;
    if (first) {
      s.recv(from, recv, bytes);
      first = false;
    } else {
      s.recv(from, tmp + std::size_t(slot++) * bytes, bytes);
    }
  }
  if (!in_place && others > 0) s.reduce(send, recv, r.count, r.dt, r.op);  // recv = mine op first
  if (!in_place && others == 0) s.copy(send, recv, bytes);                 // a single rank
  for (int i = 0; i < slot; ++i) s.reduce(tmp + std::size_t(i) * bytes, recv, r.count, r.dt, r.op);
  s.next_round();
}

void reduce_linear(Schedule& s, const CollArgs& a) {
  reduce_linear(s, a.send, a.recv, *a.reduce, a.root);
}

}  // namespace takyon::mpi
