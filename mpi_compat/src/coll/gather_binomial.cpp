// SPDX-License-Identifier: MIT
// Binomial-tree gather (equal blocks): relative rank v = (r - root) mod p collects the blocks of
// its subtree [v, v + 2^k) from its children, one message per child, and sends them to its parent
// in one message. log2 p rounds, the root receives log2 p messages instead of p-1; the root then
// puts the blocks, gathered in relative order, in rank order (in place when the root is rank 0).
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void gather_binomial(Schedule& s, const char* own, char* recv, std::size_t block, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  auto span = [&](int first, int n) { return std::size_t(std::min(n, p - first)) * block; };
  bool has_children = v + 1 < p && (v & 1) == 0;
  const char* mine = own;  // a leaf sends its own block as it is
  char* tmp = nullptr;
  if (has_children) {
    tmp = v == 0 && root == 0 ? recv : s.scratch(std::size_t(p - v) * block);
    s.copy(own != nullptr ? own : recv + std::size_t(root) * block, tmp, block);  // own == nullptr: in place
    s.next_round();
    mine = tmp;
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((v & mask) != 0) {
      s.send((v - mask + root) % p, mine, span(v, mask));
      s.next_round();
      return;
    }
    int child = v | mask;
    if (child < p) {
      s.recv((child + root) % p, tmp + std::size_t(mask) * block, span(child, mask));
      s.next_round();
    }
  }
  // The root: relative block i belongs to rank (i + root) mod p.
  if (!has_children) {  // p == 1
    if (own != nullptr) s.copy(own, recv, block);
  } else if (tmp != recv) {
    for (int i = 0; i < p; ++i) {
      s.copy(tmp + std::size_t(i) * block, recv + std::size_t((i + root) % p) * block, block);
    }
  }
  s.next_round();
}

// The root's blocks are one buffer when the receive type is contiguous (the usual case); otherwise the
// tree gathers into scratch and the root copies the blocks out.
void gather_binomial(Schedule& s, const CollArgs& a) {
  const bool root = s.rank() == a.root;
  if (!root || contiguous_blocks(*a.blocks, a.block)) {
    gather_binomial(s, a.own, root ? a.blocks->at[0] : nullptr, a.block, a.root);
    return;
  }
  const int p = s.size();
  char* packed = s.scratch(std::size_t(p) * a.block);
  if (a.own == nullptr) {  // in place: the root's own block is where its blocks say
    s.copy(a.blocks->at[std::size_t(a.root)], packed + std::size_t(a.root) * a.block, a.block);
    s.next_round();
  }
  gather_binomial(s, a.own, packed, a.block, a.root);
  for (int i = 0; i < p; ++i)
    s.copy(packed + std::size_t(i) * a.block, a.blocks->at[std::size_t(i)], a.block);
  s.next_round();
}

}  // namespace takyon::mpi
