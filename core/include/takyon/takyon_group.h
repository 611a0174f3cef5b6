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

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_GROUP_H_ */
