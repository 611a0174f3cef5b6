/* SPDX-License-Identifier: MIT */
/* Paths between the processes of a group that can already exchange a few bytes among themselves: the
 * ranks of an MPI communicator (takyon_mpi.h gives the exchange over any MPI), or any other launcher's
 * group. One collective call agrees on IDs, checks that every pair asked for the same buffers, picks
 * the provider from where each peer is, and returns connected paths, so a program's hot kernel can
 * move onto pre-registered paths while the rest stays as it is. The group's exchange is the only
 * communication besides the paths themselves; this header needs no MPI. */
#ifndef TAKYON_TAKYON_GROUP_H_
#define TAKYON_TAKYON_GROUP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "takyon.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How the group exchanges bytes: this process's rank in it, its size, and an all-gather that every
 * member calls with the same `bytes`: member i's `mine` lands at all + i * bytes. It returns 0 on
 * success. Every function below is collective over the group: all members call it, in the same order.
 */
typedef struct {
  int rank;
  int size;
  int (*allgather)(void *context, const void *mine, void *all, size_t bytes);
  void *context;
} TakyonGroupExchange;

/**
 * What this process wants on its path to one peer, in its own terms (the library makes the lower
 * rank endpoint A): buffers it sends to the peer and buffers it receives from it. Address lists may be
 * NULL (Takyon allocates every buffer) or give application memory per buffer (0 = Takyon allocates),
 * where the provider allows it (takyon_providers.h: app_send_buffers, app_recv_buffers). The peer's
 * entry for this process must name as many buffers the other way round.
 */
typedef struct {
  int peer;                   /**< the peer's rank in the group; not this process's own */
  int nbufs_send;             /**< buffers to the peer (at least one of nbufs_send, nbufs_recv > 0) */
  const uint64_t *send_bytes; /**< nbufs_send sizes */
  const size_t *send_addrs;   /**< NULL, or nbufs_send addresses */
  int nbufs_recv;             /**< buffers from the peer */
  const uint64_t *recv_bytes; /**< nbufs_recv sizes */
  const size_t *recv_addrs;   /**< NULL, or nbufs_recv addresses */
} TakyonPeerBuffers;

/** Choices for takyonGroupCreatePaths; NULL options take every default. */
typedef struct {
  const char *same_host_provider; /**< NULL: "InterProcessMemcpy"; any provider the table says reaches
                                       processes and is addressed by -ID (e.g. "InterProcessSocket") */
  bool is_polling;                /**< true: spin while waiting (the default); false: event driven */
  double path_create_timeout;     /**< seconds for each path's creation */
  double send_start_timeout, send_finish_timeout, recv_start_timeout, recv_finish_timeout;
  double path_destroy_timeout;
  TakyonCompletionMethod send_completion_method;
} TakyonGroupOptions;

/** The defaults: InterProcessMemcpy, polling, 10 s to create, every other timeout forever, blocking sends. */
TAKYON_API TakyonGroupOptions takyonGroupDefaultOptions(void);

/**
 * Collective over the group: creates this process's paths to the peers of `wants` (npeers entries,
 * distinct peers) and stores path k (to wants[k].peer) in paths_ret[k]. Every member checks every
 * member's wants alike before any path is made, so a peer outside the group, a pair only one side
 * asked for, or buffer counts that do not match fail on every member with the same message, naming
 * the ranks. Paths are created in one order on every member (by the pair's lower rank, then the
 * higher), so no member waits for another that is creating a different path. Returns true when every
 * member made all its paths; otherwise false on every member, no path left open, and *error_ret
 * (when not NULL) a malloc()ed message to free(). Peers on other hosts are not supported yet: such a
 * pair fails this way too, naming both hosts.
 */
TAKYON_API bool takyonGroupCreatePaths(const TakyonGroupExchange *group, int npeers,
                                       const TakyonPeerBuffers *wants, const TakyonGroupOptions *options,
                                       TakyonPath **paths_ret, char **error_ret);

/**
 * Destroys `npeers` paths made by takyonGroupCreatePaths (each with its peer, gracefully) and sets
 * each entry to NULL. Not collective over the group, but each peer must destroy its side too.
 * Returns true, or false with *error_ret (when not NULL) a malloc()ed message naming the first
 * failure; every path is destroyed either way.
 */
TAKYON_API bool takyonGroupDestroyPaths(int npeers, TakyonPath **paths, char **error_ret);

/**
 * The paths of a tree over the group, for the tree collectives of takyon_extensions.h
 * (takyonBarrierInit, takyonReduceInit / takyonAllreduce, takyonBcastInit: pass nchildren,
 * parent_path and child_path_list as they are) and, with fanout TAKYON_GROUP_STAR, for a scatter or
 * gather from the root (takyonScatterSrcInit(nchildren, child_path_list) at the root,
 * takyonScatterDestInit(group size - 1, position - 1, parent_path) elsewhere; the same for gathers).
 * Members are ordered from the root: position = (rank - root) mod size. Position p's children are
 * positions p * fanout + 1 .. p * fanout + fanout, its parent (p - 1) / fanout. Every path has nbufs
 * buffers each way of `bytes` each, in the provider's memory (one buffer per collective kept in flight
 * on the tree: the collectives name one by index).
 */
typedef struct {
  int root;                     /**< the group rank at the top */
  int group_size;               /**< members in the group */
  int position;                 /**< this member's place from the root: 0 at the root */
  int parent_rank;              /**< the parent's group rank; -1 at the root */
  TakyonPath *parent_path;      /**< the path to the parent; NULL at the root */
  int nchildren;                /**< paths to this member's children */
  TakyonPath **child_path_list; /**< nchildren paths, in position order */
  int *child_ranks;             /**< the children's group ranks, in the same order */
} TakyonGroupTree;

/** fanout for takyonGroupCreateTree: every other member is a child of the root. */
#define TAKYON_GROUP_STAR 0

/**
 * Collective over the group: makes this member's paths of the tree (every member passes the same
 * root, fanout, nbufs and bytes; a member that passes others fails every member with a message naming
 * both) through takyonGroupCreatePaths, so its checks, provider choice and failure rules apply.
 * fanout >= 1, or TAKYON_GROUP_STAR. Returns true and *tree_ret, or false on every member with
 * *error_ret (when not NULL) a malloc()ed message to free() and *tree_ret NULL.
 */
TAKYON_API bool takyonGroupCreateTree(const TakyonGroupExchange *group, int root, int fanout, int nbufs,
                                      uint64_t bytes, const TakyonGroupOptions *options,
                                      TakyonGroupTree **tree_ret, char **error_ret);

/**
 * Destroys the tree's paths (takyonGroupDestroyPaths: not collective, but every member destroys its
 * side), frees the tree and sets *tree_ret to NULL (NULL or *tree_ret NULL: nothing to do). Finalize
 * the collectives made on the tree first. Returns true, or false with *error_ret as above; the tree
 * is freed either way.
 */
TAKYON_API bool takyonGroupDestroyTree(TakyonGroupTree **tree_ret, char **error_ret);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_GROUP_H_ */
