// SPDX-License-Identifier: MIT
// Recursive-doubling allgather: in round k rank r exchanges the 2^k blocks it holds with r xor 2^k;
// log2 p rounds, data in place. For a rank count that is not a power of two it uses Bruck's
// doubling pattern, which generalizes it (allgather_bruck.cpp).
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_recursive_doubling(Schedule& s, char* recv, std::size_t block) {
  int p = s.size();
  if ((p & (p - 1)) != 0) {
    allgather_bruck(s, recv, block);
    return;
  }
  int r = s.rank();
  for (int mask = 1; mask < p; mask <<= 1) {
    int peer = r ^ mask;
    auto mine = std::size_t(r & ~(mask - 1));
    auto theirs = std::size_t(peer & ~(mask - 1));
    s.recv(peer, recv + theirs * block, std::size_t(mask) * block);
    s.send(peer, recv + mine * block, std::size_t(mask) * block);
    s.next_round();
  }
}

void allgather_recursive_doubling(Schedule& s, const CollArgs& a) {
  allgather_recursive_doubling(s, a.recv, a.block);
}

}  // namespace takyon::mpi
