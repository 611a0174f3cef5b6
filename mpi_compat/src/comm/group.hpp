// SPDX-License-Identifier: MIT
// MPI groups: ordered sets of world ranks. A group's MPI_Group handle is the address of its heap
// Group; find_group() looks handles up in a registry and never dereferences one it did not hand out.
#pragma once

#include <vector>

#include "mpi.h"

namespace takyon::mpi {

struct Group {
  std::vector<int> ranks;  ///< world rank of each group rank
};

/// MPI_GROUP_EMPTY or a live group; nullptr for anything else.
const Group* find_group(MPI_Group group);
/// Like find_group() but throws MpiError(MPI_ERR_GROUP) naming `fn` and `arg`.
const Group& check_group(MPI_Group group, const char* fn, const char* arg);
/// A handle for a new group of `ranks` (MPI_GROUP_EMPTY when there are none).
MPI_Group new_group(std::vector<int> ranks);
/// Frees a group made by new_group() (MPI_GROUP_EMPTY: nothing to free).
void free_group(MPI_Group group);
/// The rank of world rank `world_rank` in `g`, or MPI_UNDEFINED.
int group_rank_of(const Group& g, int world_rank);

/// MPI_IDENT (same ranks, same order), MPI_SIMILAR (same ranks) or MPI_UNEQUAL.
int compare_members(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace takyon::mpi
