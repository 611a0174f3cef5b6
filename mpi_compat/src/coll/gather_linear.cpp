// SPDX-License-Identifier: MIT
// Linear gather (and gatherv): every rank sends its block to the root, which posts all p-1
// receives at once into their final places and copies its own block meanwhile.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void gather_linear(Schedule& s, const char* own, std::size_t own_bytes, const Blocks& root_blocks, int root) {
  int p = s.size();
  int r = s.rank();
  if (r != root) {
    s.send(root, own, own_bytes);
    s.next_round();
    return;
  }
  for (int q = 0; q < p; ++q) {
    if (q != r) s.recv(q, root_blocks.at[std::size_t(q)], root_blocks.bytes[std::size_t(q)]);
  }
  // The root's own block is copied while the other ranks' blocks arrive.
  if (own != nullptr) s.copy_early(own, root_blocks.at[std::size_t(r)], own_bytes);
  s.next_round();
}

void gather_linear(Schedule& s, const CollArgs& a) {
  gather_linear(s, a.own, a.own_bytes, *a.blocks, a.root);
}

}  // namespace takyon::mpi
