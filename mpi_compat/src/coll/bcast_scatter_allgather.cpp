// SPDX-License-Identifier: MIT
// Scatter + allgather broadcast (van de Geijn): the message is cut into p pieces; the root scatters
// them along a binomial tree (each subtree receives its pieces in one message), then a ring
// allgather completes every rank's copy. Each rank moves about 2x the message instead of log2 p x.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void bcast_scatter_allgather(Schedule& s, char* buf, std::size_t bytes, int root) {
  int p = s.size();
  int v = (s.rank() - root + p) % p;
  std::size_t piece = (bytes + std::size_t(p) - 1) / std::size_t(p);
  auto offset = [&](int first_piece) {
    return std::min(std::size_t(std::min(first_piece, p)) * piece, bytes);
  };
  // Scatter: relative rank v holds pieces [v, v + subtree) once its parent has sent them.
  int mask = 1;
  while (mask < p) {
    if ((v & mask) != 0) {
      std::size_t lo = offset(v);
      s.recv((v - mask + root) % p, buf + lo, offset(v + mask) - lo);
      s.next_round();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < p) {
      std::size_t lo = offset(v + mask);
      s.send((v + mask + root) % p, buf + lo, offset(v + 2 * mask) - lo);
    }
  }
  s.next_round();
  // Allgather: rank q's block is piece (q - root) mod p.
  Blocks blocks;
  for (int q = 0; q < p; ++q) {
    int vq = (q - root + p) % p;
    std::size_t lo = offset(vq);
    blocks.at.push_back(buf + lo);
    blocks.bytes.push_back(offset(vq + 1) - lo);
  }
  allgather_ring(s, blocks);
}

void bcast_scatter_allgather(Schedule& s, const CollArgs& a) {
  bcast_scatter_allgather(s, a.buf, a.bytes, a.root);
}

}  // namespace takyon::mpi
