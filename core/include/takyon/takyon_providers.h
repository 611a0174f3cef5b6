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
  bool piggyback;             /**< takyonWritePiggyback: a send whose notification carries 32 bits */
  bool zero_byte;             /**< zero-byte messages and one-sided transfers are allowed */
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

/**
 * What one open endpoint can do: its provider's row (above) narrowed by this path's buffers and by
 * what the transport chose at create. Filled by takyonPathCapabilities(); fields may be added at the
 * end in later versions (pass the struct of the header you compiled with).
 */
typedef struct {
  bool sends;                     /**< takyonSend (and takyonWritePiggyback when piggyback) */
  bool receives;                  /**< takyonRecv */
  bool write;                     /**< takyonWrite into the peer's receive buffers */
  bool read;                      /**< takyonRead from them */
  bool piggyback;                 /**< takyonWritePiggyback / takyonRecvPiggyback carry a 32-bit value */
  bool atomics;                   /**< takyonAtomicFetchAdd and takyonAtomicCompareSwap (64-bit) */
  bool unreliable;                /**< messages may be dropped or reordered (datagrams) */
  bool zero_byte;                 /**< zero-byte messages and one-sided transfers */
  bool one_sided_needs_peer_call; /**< one-sided operations complete only while the peer endpoint is
                                       inside a call on this path (takyonRecv, takyonSend, ...): the
                                       provider carries them to the peer instead of touching its
                                       memory directly (docs/path-api.md, "Progress") */
  uint64_t max_message_bytes;     /**< the largest takyonSend on this path: the largest of
                                       min(send buffer i, the peer's receive buffer i), capped by the
                                       provider's max_message_bytes */
  uint64_t max_one_sided_bytes;   /**< the largest takyonWrite/takyonRead: the largest of min(send
                                       buffer i, the peer's receive buffer i); 0 without one-sided */
} TakyonPathCapabilities;

/** Fills *caps_ret with what `path` can do. Returns false (leaving *caps_ret untouched) for a NULL
 * path or a NULL caps_ret. */
TAKYON_API bool takyonPathCapabilities(const TakyonPath *path, TakyonPathCapabilities *caps_ret);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_PROVIDERS_H_ */
