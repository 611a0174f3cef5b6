// SPDX-License-Identifier: MIT
// What every persistent collective's entry point (MPI_*_init) shares: its schedule is built once,
// at the init call, and kept by an inactive request that MPI_Start runs (coll/schedule.hpp).
#pragma once

#include "api/guard.hpp"
#include "api/info.hpp"
#include "coll/build.hpp"

namespace takyon::mpi {

/// The body of a persistent collective's init call: checks `request` and `info` (hints are
/// accepted and ignored), builds the schedule with `build` (which checks the collective's own
/// arguments exactly as the blocking form does, naming `fn`) and returns it as an inactive request.
/// A new persistent collective (a neighborhood one, say) is one entry point calling this with its
/// build_* function. Building communicates nothing, so a member whose arguments fail cannot leave
/// the others waiting here.
template <class Build>
int persistent_init(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Request* request, const Build& build) {
  return guarded(fn, comm, [&] {
    if (request == nullptr) fail(MPI_ERR_ARG, fn, "request is NULL (argument request)");
    check_info_arg(info, fn);
    *request = make_persistent(build());
    return MPI_SUCCESS;
  });
}

}  // namespace takyon::mpi
