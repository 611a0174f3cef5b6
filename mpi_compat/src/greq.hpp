// SPDX-License-Identifier: MIT
// Generalized requests (MPI_Grequest_start): a request the application completes itself. Its
// callbacks run when the standard says: query when MPI_Wait/Test (and their -any, -some, -all forms)
// or MPI_Request_get_status return it complete, free when it is released (after the query of a
// Wait/Test, or at MPI_Request_free of a completed request, or at MPI_Grequest_complete of a freed
// one), cancel at MPI_Cancel with whether it has completed. Single-threaded: the MPI thread.
#pragma once

#include "mpi.h"
#include "pt2pt/request.hpp"

namespace takyon::mpi {

/// A new active generalized request of kind kGreq with these callbacks, on MPI_COMM_WORLD's pool.
Request* start_greq(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free_fn,
                    MPI_Grequest_cancel_function* cancel, void* extra_state);
/// MPI_Grequest_complete: the request is complete; a freed one is released (its free callback runs).
/// Returns the free callback's error code, or MPI_SUCCESS.
int complete_greq(Request& r);
/// Runs the query callback into `status` (MPI_STATUS_IGNORE: into a status of its own); returns
/// its error code, also written to status->MPI_ERROR.
int query_greq(Request& r, MPI_Status* status);
/// Releases a complete generalized request: the free callback, then the request goes back to the
/// pool. Returns the callback's error code.
int release_greq(Request& r);
/// MPI_Request_free: released now if complete, else when MPI_Grequest_complete is called.
int free_greq(Request& r);
/// MPI_Cancel: the cancel callback with complete = whether MPI_Grequest_complete was called.
int cancel_greq(Request& r);

}  // namespace takyon::mpi
