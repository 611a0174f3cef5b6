// SPDX-License-Identifier: MIT
// Linear scatter (and scatterv): the root starts all p-1 sends at once from their places in its
// buffer and copies its own block; every other rank receives one message.
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void scatter_linear(Schedule& s, char* own, std::size_t own_bytes, const Blocks& root_blocks, int root) {
  int p = s.size();
  int r = s.rank();
  if (r != root) {
    s.recv(root, own, own_bytes);
    s.next_round();
    return;
  }
  for (int q = 0; q < p; ++q) {
    if (q != r) s.send(q, root_blocks.at[std::size_t(q)], root_blocks.bytes[std::size_t(q)]);
  }
  // The root's own block is copied while the others' go out.
  if (own != nullptr) s.copy_early(root_blocks.at[std::size_t(r)], own, own_bytes);
  s.next_round();
}

void scatter_linear(Schedule& s, const CollArgs& a) {
  scatter_linear(s, a.own_out, a.own_bytes, *a.blocks, a.root);
}

}  // namespace takyon::mpi
