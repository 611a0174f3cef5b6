// SPDX-License-Identifier: MIT
// Dissemination barrier: in round k rank r signals r+2^k and waits for r-2^k; after ceil(log2 p)
// rounds every rank has heard, directly or not, from every other one.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void barrier_dissemination(Schedule& s) {
  int p = s.size();
  int r = s.rank();
  for (int dist = 1; dist < p; dist <<= 1) {
    s.recv((r - dist + p) % p, nullptr, 0);
    s.send((r + dist) % p, nullptr, 0);
    s.next_round();
  }
}

void barrier_dissemination(Schedule& s, const CollArgs& /*a*/) {
  barrier_dissemination(s);
}

}  // namespace takyon::mpi
