// SPDX-License-Identifier: MIT
// Binomial-tree reduce towards the root (commutative ops): relative rank v receives the partial
// results of v + 2^j for each j below its lowest set bit, combines them, and sends its own partial
// result to v - 2^k. log2 p rounds; the root copies the result into recv.
#include <utility>

#include "coll/algorithms.hpp"

namespace takyon::mpi {

void reduce_binomial(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  std::size_t bytes = r.bytes();
  char* acc = s.scratch(bytes);
  char* tmp = s.scratch(bytes);
  s.copy(send, acc, bytes);
  s.next_round();
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((v & mask) != 0) {
      s.send((v - mask + root) % p, acc, bytes);
      s.next_round();
      return;
    }
    if ((v | mask) < p) {
      s.recv(((v | mask) + root) % p, tmp, bytes);
      s.reduce(acc, tmp, r.count, r.dt, r.op);  // tmp = mine op child's
      std::swap(acc, tmp);
      s.next_round();
    }
  }
  s.copy(acc, recv, bytes);  // only the root gets here
  s.next_round();
}

}  // namespace takyon::mpi
