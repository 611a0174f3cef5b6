// SPDX-License-Identifier: MIT
// Binomial-tree broadcast: relative rank v = (r - root) mod p receives the whole message from
// v - 2^k (2^k its lowest set bit), then forwards it to v + 2^j for every j < k. log2 p rounds.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void bcast_binomial(Schedule& s, char* buf, std::size_t bytes, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if ((v & mask) != 0) {
      s.recv((v - mask + root) % p, buf, bytes);
      s.next_round();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < p) s.send((v + mask + root) % p, buf, bytes);
  }
  s.next_round();
}

void bcast_binomial(Schedule& s, const CollArgs& a) {
  bcast_binomial(s, a.buf, a.bytes, a.root);
}

}  // namespace takyon::mpi
