// SPDX-License-Identifier: MIT
// Linear scan / exscan: rank r receives the prefix of ranks 0..r-1 from r-1, computes
// prefix op mine (rank order kept: any op) and passes the new prefix to r+1. p-1 dependent steps,
// which is fine for the node-local rank counts this library serves.
#include "coll/algorithms.hpp"

namespace takyon::mpi {

void scan_linear(Schedule& s, const char* send, char* recv, const ReduceSpec& r, bool exclusive) {
  int p = s.size();
  int rank = s.rank();
  std::size_t bytes = r.bytes();
  if (!exclusive) {
    char* tmp = s.scratch(bytes);
    s.copy(send, recv, bytes);
    s.next_round();
    if (rank > 0) {
      s.recv(rank - 1, tmp, bytes);
      s.reduce(tmp, recv, r.count, r.dt, r.op);  // recv = prefix op mine
      s.next_round();
    }
    if (rank < p - 1) s.send(rank + 1, recv, bytes);
    s.next_round();
    return;
  }
  // Exclusive: recv gets the prefix of ranks 0..r-1 (rank 0's recv is left alone).
  char* mine = s.scratch(bytes);
  s.copy(send, mine, bytes);  // send may be recv (MPI_IN_PLACE): keep this rank's data
  s.next_round();
  if (rank == 0) {
    if (p > 1) s.send(1, mine, bytes);
    s.next_round();
    return;
  }
  s.recv(rank - 1, recv, bytes);
  if (rank < p - 1) s.reduce(recv, mine, r.count, r.dt, r.op);  // mine = prefix op mine
  s.next_round();
  if (rank < p - 1) s.send(rank + 1, mine, bytes);
  s.next_round();
}

}  // namespace takyon::mpi
