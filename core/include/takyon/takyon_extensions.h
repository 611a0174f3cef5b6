/* SPDX-License-Identifier: MIT */
/* The guide's small extensions: attribute set-up, time, endian helpers, named memory maps. */
#ifndef TAKYON_TAKYON_EXTENSIONS_H_
#define TAKYON_TAKYON_EXTENSIONS_H_

#include <stdbool.h>
#include <stdint.h>

#include "takyon/takyon.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a named memory map's name, including the terminating NUL. */
#define TAKYON_MAX_MMAP_NAME_CHARS 128

/** Handle of a named memory block made by takyonMmapAlloc(). */
typedef struct TakyonMmapStruct *TakyonMmapHandle;

/**
 * Fills in attributes for a simple symmetric path: every buffer has `bytes` bytes, all six
 * timeouts are `timeout`, blocking completion, errors printed, no abort. The four lists are
 * malloc()ed (address entries 0: Takyon allocates) and freed by takyonFreeAttributes(). On
 * invalid arguments or no memory it prints why and returns attributes with NULL lists, which
 * takyonCreate() then rejects with a clear error.
 */
TAKYON_API TakyonPathAttributes takyonAllocAttributes(bool is_endpointA, bool is_polling, int nbufs_AtoB,
                                                      int nbufs_BtoA, uint64_t bytes, double timeout,
                                                      const char *interconnect);

/** Frees the lists that takyonAllocAttributes() allocated (any that are not NULL). */
TAKYON_API void takyonFreeAttributes(TakyonPathAttributes attrs);

/** Seconds elapsed since the first call to takyonTime() in this process (monotonic clock). */
TAKYON_API double takyonTime(void);

/** Puts the calling thread to sleep for `seconds` (resumes after signals until it elapsed). */
TAKYON_API void takyonSleep(double seconds);

/** true if this endpoint is big endian, false if little endian. */
TAKYON_API bool takyonEndianIsBig(void);
/** Byte-swaps num_elements 2-byte values in place. */
TAKYON_API void takyonEndianSwap2Byte(void *data, uint64_t num_elements);
/** Byte-swaps num_elements 4-byte values in place. */
TAKYON_API void takyonEndianSwap4Byte(void *data, uint64_t num_elements);
/** Byte-swaps num_elements 8-byte values in place. */
TAKYON_API void takyonEndianSwap8Byte(void *data, uint64_t num_elements);

/**
 * Creates a named memory block (POSIX shared memory "/takyon-mmap-<map_name>", mode 0600) of
 * `bytes` bytes that other processes of this OS can map by the same name. An existing block of
 * that name is removed and made anew. On failure *addr_ret and *mmap_handle_ret are set to NULL
 * and the reason is printed to stderr. Free with takyonMmapFree().
 */
TAKYON_API void takyonMmapAlloc(const char *map_name, uint64_t bytes, void **addr_ret,
                                TakyonMmapHandle *mmap_handle_ret);

/** Unmaps and removes a block made by takyonMmapAlloc(). NULL is ignored. */
TAKYON_API void takyonMmapFree(TakyonMmapHandle mmap_handle);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_EXTENSIONS_H_ */
