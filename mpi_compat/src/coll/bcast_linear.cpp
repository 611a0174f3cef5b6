// SPDX-License-Identifier: MIT
// Linear broadcast: the root sends the whole message to every other rank in one round; the others
// receive once. For small messages on few ranks: no rank forwards, so none waits for another
// non-root to be scheduled (on a node with more ranks than cores the binomial tree's forwarding
// rank is often not running).
#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void bcast_linear(Schedule& s, char* buf, std::size_t bytes, int root) {
  int p = s.size();
  int r = s.rank();
  if (r == root) {
    for (int k = 1; k < p; ++k) s.send((root + k) % p, buf, bytes);
  } else {
    s.recv(root, buf, bytes);
  }
  s.next_round();
}

void bcast_linear(Schedule& s, const CollArgs& a) {
  bcast_linear(s, a.buf, a.bytes, a.root);
}

}  // namespace takyon::mpi
