// SPDX-License-Identifier: MIT
// Ring allreduce (commutative ops): the vector is cut into p blocks; a ring reduce-scatter (p-1
// steps: send the block reduced last, receive and reduce the next) leaves block r+1 complete on
// rank r, then a ring allgather (p-1 steps) spreads the complete blocks. Each rank sends about
// 2 (p-1)/p of the vector: the bandwidth-optimal choice for large vectors. Unless in place, send is
// never copied into recv: the reduce-scatter receives each block into recv and adds send's items.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allreduce_ring(Schedule& s, const char* send, char* recv, const ReduceSpec& r) {
  int p = s.size();
  int rank = s.rank();
  auto first = [&](int b) { return r.count * std::size_t(b) / std::size_t(p); };
  auto at = [&](int b) { return recv + first(b) * r.item; };
  auto items = [&](int b) { return first(b + 1) - first(b); };
  int right = (rank + 1) % p;
  int left = (rank - 1 + p) % p;
  if (p > 1 && send != recv) {
    // No copy of send into recv: step k's incoming block (r-k-1) is one recv has not held yet, so
    // it lands in its place in recv and takes send's items there (recv = mine op left's: the op
    // commutes); step 0's outgoing block (r) goes straight from send. Block r of recv is filled by
    // the allgather below.
    for (int k = 0; k < p - 1; ++k) {
      int out = (rank - k + p) % p;
      int in = (rank - k - 1 + 2 * p) % p;
      s.recv(left, at(in), items(in) * r.item);
      s.send(right, k == 0 ? send + first(out) * r.item : at(out), items(out) * r.item);
      s.reduce(send + first(in) * r.item, at(in), items(in), r.dt, r.op);
      s.next_round();
    }
  } else {
    s.copy(send, recv, r.bytes());  // p == 1, or in place (a memmove onto itself)
    s.next_round();
    if (p == 1) return;
    char* tmp = s.scratch((r.count / std::size_t(p) + 1) * r.item);
    for (int k = 0; k < p - 1; ++k) {
      int out = (rank - k + p) % p;
      int in = (rank - k - 1 + 2 * p) % p;
      s.recv(left, tmp, items(in) * r.item);
      s.send(right, at(out), items(out) * r.item);
      s.reduce(tmp, at(in), items(in), r.dt, r.op);
      s.next_round();
    }
  }
  for (int k = 0; k < p - 1; ++k) {
    int out = (rank + 1 - k + p) % p;
    int in = (rank - k + p) % p;
    s.recv(left, at(in), items(in) * r.item);
    s.send(right, at(out), items(out) * r.item);
    s.next_round();
  }
}

void allreduce_ring(Schedule& s, const CollArgs& a) {
  allreduce_ring(s, a.send, a.recv, *a.reduce);
}

}  // namespace takyon::mpi
