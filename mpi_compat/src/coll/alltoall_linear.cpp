// SPDX-License-Identifier: MIT
// Linear alltoall: one round in which this rank posts all p-1 receives and p-1 sends at once (in
// pairwise order, r+k / r-k, so that peers are not all hit in the same order) and copies its own
// block while they run (an early copy, in pieces with progress between them so that the transfers
// keep moving; slightly faster than copying the own block after the wait). For few ranks: one wait
// instead of p-1 -- a round that waits costs most when ranks share cores (np 4 on 2 cores) -- at
// the price of up to p-1 concurrent transfers per rank.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void alltoall_linear(Schedule& s, const Blocks& send, const Blocks& recv) {
  int p = s.size();
  int r = s.rank();
  for (int k = 1; k < p; ++k) {
    auto from = std::size_t((r - k + p) % p);
    s.recv(int(from), recv.at[from], recv.bytes[from]);
  }
  for (int k = 1; k < p; ++k) {
    auto to = std::size_t((r + k) % p);
    s.send(int(to), send.at[to], send.bytes[to]);
  }
  s.copy_early(send.at[std::size_t(r)], recv.at[std::size_t(r)], send.bytes[std::size_t(r)]);
  s.next_round();
}

void alltoall_linear(Schedule& s, const CollArgs& a) {
  alltoall_linear(s, equal_blocks(const_cast<char*>(a.send), a.block, s.size()),
                  equal_blocks(a.recv, a.block, s.size()));
}

}  // namespace takyon::mpi
