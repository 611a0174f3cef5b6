// SPDX-License-Identifier: MIT
// The small internal exchanges communicator creation needs (every member's record to every other),
// written over the point-to-point engine in a context no user receive can match. One place, so they
// can later be swapped for the real collectives.
#pragma once

#include <cstddef>
#include <vector>

#include "comm_basic.hpp"

namespace takyon::mpi {

/// Tag of the creation exchanges in a communicator's collective context.
inline constexpr int kCommCreateTag = 0x43524541;  // "CREA"

/// An allgather of `bytes` bytes among `members` (world ranks; this process is members[me]), in
/// context `ctx` with `tag`: returns every member's `mine`, by member index. `over` is the
/// communicator the messages belong to (for error reporting). ceil(log2 n) rounds of one message
/// each way (Bruck). Blocking; throws PeerFailure or
/// MpiError(MPI_ERR_INTERN) if a peer's record has the wrong size.
std::vector<std::vector<unsigned char>> exchange_all(CommInfo& over, const std::vector<int>& members, int me,
                                                     int ctx, int tag, const void* mine, std::size_t bytes);

}  // namespace takyon::mpi
