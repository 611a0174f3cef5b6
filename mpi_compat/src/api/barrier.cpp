// SPDX-License-Identifier: MIT
// MPI_Barrier: a dissemination barrier over the point-to-point engine, in the communicator's
// collective context (never matched by user receives). Other collectives arrive with part 2.
#include "api/common.hpp"
#include "api/export.hpp"

namespace takyon::mpi {

void barrier(CommInfo& c) {
    int size = comm_size(c);
    int rank = comm_rank(c);
    Engine& e = engine();
    int round = 0;
    for (int dist = 1; dist < size; dist <<= 1, ++round) {
      P2pArgs to;
      to.comm = &c;
      to.world_peer = to_world(c, (rank + dist) % size);
      to.tag = round;
      P2pArgs from = to;
      from.world_peer = to_world(c, (rank - dist + size) % size);
      Request* rr = make_recv(from, nullptr, MPI_BYTE);
      rr->ctx = c.coll_ctx;
      e.start_recv(rr);
      Request* sr = make_send(to, nullptr, MPI_BYTE, SendMode::kStandard);
      sr->ctx = c.coll_ctx;
      e.start_send(sr);
      e.wait_until([&] { return rr->complete && sr->complete; });
      e.requests().release(rr);
      e.requests().release(sr);
    }
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  return guarded("MPI_Barrier", comm, [&] {
    barrier(check_comm(comm, "MPI_Barrier"));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Barrier)
