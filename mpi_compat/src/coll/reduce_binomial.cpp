// SPDX-License-Identifier: MIT
// Binomial-tree reduce towards the root (commutative ops): relative rank v receives the partial
// results of v + 2^j for each j below its lowest set bit, combines them into its own, and sends the
// result to v - 2^k. log2 p rounds. A leaf sends straight from its send buffer; the root
// accumulates in its receive buffer; only inner ranks need a scratch accumulator.
#include "coll/algorithms.hpp"

namespace takyon::mpi {

void reduce_binomial(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  std::size_t bytes = r.bytes();
  bool has_children = v + 1 < p && (v & 1) == 0;
  const char* acc = send;
  char* tmp = nullptr;
  if (has_children) {
    char* own = v == 0 ? recv : s.scratch(bytes);
    s.copy(send, own, bytes);  // nothing to do at an in-place root
    s.next_round();
    acc = own;
    tmp = s.scratch(bytes);
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((v & mask) != 0) {
      s.send((v - mask + root) % p, acc, bytes);
      s.next_round();
      return;
    }
    if ((v | mask) < p) {
      s.recv(((v | mask) + root) % p, tmp, bytes);
      s.reduce(tmp, const_cast<char*>(acc), r.count, r.dt, r.op);  // mine = child's op mine
      s.next_round();
    }
  }
  if (!has_children) s.copy(send, recv, bytes);  // the root of a single rank
  s.next_round();
}

}  // namespace takyon::mpi
