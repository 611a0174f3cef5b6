// SPDX-License-Identifier: MIT
// Rank-ordered reduce for non-commutative ops: a binomial tree rooted at rank 0 in which rank v's
// subtree is the contiguous range [v, v + 2^k), so combining "mine op child's" keeps the ranks in
// order (MPI requires the result of op(0) op op(1) op ... op(p-1)). Rank 0 then forwards the
// result to the root. No rank copies its send buffer: only rank 0, as the root, copies the result.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void reduce_ordered(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root) {
  int p = s.size();
  int v = s.rank();
  std::size_t bytes = r.bytes();
  // This rank's partial result: its send buffer until a child's arrives (no copy of send; a leaf
  // sends straight from it), then whichever of two scratch buffers holds the latest reduction.
  const char* acc = send;
  char* buf[2] = {nullptr, nullptr};
  int next = 0;
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((v & mask) != 0) {
      s.send(v - mask, acc, bytes);
      s.next_round();
      break;
    }
    if ((v | mask) < p) {
      if (buf[next] == nullptr) buf[next] = s.scratch(bytes);
      char* tmp = buf[next];
      s.recv(v | mask, tmp, bytes);
      s.reduce(acc, tmp, r.count, r.dt, r.op);  // tmp = [v, v+mask) op [v+mask, ...)
      acc = tmp;
      next ^= 1;
      s.next_round();
    }
  }
  if (v == 0 && root == 0) {
    if (acc != recv) s.copy(acc, recv, bytes);  // (acc == recv: a single rank, in place)
  } else if (v == 0) {
    s.send(root, acc, bytes);
  } else if (v == root) {
    s.recv(0, recv, bytes);
  }
  s.next_round();
}

void reduce_ordered(Schedule& s, const CollArgs& a) {
  reduce_ordered(s, a.send, a.recv, *a.reduce, a.root);
}

}  // namespace takyon::mpi
