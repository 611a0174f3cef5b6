// SPDX-License-Identifier: MIT
// Ring allgather: in step k rank r sends block r-k to r+1 and receives block r-k-1 from r-1;
// p-1 steps, each link carries every block once. Blocks may differ in size (MPI_Allgatherv).
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_ring(Schedule& s, const Blocks& blocks, const char* own) {
  int p = s.size();
  int r = s.rank();
  int right = (r + 1) % p;
  int left = (r - 1 + p) % p;
  const auto me = std::size_t(r);
  // Step 0 sends the own block: from `own` when given, copied into place meanwhile.
  if (own != nullptr) s.copy_early(own, blocks.at[me], blocks.bytes[me]);
  for (int k = 0; k < p - 1; ++k) {
    auto out = std::size_t((r - k + p) % p);
    auto in = std::size_t((r - k - 1 + 2 * p) % p);
    s.recv(left, blocks.at[in], blocks.bytes[in]);
    s.send(right, k == 0 && own != nullptr ? own : blocks.at[out], blocks.bytes[out]);
    s.next_round();
  }
}

void allgather_ring(Schedule& s, const CollArgs& a) {
  allgather_ring(s, equal_blocks(a.recv, a.block, s.size()), a.send);
}

}  // namespace takyon::mpi
