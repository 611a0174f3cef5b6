// SPDX-License-Identifier: MIT
// Bruck allgather: each rank collects blocks r, r+1, ... at the front of a scratch buffer; in round
// k it sends its first min(2^k, p-2^k) blocks to r-2^k and receives as many from r+2^k behind its
// own. ceil(log2 p) rounds for any p; a final local rotation puts block i at recv + i * block.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_bruck(Schedule& s, char* recv, std::size_t block, const char* own) {
  int p = s.size();
  int r = s.rank();
  char* tmp = s.scratch(std::size_t(p) * block);
  s.copy(own != nullptr ? own : recv + std::size_t(r) * block, tmp, block);
  s.next_round();
  for (int dist = 1; dist < p; dist <<= 1) {
    auto n = std::size_t(std::min(dist, p - dist));
    s.recv((r + dist) % p, tmp + std::size_t(dist) * block, n * block);
    s.send((r - dist + p) % p, tmp, n * block);
    s.next_round();
  }
  for (int i = 0; i < p; ++i) {
    s.copy(tmp + std::size_t(i) * block, recv + std::size_t((r + i) % p) * block, block);
  }
  s.next_round();
}

void allgather_bruck(Schedule& s, const CollArgs& a) {
  allgather_bruck(s, a.recv, a.block, a.send);
}

}  // namespace takyon::mpi
