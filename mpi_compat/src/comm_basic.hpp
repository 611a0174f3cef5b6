// SPDX-License-Identifier: MIT
// The predefined communicators MPI_COMM_WORLD and MPI_COMM_SELF (communicator management arrives
// with part 2): context ids, rank translation and each one's error handler.
#pragma once

#include "mpi.h"

namespace takyon::mpi {

struct CommInfo {
  MPI_Comm handle;
  int ctx;        ///< point-to-point context id
  int coll_ctx;   ///< context id of the communicator's collectives (never matches user messages)
  bool is_self;
  MPI_Errhandler errhandler;
  unsigned coll_seq = 0;  ///< collectives started on this communicator: each one's tag (coll/schedule.hpp)
};

/// WORLD or SELF, or nullptr for anything else.
CommInfo* find_comm(MPI_Comm comm);
/// Like find_comm() but throws MpiError(MPI_ERR_COMM) naming `fn`; also checks MPI is initialized.
CommInfo& check_comm(MPI_Comm comm, const char* fn);
/// Throws MpiError(MPI_ERR_OTHER) naming `fn` unless MPI is initialized and not finalized.
void check_initialized(const char* fn);

int comm_size(const CommInfo& c);
int comm_rank(const CommInfo& c);
/// A rank of `c` (0..size-1) as a world rank, and back.
int to_world(const CommInfo& c, int rank);
int from_world(const CommInfo& c, int world_rank);

/// `comm`'s error handler; MPI_COMM_WORLD's for an invalid communicator.
MPI_Errhandler errhandler_of(MPI_Comm comm);

}  // namespace takyon::mpi
