// SPDX-License-Identifier: MIT
// Ring reduce-scatter (commutative ops; MPI_Reduce_scatter(_block)): in step k rank r sends its
// partial sum of block r-k-1 to r+1 and adds the one of block r-k-2 received from r-1 to its own;
// after p-1 steps block r is complete on rank r. Each rank sends (p-1)/p of the vector once,
// against a whole allreduce's 2x; blocks may differ in size. Unless in place (recv inside send), send
// is never copied: two scratch blocks of the largest size carry the partial sums around.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void reduce_scatter_ring(Schedule& s, const char* send, char* recv, const std::vector<std::size_t>& counts,
                         const ReduceSpec& r) {
  int p = s.size();
  int rank = s.rank();
  std::vector<std::size_t> first(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) first[i + 1] = first[i] + counts[i];
  std::size_t most = *std::max_element(counts.begin(), counts.end());
  auto bytes = [&](int b) { return counts[std::size_t(b)] * r.item; };
  auto mine = [&](int b) { return send + first[std::size_t(b)] * r.item; };  // send's block b
  int right = (rank + 1) % p;
  int left = (rank - 1 + p) % p;
  const char* send_end = send + first.back() * r.item;
  const bool overlap = recv < send_end && send < recv + bytes(rank);  // in place
  if (p > 1 && !overlap) {
    // No copy of send: each block is reduced exactly once on each rank, so step k receives block
    // r-k-2 into one of two alternating scratch blocks (the last step straight into recv) and adds
    // send's items there (partial = mine op left's: the op commutes); step 0 sends send's block r-1,
    // step k > 0 the block reduced in step k-1.
    char* buf[2] = {p > 2 ? s.scratch(most * r.item) : nullptr, p > 3 ? s.scratch(most * r.item) : nullptr};
    const char* prev = nullptr;
    for (int k = 0; k < p - 1; ++k) {
      int out = (rank - k - 1 + 2 * p) % p;
      int in = (rank - k - 2 + 2 * p) % p;
      char* into = k == p - 2 ? recv : buf[k % 2];
      s.recv(left, into, bytes(in));
      s.send(right, k == 0 ? mine(out) : prev, bytes(out));
      s.reduce(mine(in), into, counts[std::size_t(in)], r.dt, r.op);
      s.next_round();
      prev = into;
    }
    return;
  }
  char* acc = s.scratch(first.back() * r.item);
  char* tmp = s.scratch(most * r.item);
  s.copy(send, acc, first.back() * r.item);
  s.next_round();
  auto at = [&](int b) { return acc + first[std::size_t(b)] * r.item; };
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

void reduce_scatter_ring(Schedule& s, const CollArgs& a) {
  reduce_scatter_ring(s, a.send, a.recv, *a.counts, *a.reduce);
}

}  // namespace takyon::mpi
