// SPDX-License-Identifier: MIT
// Binomial-tree scatter (equal blocks): the root orders the blocks relative to itself; relative
// rank v receives the blocks of its subtree [v, v + 2^k) from its parent in one message and
// forwards each child's share in one message. log2 p rounds; the root sends log2 p messages.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void scatter_binomial(Schedule& s, const char* send, char* own, std::size_t block, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  auto span = [&](int first, int n) { return std::size_t(std::min(n, p - first)) * block; };
  bool has_children = v + 1 < p && (v & 1) == 0;
  const char* tmp = nullptr;  // this rank's subtree's blocks, in relative order
  int mask = 1;
  if (v == 0) {
    if (root == 0) {
      tmp = send;
    } else {
      char* rotated = s.scratch(std::size_t(p) * block);
      for (int i = 0; i < p; ++i)
        s.copy(send + std::size_t((i + root) % p) * block, rotated + std::size_t(i) * block, block);
      s.next_round();
      tmp = rotated;
    }
    while (mask < p) mask <<= 1;
  } else {
    while ((v & mask) == 0) mask <<= 1;
    char* mine = has_children || own == nullptr ? s.scratch(span(v, mask)) : own;
    s.recv((v - mask + root) % p, mine, span(v, mask));
    s.next_round();
    tmp = mine;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    int child = v + mask;
    if (child < p) s.send((child + root) % p, tmp + std::size_t(mask) * block, span(child, mask));
  }
  if (own != nullptr) s.copy(tmp, own, block);  // nothing to do for a leaf that received in place
  s.next_round();
}

// The root's blocks are one buffer when the send type is contiguous (the usual case); otherwise the
// root packs them into scratch first.
void scatter_binomial(Schedule& s, const CollArgs& a) {
  const bool root = s.rank() == a.root;
  if (!root || contiguous_blocks(*a.blocks, a.block)) {
    scatter_binomial(s, root ? a.blocks->at[0] : nullptr, a.own_out, a.block, a.root);
    return;
  }
  const int p = s.size();
  char* packed = s.scratch(std::size_t(p) * a.block);
  for (int i = 0; i < p; ++i)
    s.copy(a.blocks->at[std::size_t(i)], packed + std::size_t(i) * a.block, a.block);
  s.next_round();
  scatter_binomial(s, packed, a.own_out, a.block, a.root);
}

}  // namespace takyon::mpi
