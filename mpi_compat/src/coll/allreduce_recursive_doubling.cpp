// SPDX-License-Identifier: MIT
// Recursive-doubling allreduce: with p' the largest power of two <= p and q = p - p', ranks
// 2i and 2i+1 (i < q) first fold into 2i+1; then the p' remaining ranks exchange their whole vector
// with the partner at distance 2^k for log2 p' rounds, and 2i+1 hands the result back to 2i.
// Every combine keeps the lower ranks on the left, so non-commutative ops get the ranks in order.
#include <utility>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allreduce_recursive_doubling(Schedule& s, const char* send, char* recv, const ReduceSpec& r) {
  int rank = s.rank();
  std::size_t bytes = r.bytes();
  const PowerOfTwoFold fold(s.size());
  char* acc = recv;
  char* tmp = s.scratch(bytes);
  s.copy(send, recv, bytes);
  s.next_round();
  const int newrank = fold.vrank(rank);
  if (fold.pairs(rank)) {
    if (rank % 2 == 0) {
      s.send(rank + 1, acc, bytes);
    } else {
      s.recv(rank - 1, tmp, bytes);
      s.reduce(tmp, acc, r.count, r.dt, r.op);  // acc = left op mine
    }
    s.next_round();
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < fold.pof2; mask <<= 1) {
      int peer = fold.real(newrank ^ mask);
      s.recv(peer, tmp, bytes);
      s.send(peer, acc, bytes);
      if (peer < rank) {
        s.reduce(tmp, acc, r.count, r.dt, r.op);  // acc = theirs op mine
      } else {
        s.reduce(acc, tmp, r.count, r.dt, r.op);  // tmp = mine op theirs
        std::swap(acc, tmp);
      }
      s.next_round();
    }
  }
  if (fold.pairs(rank)) {
    if (rank % 2 == 0) {
      s.recv(rank + 1, recv, bytes);
    } else {
      s.send(rank - 1, acc, bytes);
    }
  }
  s.copy(acc, recv, bytes);
  s.next_round();
}

void allreduce_recursive_doubling(Schedule& s, const CollArgs& a) {
  allreduce_recursive_doubling(s, a.send, a.recv, *a.reduce);
}

}  // namespace takyon::mpi
