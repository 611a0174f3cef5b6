/* SPDX-License-Identifier: MIT */
/* Takyon core C API: paths between two endpoints, as documented in the Takyon user's guide. */
#ifndef TAKYON_TAKYON_H_
#define TAKYON_TAKYON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "takyon_export.h" /* beside this header: works with -I<prefix>/include and -I<prefix>/include/takyon */

#ifdef __cplusplus
extern "C" {
#endif

/** Size of TakyonPathAttributes.interconnect, including the terminating NUL. */
#define TAKYON_MAX_INTERCONNECT_CHARS 1000
/** Size of the buffer behind TakyonPath.attrs.error_message, including the NUL. */
#define TAKYON_MAX_ERROR_MESSAGE_CHARS 10000

/** A timeout value (seconds) meaning "wait as long as it takes". 0 means "try once". */
#define TAKYON_WAIT_FOREVER (-1.0)

/* Verbosity flags, or-ed together in TakyonPathAttributes.verbosity. */
#define TAKYON_VERBOSITY_NONE 0x00u                /**< Print nothing. */
#define TAKYON_VERBOSITY_ERRORS 0x01u              /**< Errors, to stderr. */
#define TAKYON_VERBOSITY_CREATE_DESTROY 0x02u      /**< Create/destroy summary, to stdout. */
#define TAKYON_VERBOSITY_CREATE_DESTROY_MORE 0x04u /**< Create/destroy details, to stdout. */
#define TAKYON_VERBOSITY_SEND_RECV 0x08u           /**< One line per send/recv, to stdout. */
#define TAKYON_VERBOSITY_SEND_RECV_MORE 0x10u      /**< Send/recv details, to stdout. */
/* The guide's "Helpful Programming Tips" spell the detail flags this way. */
#define TAKYON_VERBOSITY_CREATE_DESTROY_DETAILS TAKYON_VERBOSITY_CREATE_DESTROY_MORE
#define TAKYON_VERBOSITY_SEND_RECV_DETAILS TAKYON_VERBOSITY_SEND_RECV_MORE

/** How takyonSend() (and, for symmetry, takyonRecv()) completes. */
typedef enum {
  TAKYON_BLOCKING = 0,            /**< The call returns when the transfer is complete. */
  TAKYON_USE_IS_SEND_FINISHED = 1 /**< takyonSend() starts, takyonIsSendFinished() completes. */
} TakyonCompletionMethod;
/* The guide's graph-file chapter spells the non-blocking method this way. */
#define TAKYON_IS_SEND_FINISHED TAKYON_USE_IS_SEND_FINISHED

/**
 * Everything that defines one endpoint of a path. Filled in by the application (or by
 * takyonAllocAttributes()) before takyonCreate(); copied into TakyonPath.attrs by takyonCreate(),
 * where the address lists then hold the buffers Takyon allocated.
 */
typedef struct {
  char interconnect[TAKYON_MAX_INTERCONNECT_CHARS]; /**< Provider string, e.g. "InterThreadMemcpy -ID=1". */
  bool is_endpointA;                                /**< true: endpoint A; false: endpoint B. */
  bool is_polling;             /**< true: spin while waiting; false: sleep in the kernel (event driven). */
  bool abort_on_failure;       /**< true: print the error to stderr and abort(). */
  uint64_t verbosity;          /**< Or-ed TAKYON_VERBOSITY_* flags. */
  double path_create_timeout;  /**< Seconds for takyonCreate(); expiry is an error. */
  double send_start_timeout;   /**< Seconds for takyonSend() to start; expiry is NOT an error. */
  double send_finish_timeout;  /**< Seconds for a started send to finish; expiry is an error. */
  double recv_start_timeout;   /**< Seconds for a message to start arriving; expiry is NOT an error. */
  double recv_finish_timeout;  /**< Seconds for an arriving message to complete; expiry is an error. */
  double path_destroy_timeout; /**< Seconds for the graceful shutdown with the peer. */
  TakyonCompletionMethod send_completion_method; /**< TAKYON_BLOCKING or TAKYON_USE_IS_SEND_FINISHED. */
  TakyonCompletionMethod recv_completion_method; /**< Must be TAKYON_BLOCKING. */
  int nbufs_AtoB;                  /**< Buffers from A to B. One of nbufs_AtoB, nbufs_BtoA must be > 0. */
  int nbufs_BtoA;                  /**< Buffers from B to A. */
  uint64_t *sender_max_bytes_list; /**< Send buffer sizes: nbufs_AtoB entries on A, nbufs_BtoA on B. */
  uint64_t *recver_max_bytes_list; /**< Receive buffer sizes: nbufs_BtoA entries on A, nbufs_AtoB on B. */
  size_t *sender_addr_list;        /**< Send buffer addresses; 0 = Takyon allocates (page aligned). */
  size_t *recver_addr_list;        /**< Receive buffer addresses; 0 = Takyon allocates (page aligned). */
  char *error_message;             /**< Set by Takyon, never by the application (see takyonCreate()). */
} TakyonPathAttributes;

/** One endpoint of a path. Opaque except attrs. */
typedef struct {
  TakyonPathAttributes attrs; /**< The path's attributes, with the final buffer addresses. */
  void *private_path;         /**< Internal state: do not touch. */
} TakyonPath;

/**
 * Creates this endpoint of a path and, for connected providers, connects it to the peer
 * endpoint (which calls takyonCreate() with the other is_endpointA value), bounded by
 * attributes->path_create_timeout.
 * Returns the path, or NULL on failure (or abort() if abort_on_failure). On failure
 * attributes->error_message receives a malloc()ed description the application frees; on
 * success it is set to NULL. The attributes and their lists are copied: the application may
 * free them once this returns. Threading: any thread; one call per endpoint.
 */
TAKYON_API TakyonPath *takyonCreate(TakyonPathAttributes *attributes);

/**
 * Sends bytes from send buffer buffer_index at src_offset into the peer's receive buffer
 * buffer_index at dest_offset, then notifies the peer. Blocking or non-blocking according to
 * send_completion_method. Returns true on success or start timeout (*timed_out_ret tells which;
 * timed_out_ret may be NULL only when both send timeouts are TAKYON_WAIT_FOREVER), false on
 * error (message in path->attrs.error_message; the path must then be destroyed).
 * Threading: one thread per path direction at a time.
 */
TAKYON_API bool takyonSend(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                           uint64_t dest_offset, bool *timed_out_ret);

/**
 * Completes a send started with TAKYON_USE_IS_SEND_FINISHED on buffer_index, waiting up to
 * send_finish_timeout. Returns true with *timed_out_ret = true if not yet finished (call again),
 * true with false when done, false on error.
 */
TAKYON_API bool takyonIsSendFinished(TakyonPath *path, int buffer_index, bool *timed_out_ret);

/** The guide's other name for takyonIsSendFinished(); identical behaviour. */
TAKYON_API bool takyonSendTest(TakyonPath *path, int buffer_index, bool *timed_out_ret);

/**
 * Waits for the next message in receive buffer buffer_index (bounded by recv_start_timeout and
 * recv_finish_timeout) and returns its size and offset (either pointer may be NULL). Returns true
 * on success or start timeout (*timed_out_ret tells which), false on error.
 */
TAKYON_API bool takyonRecv(TakyonPath *path, int buffer_index, uint64_t *bytes_ret, uint64_t *offset_ret,
                           bool *timed_out_ret);

/**
 * Destroys this endpoint: graceful (coordinated with the peer, bounded by path_destroy_timeout)
 * when the path is healthy, forced after an error. Frees the buffers Takyon allocated and sets
 * *path_ret to NULL. Returns NULL on success, else a malloc()ed error string the caller frees.
 * A path with the same ID can be created again as soon as this returns.
 */
TAKYON_API char *takyonDestroy(TakyonPath **path_ret);

/*
 * One-sided operations (beyond the guide). The targets are the peer's receive buffers, the same
 * buffers a send fills: buffer_index names this endpoint's send buffer and the peer's receive
 * buffer of that index, as in takyonSend(). Each of these four blocking calls is complete when it
 * returns (the bytes are in the peer's buffer, or in this endpoint's; the started forms below are
 * complete at their finish test), and the peer is not notified. Only providers whose row
 * says one_sided (takyon_providers.h) have them; on any other path each call fails naming the
 * provider. Bounds, alignment and a departed peer are errors as for takyonSend(): false, the
 * message in path->attrs.error_message, and the path must then be destroyed. Ordering: a blocking
 * one-sided call completes before the next call on the path starts, so a takyonSend() after a
 * takyonWrite() notifies the peer of bytes that are already there.
 */

/** Copies bytes from send buffer buffer_index at src_offset into the peer's receive buffer
 * buffer_index at dest_offset. */
TAKYON_API bool takyonWrite(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                            uint64_t dest_offset);

/** Copies bytes from the peer's receive buffer buffer_index at remote_offset into send buffer
 * buffer_index at local_offset. */
TAKYON_API bool takyonRead(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t local_offset,
                           uint64_t remote_offset);

/** Atomically adds `add` to the 64-bit word at offset (8-byte aligned) of the peer's receive buffer
 * buffer_index; the word's previous value goes to *old_ret (may be NULL). Atomic with respect to
 * every other one-sided atomic on that word, from either endpoint. */
TAKYON_API bool takyonAtomicFetchAdd(TakyonPath *path, int buffer_index, uint64_t offset, uint64_t add,
                                     uint64_t *old_ret);

/** Atomically replaces the 64-bit word at offset (8-byte aligned) of the peer's receive buffer
 * buffer_index with `swap` if it equals `compare`; the word's previous value goes to *old_ret (may be
 * NULL): the swap happened when it equals `compare`. */
TAKYON_API bool takyonAtomicCompareSwap(TakyonPath *path, int buffer_index, uint64_t offset, uint64_t compare,
                                        uint64_t swap, uint64_t *old_ret);

/*
 * Started (non-blocking) one-sided operations: the same four calls, each returning once its
 * operation is under way; takyonIsOneSidedFinished() is their finish test and fence. Until it says
 * they are finished, a started operation's bytes in the send buffer must not change (a write's
 * source, a read's destination) and *old_ret must stay valid; it is written by then. Calls that
 * must follow them complete them first: takyonSend() and takyonWritePiggyback() (not complete by
 * send_finish_timeout: they return timed out, nothing sent), the blocking one-sided calls and the
 * start of more than 64 at once (bounded by send_finish_timeout; a timeout is an error), and
 * takyonDestroy() (bounded by path_destroy_timeout). Where the provider does an operation in the call (the
 * peer's buffer is mapped here), a start completes it, and the finish test has nothing left to wait for.
 * Errors of a started operation come from its start or from the call that completes it.
 */

TAKYON_API bool takyonWriteStart(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                                 uint64_t dest_offset);
TAKYON_API bool takyonReadStart(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t local_offset,
                                uint64_t remote_offset);
TAKYON_API bool takyonAtomicFetchAddStart(TakyonPath *path, int buffer_index, uint64_t offset, uint64_t add,
                                          uint64_t *old_ret);
TAKYON_API bool takyonAtomicCompareSwapStart(TakyonPath *path, int buffer_index, uint64_t offset,
                                             uint64_t compare, uint64_t swap, uint64_t *old_ret);

/**
 * Completes every one-sided operation started on the path: when it returns true with
 * *timed_out_ret false, each is complete at the peer (a write's bytes are in its buffer). Waits up
 * to send_finish_timeout: true with *timed_out_ret = true if some are still in flight (call again);
 * timed_out_ret may be NULL only when send_finish_timeout is TAKYON_WAIT_FOREVER. False on error.
 */
TAKYON_API bool takyonIsOneSidedFinished(TakyonPath *path, bool *timed_out_ret);

/**
 * A takyonSend() whose notification carries a 32-bit value (beyond the guide; the "write with
 * piggyback" of RDMA): bytes from send buffer buffer_index at src_offset into the peer's receive
 * buffer at dest_offset, then the peer's takyonRecvPiggyback() returns them with `piggyback`.
 * Everything else is takyonSend()'s: it waits (send_start_timeout) for the peer to have received the
 * previous message of that buffer, completes as send_completion_method says, and fails the same way.
 * Only providers whose row says piggyback (takyon_providers.h) have it; elsewhere it fails naming the
 * provider.
 */
TAKYON_API bool takyonWritePiggyback(TakyonPath *path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                                     uint64_t dest_offset, uint32_t piggyback, bool *timed_out_ret);

/** takyonRecv() that also returns the message's piggyback value (0 for a message from takyonSend())
 * in *piggyback_ret (may be NULL). */
TAKYON_API bool takyonRecvPiggyback(TakyonPath *path, int buffer_index, uint64_t *bytes_ret,
                                    uint64_t *offset_ret, uint32_t *piggyback_ret, bool *timed_out_ret);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_H_ */
