// SPDX-License-Identifier: MIT
// Intercommunicators: their creation (MPI_Intercomm_create: the leaders agree over the peer
// communicator), the constructors that take one (Comm_dup, Comm_split, Comm_create: a new
// intercommunicator) and MPI_Intercomm_merge (an intracommunicator over both groups). Every
// constructor agrees on a context slot free on every member of both groups: each group gathers its
// members' records, the two leaders swap their groups' records, and each leader broadcasts the other
// group's to its own. The communicator model (CommInfo::remote) is comm/comm.hpp.
#pragma once

#include <cstdint>
#include <optional>

#include "comm/comm.hpp"
#include "errors.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// MPI_Intercomm_create over `local` (an intracommunicator): `error` is what this member's own
/// argument checks threw (it still takes part, so the group fails alike instead of waiting);
/// peer_comm, remote_leader and tag matter at the local leader only. Returns the new intercommunicator.
MPI_Comm create_intercomm(CommInfo& local, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          const std::optional<MpiError>& error, const char* fn);

/// Which constructor an intercommunicator's members called (members calling different ones fail).
enum class InterOp : std::int32_t { kDup = 1, kSplit = 2, kCreate = 3, kMerge = 4, kIntercommCreate = 5 };

/// Comm_dup, Comm_split and Comm_create on intercommunicator `c`: this member joins the
/// intercommunicator of `color` (MPI_UNDEFINED: none), ordered by `key` then rank, whose remote group
/// is the other group's members of the same color. MPI_COMM_NULL if either side has none.
MPI_Comm split_intercomm(CommInfo& c, InterOp op, int color, int key, const std::optional<MpiError>& error,
                         const char* fn);

/// MPI_Intercomm_merge: the intracommunicator of both groups, the group whose leader passed `high`
/// false first (equal flags: the group of the lower world rank first).
MPI_Comm merge_intercomm(CommInfo& c, bool high, const std::optional<MpiError>& error, const char* fn);

}  // namespace takyon::mpi
