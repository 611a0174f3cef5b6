// SPDX-License-Identifier: MIT
// MPI messages below the entry points: point-to-point argument checks (each error names the function
// and the argument), requests made from checked arguments (what the entry points and the collective
// schedules start), request handles, and MPI_Status filling (byte count in MPI_internal[0..1],
// cancelled flag in MPI_internal[2]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm/comm.hpp"
#include "datatype/predefined.hpp"
#include "datatype/type.hpp"
#include "errors.hpp"
#include "mpi.h"
#include "pt2pt/request.hpp"
#include "runtime.hpp"

namespace takyon::mpi {

inline constexpr int kTagUb = 0x7fffffff;

struct P2pArgs {
  CommInfo* comm = nullptr;
  std::size_t bytes = 0;
  int world_peer = 0;  ///< or kAnySource
  int tag = 0;         ///< or kAnyTag
  bool null_proc = false;
  std::size_t count = 0;
  bool contiguous = true;  ///< the data is the `bytes` bytes at buf + lb (else packed through the request)
  MPI_Aint lb = 0;
};

/// The full checks behind check_send / check_recv (any communicator and datatype; errors named).
P2pArgs check_send_full(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm);
P2pArgs check_recv_full(const char* fn, const void* buf, int count, MPI_Datatype dt, int source, int tag,
                        MPI_Comm comm);

/// The common case of a send or receive, checked inline (a blocking send's checks are on the
/// critical path of every ping-pong hop, where the cost of out-of-line calls shows): MPI_COMM_WORLD
/// after MPI_Init, a predefined datatype, a non-negative count with a buffer, a world rank (or
/// MPI_ANY_SOURCE when `any_ok`) and a tag in range (or MPI_ANY_TAG). Returns false for anything
/// else, which the full checks then accept or reject with a message.
inline bool quick_world_args(const void* buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                             bool any_ok, P2pArgs& a) {
  if (comm != MPI_COMM_WORLD || detail::g_engine == nullptr) return false;
  const Type* t = find_predefined(dt);
  if (t == nullptr || count < 0 || (buf == nullptr && count > 0)) return false;
  if (unsigned(peer) < unsigned(engine().size())) {
    a.world_peer = peer;
  } else if (any_ok && peer == MPI_ANY_SOURCE) {
    a.world_peer = kAnySource;
  } else {
    return false;
  }
  if (unsigned(tag) <= unsigned(kTagUb)) {
    a.tag = tag;
  } else if (any_ok && tag == MPI_ANY_TAG) {
    a.tag = kAnyTag;
  } else {
    return false;
  }
  a.comm = &world_comm();
  a.null_proc = false;
  a.count = std::size_t(count);
  a.bytes = a.count * t->size;
  a.contiguous = t->contiguous || a.bytes == 0;
  a.lb = t->contiguous ? t->lb : 0;
  return true;
}

/// Checks a send's arguments (comm, count, datatype, buffer, dest, tag); throws MpiError.
inline P2pArgs check_send(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                          MPI_Comm comm) {
  P2pArgs a;
  if (quick_world_args(buf, count, dt, dest, tag, comm, false, a)) return a;
  return check_send_full(fn, buf, count, dt, dest, tag, comm);
}
/// Checks a receive's arguments (source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG); throws MpiError.
inline P2pArgs check_recv(const char* fn, const void* buf, int count, MPI_Datatype dt, int source, int tag,
                          MPI_Comm comm) {
  P2pArgs a;
  if (quick_world_args(buf, count, dt, source, tag, comm, true, a)) return a;
  return check_recv_full(fn, buf, count, dt, source, tag, comm);
}
/// Checks (source, tag) of a probe; throws MpiError.
P2pArgs check_probe(const char* fn, int source, int tag, MPI_Comm comm);

/// A request for the checked operation, not started. A datatype that is not contiguous makes a send
/// pack the data into the request now (pack_now false: persistent sends, which pack at every
/// MPI_Start through prepare_start()), a receive receive into a request buffer (see deliver()). If
/// that buffer cannot be had (std::bad_alloc), the request goes back to the pool before the throw.
Request* make_send(const P2pArgs& a, const void* buf, MPI_Datatype dt, SendMode mode, bool pack_now = true);
Request* make_recv(const P2pArgs& a, void* buf, MPI_Datatype dt);
/// A completed receive with a packed buffer: unpacks what arrived into the user's buffer (once).
/// Every path that completes a receive for the user calls it (Wait/Test families, Recv, Sendrecv).
void deliver(Request& r);
/// Before a persistent request starts again: a packed send packs the user's buffer anew.
void prepare_start(Request& r);

/// Where the data of a contiguous buffer starts: buf + lb, as integer arithmetic (buf may be
/// MPI_BOTTOM, NULL, with lb an absolute address).
inline char* data_at(const void* buf, MPI_Aint lb) {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(lb));
}

inline MPI_Request to_handle(Request* r) {
  return reinterpret_cast<MPI_Request>(r);
}
/// The live request behind a handle; nullptr for MPI_REQUEST_NULL; throws MPI_ERR_REQUEST otherwise.
Request* check_request(MPI_Request h, const char* fn, const char* arg);

inline void status_set_bytes(MPI_Status* s, std::size_t bytes) {
  s->MPI_internal[0] = static_cast<int>(static_cast<std::uint32_t>(bytes & 0xffffffffU));
  s->MPI_internal[1] = static_cast<int>(static_cast<std::uint32_t>(std::uint64_t(bytes) >> 32));
}
inline std::size_t status_bytes(const MPI_Status* s) {
  return std::size_t(static_cast<std::uint32_t>(s->MPI_internal[0])) |
         (std::size_t(static_cast<std::uint32_t>(s->MPI_internal[1])) << 32);
}
/// source MPI_ANY_SOURCE, tag MPI_ANY_TAG, no error, 0 bytes, not cancelled.
void set_empty_status(MPI_Status* s);
/// A probe's status: the message's source (as a rank of `c`), tag and size.
void set_probe_status(MPI_Status* s, const CommInfo& c, int world_source, int tag, std::size_t bytes);
/// A probe's status for MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, 0 bytes; MPI_ERROR
/// as it was (one status: not set).
inline void set_proc_null_status(MPI_Status* s) {
  if (s == MPI_STATUS_IGNORE) return;
  s->MPI_SOURCE = MPI_PROC_NULL;
  s->MPI_TAG = MPI_ANY_TAG;
  status_set_bytes(s, 0);
  s->MPI_internal[2] = 0;
}
/// What a completed request reports (status may be MPI_STATUS_IGNORE).
void set_status(MPI_Status* s, const Request& r);
/// MPI_ERR_TRUNCATE for a truncated receive, else MPI_SUCCESS.
inline int request_error(const Request& r) {
  if (!r.truncated) return MPI_SUCCESS;
  return r.error_class != 0 ? r.error_class : MPI_ERR_TRUNCATE;
}

/// Completes the bookkeeping of a finished request: fills `status`, frees a non-persistent request
/// (setting *handle to MPI_REQUEST_NULL) or deactivates a persistent one; returns its error code. A
/// generalized request's status and error come from its query callback, then its free callback runs.
int finish_request(MPI_Request* handle, MPI_Status* status);

/// Waits for started receive `r` of a blocking call, reports it in `status` and releases it; throws
/// MPI_ERR_TRUNCATE if it was truncated (MPI_Recv, MPI_Mrecv).
int finish_blocking_recv(const char* fn, Request* r, MPI_Status* status);

}  // namespace takyon::mpi
