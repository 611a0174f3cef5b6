// SPDX-License-Identifier: MIT
// Linear allgather: one round in which this rank receives every other rank's block and sends its
// own to each (in ring order from r+1 on). For few ranks: one wait instead of the ring's p-1 --
// a round that waits costs most when ranks share cores -- at the price of sending its block p-1
// times. This rank's own block must already be in place (or, equal blocks, in CollArgs::send: sent
// from there and copied into place during the round); blocks may differ in size.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_linear(Schedule& s, const Blocks& blocks) {
  int p = s.size();
  int r = s.rank();
  auto own = std::size_t(r);
  for (int k = 1; k < p; ++k) {
    auto from = std::size_t((r - k + p) % p);
    s.recv(int(from), blocks.at[from], blocks.bytes[from]);
  }
  for (int k = 1; k < p; ++k) s.send((r + k) % p, blocks.at[own], blocks.bytes[own]);
  s.next_round();
}

void allgather_linear(Schedule& s, const CollArgs& a) {
  const Blocks blocks = equal_blocks(a.recv, a.block, s.size());
  if (a.send == nullptr) {
    allgather_linear(s, blocks);
    return;
  }
  // The own block goes out from the send buffer and is copied into place during the round.
  int p = s.size();
  int r = s.rank();
  for (int k = 1; k < p; ++k) {
    auto from = std::size_t((r - k + p) % p);
    s.recv(int(from), blocks.at[from], a.block);
  }
  for (int k = 1; k < p; ++k) s.send((r + k) % p, a.send, a.block);
  s.copy_early(a.send, blocks.at[std::size_t(r)], a.block);
  s.next_round();
}

}  // namespace takyon::mpi
