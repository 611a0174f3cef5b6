// SPDX-License-Identifier: MIT
// Recursive-doubling allgather: in round k rank r exchanges the 2^k blocks it holds with r xor 2^k;
// log2 p rounds, data in place. With the own block elsewhere (`own`: not in place), round 0 sends it
// from there while copying it into place. For a rank count that is not a power of two it uses Bruck's
// doubling pattern, which generalizes it (allgather_bruck.cpp).
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allgather_recursive_doubling(Schedule& s, char* recv, std::size_t block, const char* own) {
  int p = s.size();
  if (p == 1) {
    if (own != nullptr) s.copy(own, recv, block);
    s.next_round();
    return;
  }
  if ((p & (p - 1)) != 0) {
    allgather_bruck(s, recv, block, own);
    return;
  }
  int r = s.rank();
  for (int mask = 1; mask < p; mask <<= 1) {
    int peer = r ^ mask;
    auto mine = std::size_t(r & ~(mask - 1));
    auto theirs = std::size_t(peer & ~(mask - 1));
    s.recv(peer, recv + theirs * block, std::size_t(mask) * block);
    if (mask == 1 && own != nullptr) {
      // Round 0 sends only the own block: from the send buffer, copied into place meanwhile.
      s.send(peer, own, block);
      s.copy_early(own, recv + std::size_t(r) * block, block);
    } else {
      s.send(peer, recv + mine * block, std::size_t(mask) * block);
    }
    s.next_round();
  }
}

void allgather_recursive_doubling(Schedule& s, const CollArgs& a) {
  allgather_recursive_doubling(s, a.recv, a.block, a.send);
}

}  // namespace takyon::mpi
