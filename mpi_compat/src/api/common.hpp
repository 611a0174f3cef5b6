// SPDX-License-Identifier: MIT
// What the MPI entry points share beyond messages.hpp: the blocking barrier and the wait for buffered
// sends, which MPI_Finalize needs too.
#pragma once

#include "api/guard.hpp"
#include "messages.hpp"

namespace takyon::mpi {

/// Progresses until every MPI_Bsend message has left (MPI_Buffer_detach, MPI_Finalize).
void wait_buffered_sends();
/// The dissemination barrier of `c` (MPI_Barrier; MPI_Finalize uses it so that every rank keeps
/// progressing, hence delivering what others still receive, until all have arrived).
void barrier(CommInfo& c);
/// "MPI_Recv: message truncated: 100 bytes arrived from rank 1 (tag 5), the buffer holds 40" (a
/// point-to-point receive), or why the nonblocking collective behind `r` failed.
std::string truncation_message(const char* fn, const Request& r);

}  // namespace takyon::mpi
