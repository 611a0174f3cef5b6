// SPDX-License-Identifier: MIT
// Binomial-tree reduce towards the root (commutative ops): relative rank v receives the partial
// results of v + 2^j for each j below its lowest set bit, combines them into its own, and sends the
// result to v - 2^k. log2 p rounds. A leaf sends straight from its send buffer; the root
// accumulates in its receive buffer; only inner ranks need a scratch accumulator.
// The first child's message lands straight in the accumulator, which then takes this rank's own
// contribution (acc = mine op child; the op commutes): no copy of the send buffer and no scratch
// for it -- at np 2 the root receives once and reduces once. Only an in-place root, and a rank
// with more than one child, receive into scratch.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void reduce_binomial(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  std::size_t bytes = r.bytes();
  bool has_children = v + 1 < p && (v & 1) == 0;
  const char* acc = send;
  char* own = nullptr;
  bool own_ready = false;  // own holds this rank's contribution (combined with any children so far)
  char* tmp = nullptr;
  if (has_children) {
    own = v == 0 ? recv : s.scratch(bytes);
    own_ready = own == send;  // an in-place root
    acc = own;
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((v & mask) != 0) {
      s.send((v - mask + root) % p, acc, bytes);
      s.next_round();
      return;
    }
    if ((v | mask) < p) {
      int child = ((v | mask) + root) % p;
      if (!own_ready) {
        s.recv(child, own, bytes);
        s.reduce(send, own, r.count, r.dt, r.op);  // own = mine op child's
        own_ready = true;
      } else {
        if (tmp == nullptr) tmp = s.scratch(bytes);
        s.recv(child, tmp, bytes);
        s.reduce(tmp, own, r.count, r.dt, r.op);  // own = child's op own
      }
      s.next_round();
    }
  }
  if (!has_children) s.copy(send, recv, bytes);  // the root of a single rank
  s.next_round();
}

void reduce_binomial(Schedule& s, const CollArgs& a) {
  reduce_binomial(s, a.send, a.recv, *a.reduce, a.root);
}

}  // namespace takyon::mpi
