// SPDX-License-Identifier: MIT
// Linear allgather: one round in which this rank receives every other rank's block and sends its
// own to each (in ring order from r+1 on). For few ranks: one wait instead of the ring's p-1 --
// a round that waits costs most when ranks share cores -- at the price of sending its block p-1
// times. This rank's own block is in place, or in `own` (sent from there and copied into place
// during the round); blocks may differ in size.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_linear(Schedule& s, const Blocks& blocks, const char* own) {
  int p = s.size();
  int r = s.rank();
  auto me = std::size_t(r);
  for (int k = 1; k < p; ++k) {
    auto from = std::size_t((r - k + p) % p);
    s.recv(int(from), blocks.at[from], blocks.bytes[from]);
  }
  for (int k = 1; k < p; ++k) s.send((r + k) % p, own != nullptr ? own : blocks.at[me], blocks.bytes[me]);
  if (own != nullptr) s.copy_early(own, blocks.at[me], blocks.bytes[me]);
  s.next_round();
}

void allgather_linear(Schedule& s, const CollArgs& a) {
  allgather_linear(s, equal_blocks(a.recv, a.block, s.size()), a.send);
}

}  // namespace takyon::mpi
