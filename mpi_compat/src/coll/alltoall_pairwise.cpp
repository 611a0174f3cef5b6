// SPDX-License-Identifier: MIT
// Pairwise alltoall (and alltoallv/w): this rank's own block is copied, then in step k it sends to
// r+k and receives from r-k, one exchange per step so that no rank is flooded. p-1 steps.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void alltoall_pairwise(Schedule& s, const Blocks& send, const Blocks& recv) {
  int p = s.size();
  int r = s.rank();
  s.copy(send.at[std::size_t(r)], recv.at[std::size_t(r)], send.bytes[std::size_t(r)]);
  s.next_round();
  for (int k = 1; k < p; ++k) {
    auto to = std::size_t((r + k) % p);
    auto from = std::size_t((r - k + p) % p);
    s.recv(int(from), recv.at[from], recv.bytes[from]);
    s.send(int(to), send.at[to], send.bytes[to]);
    s.next_round();
  }
}

void alltoall_pairwise(Schedule& s, const CollArgs& a) {
  alltoall_pairwise(s, equal_blocks(const_cast<char*>(a.send), a.block, s.size()),
                    equal_blocks(a.recv, a.block, s.size()));
}

}  // namespace takyon::mpi
