/* SPDX-License-Identifier: MIT */
/* What each provider is: the backend table of this libtakyon, one row per provider. The core, the MPI
 * layer, the benchmarks and the tests read these rows instead of guessing from provider names, so a
 * new provider is one row. */
#ifndef TAKYON_TAKYON_PROVIDERS_H_
#define TAKYON_TAKYON_PROVIDERS_H_

#include <stdbool.h>
#include <stdint.h>

#include "takyon.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How far apart a provider's two endpoints may be. */
typedef enum {
  TAKYON_REACH_THREADS = 1,   /**< threads of one process */
  TAKYON_REACH_PROCESSES = 2, /**< processes of one OS (and threads of one process) */
  TAKYON_REACH_HOSTS = 3      /**< processes on any hosts a network joins (and closer ones) */
} TakyonProviderReach;

/** Addressing forms a provider's interconnect string takes (TakyonProviderInfo.addressing bits). */
#define TAKYON_ADDRESS_ID 0x1u            /**< "<name> -ID=<n>": both endpoints name the same number */
#define TAKYON_ADDRESS_CLIENT_SERVER 0x2u /**< "-server"/"-client" with "-IP=" and "-port=" (or "-ID=") */
#define TAKYON_ADDRESS_UNICAST 0x4u       /**< a datagram destination "-IP= -port=" */
#define TAKYON_ADDRESS_MULTICAST 0x8u     /**< a multicast group "-IP= -group= -port=" */

/**
 * One row of the provider table. Rows live as long as the library; fields may be added at the end in
 * later versions, so use the pointer, do not copy the struct between builds.
 */
typedef struct {
  const char *name;           /**< the interconnect string's first word, e.g. "InterProcessMemcpy" */
  const char *peer_name;      /**< the provider of the other endpoint: name itself, or the other half
                                   of a one-way pair (UnicastSendSocket <-> UnicastRecvSocket) */
  TakyonProviderReach reach;  /**< the farthest its endpoints may be */
  uint32_t addressing;        /**< TAKYON_ADDRESS_* bits */
  bool available;             /**< built into this library (Ucx needs UCX at build time) */
  bool shares_buffers;        /**< both endpoints see one memory: a send moves no bytes, only signals;
                                   src_offset must equal dest_offset */
  bool reliable;              /**< every message arrives, whole and in order per buffer */
  bool connected;             /**< two endpoints joined at create; a departed peer is reported */
  bool sends;                 /**< endpoint A may send to B (false: this end only receives) */
  bool receives;              /**< the endpoint may receive */
  bool stream;                /**< bytes go through a bounded kernel buffer: a send may wait until the
                                   receiver reads, so keep in flight less than the buffer holds */
  bool app_send_buffers;      /**< sender_addr_list may name application memory (false: only 0, the
                                   provider's memory) */
  bool app_recv_buffers;      /**< recver_addr_list may name application memory */
  bool one_sided;             /**< takyonWrite, takyonRead and the 64-bit atomics on the peer's
                                   receive buffers (takyon.h) */
  uint64_t max_message_bytes; /**< largest message; 0: as large as the buffers */
  const char *description;    /**< one line for people */
} TakyonProviderInfo;

/** Number of rows in the provider table. */
TAKYON_API int takyonProviderCount(void);

/** Row `index` (0 .. takyonProviderCount()-1), or NULL when out of range. */
TAKYON_API const TakyonProviderInfo *takyonProviderInfo(int index);

/** The row of provider `name` (an interconnect string's first word; anything after a space is
 * ignored), or NULL for an unknown provider or a NULL name. */
TAKYON_API const TakyonProviderInfo *takyonFindProvider(const char *name);

/** The row of the provider an open path uses, or NULL for a NULL path. */
TAKYON_API const TakyonProviderInfo *takyonPathProvider(const TakyonPath *path);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_PROVIDERS_H_ */
