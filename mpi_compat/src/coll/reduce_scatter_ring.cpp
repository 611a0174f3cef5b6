// SPDX-License-Identifier: MIT
// Ring reduce-scatter (commutative ops; MPI_Reduce_scatter(_block)): in step k rank r sends its
// partial sum of block r-k-1 to r+1 and adds the one of block r-k-2 received from r-1 to its own;
// after p-1 steps block r is complete on rank r. Each rank sends (p-1)/p of the vector once,
// against a whole allreduce's 2x; blocks may differ in size.
#include <algorithm>

#include "coll/algorithms.hpp"

namespace takyon::mpi {

void reduce_scatter_ring(Schedule& s, const char* send, char* recv, const std::vector<std::size_t>& counts,
                         const ReduceSpec& r) {
  int p = s.size();
  int rank = s.rank();
  std::vector<std::size_t> first(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) first[i + 1] = first[i] + counts[i];
  std::size_t most = *std::max_element(counts.begin(), counts.end());
  char* acc = s.scratch(first.back() * r.item);
  char* tmp = s.scratch(most * r.item);
  s.copy(send, acc, first.back() * r.item);
  s.next_round();
  auto at = [&](int b) { return acc + first[std::size_t(b)] * r.item; };
  auto bytes = [&](int b) { return counts[std::size_t(b)] * r.item; };
  int right = (rank + 1) % p;
  int left = (rank - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    int out = (rank - k - 1 + 2 * p) % p;
    int in = (rank - k - 2 + 2 * p) % p;
    s.recv(left, tmp, bytes(in));
    s.send(right, at(out), bytes(out));
    s.reduce(tmp, at(in), counts[std::size_t(in)], r.dt, r.op);
    s.next_round();
  }
  s.copy(at(rank), recv, bytes(rank));
  s.next_round();
}

}  // namespace takyon::mpi
