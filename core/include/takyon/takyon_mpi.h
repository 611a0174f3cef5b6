/* SPDX-License-Identifier: MIT */
/* Takyon paths between the ranks of a running MPI program, under any MPI: the group exchange of
 * takyon_group.h made of the program's own MPI_Allgather. Everything here is inline and compiled
 * with the program's mpi.h, so the same source builds against libtakyon_mpi (takyon-mpicc) or any
 * other MPI (e.g. Open MPI's mpicc) and links only libtakyon. Include mpi.h's MPI first or let this
 * header include it. Each call is collective over the communicator: every rank calls it, also a rank
 * that wants no path (npeers 0). */
#ifndef TAKYON_TAKYON_MPI_H_
#define TAKYON_TAKYON_MPI_H_

#include <mpi.h>

#include "takyon_group.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The exchange over `*(MPI_Comm *)context`. */
static inline int takyon_mpi_allgather_(void *context, const void *mine, void *all, size_t bytes) {
  if (bytes > (size_t)0x7fffffff) return -1;
  return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, *(MPI_Comm *)context) ==
                 MPI_SUCCESS
             ? 0
             : -1;
}

/** The exchange over `*comm` (a rank or size MPI cannot tell leaves it invalid: the call reports it). */
static inline TakyonGroupExchange takyon_mpi_group_(MPI_Comm *comm) {
  TakyonGroupExchange group;
  group.rank = -1;
  group.size = 0;
  group.allgather = takyon_mpi_allgather_;
  group.context = comm;
  if (MPI_Comm_rank(*comm, &group.rank) != MPI_SUCCESS || MPI_Comm_size(*comm, &group.size) != MPI_SUCCESS) {
    group.allgather = 0;
  }
  return group;
}

/**
 * takyonGroupCreatePaths over communicator `comm`: ranks are `comm`'s ranks. Returns true, or false
 * on every rank of `comm` with *error_ret (when not NULL) a malloc()ed message naming the ranks.
 */
static inline bool takyonMpiCreatePaths(MPI_Comm comm, int npeers, const TakyonPeerBuffers *wants,
                                        const TakyonGroupOptions *options, TakyonPath **paths_ret,
                                        char **error_ret) {
  TakyonGroupExchange group = takyon_mpi_group_(&comm); /* a bad group is reported by the call */
  return takyonGroupCreatePaths(&group, npeers, wants, options, paths_ret, error_ret);
}

/** takyonGroupDestroyPaths, named for symmetry: every rank destroys its side of each path. */
static inline bool takyonMpiDestroyPaths(int npeers, TakyonPath **paths, char **error_ret) {
  return takyonGroupDestroyPaths(npeers, paths, error_ret);
}

/**
 * takyonGroupCreateTree over communicator `comm` (ranks are `comm`'s): a tree of paths for the guide's
 * collectives, so a kernel's MPI_Allreduce / MPI_Bcast / MPI_Barrier / scatter / gather can run on
 * buffers registered once. Collective over `comm`.
 */
static inline bool takyonMpiCreateTree(MPI_Comm comm, int root, int fanout, int nbufs, uint64_t bytes,
                                       const TakyonGroupOptions *options, TakyonGroupTree **tree_ret,
                                       char **error_ret) {
  TakyonGroupExchange group = takyon_mpi_group_(&comm);
  return takyonGroupCreateTree(&group, root, fanout, nbufs, bytes, options, tree_ret, error_ret);
}

/** takyonGroupDestroyTree, named for symmetry. */
static inline bool takyonMpiDestroyTree(TakyonGroupTree **tree_ret, char **error_ret) {
  return takyonGroupDestroyTree(tree_ret, error_ret);
}

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_MPI_H_ */
