// SPDX-License-Identifier: MIT
// MPI_Barrier and MPI_Ibarrier: the flat shared-memory barrier (coll/flat.hpp) where the communicator
// allows it (blocking only), else the dissemination barrier (coll/barrier_dissemination.cpp) as a
// schedule in the communicator's collective context (never matched by user receives).
#include "api/coll_build.hpp"
#include "api/coll_flat.hpp"
#include "api/common.hpp"
#include "api/export.hpp"
#include "coll/algorithms.hpp"

namespace takyon::mpi {

void barrier(CommInfo& c) {
  if (flat_barrier(c)) return;
  Schedule s(c, "MPI_Barrier");
  barrier_dissemination(s);
  s.run();
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

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Ibarrier", comm, [&] {
    if (request == nullptr) fail(MPI_ERR_ARG, "MPI_Ibarrier", "request is NULL (argument request)");
    *request = start_nonblocking(build_barrier("MPI_Ibarrier", comm));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Ibarrier)
