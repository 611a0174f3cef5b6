// SPDX-License-Identifier: MIT
// How a collective's entry point runs the schedule its build function makes: at once (blocking) or
// behind a request that MPI_Wait/Test and the engine's progress advance (nonblocking). Shared by the
// collectives (api/coll.cpp) and the neighbourhood collectives (api/neighbor.cpp).
#pragma once

#include "api/guard.hpp"
#include "coll/schedule.hpp"

namespace takyon::mpi {

template <class Build>
int blocking(const char* fn, MPI_Comm comm, const Build& build) {
  return guarded(fn, comm, [&] {
    build()->run();
    return MPI_SUCCESS;
  });
}

template <class Build>
int nonblocking(const char* fn, MPI_Comm comm, MPI_Request* request, const Build& build) {
  return guarded(fn, comm, [&] {
    if (request == nullptr) fail(MPI_ERR_ARG, fn, "request is NULL (argument request)");
    *request = start_nonblocking(build());
    return MPI_SUCCESS;
  });
}

}  // namespace takyon::mpi
