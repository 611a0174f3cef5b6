// SPDX-License-Identifier: MIT
// Blocking and nonblocking sends and receives, Sendrecv and Isendrecv (and their _replace forms), and
// the MPI_Bsend buffer.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "api/common.hpp"
#include "api/export.hpp"
#include "datatype/datatype.hpp"

namespace takyon::mpi {
namespace {

struct BsendBuffer {
  void* addr = nullptr;
  int size = 0;
};
BsendBuffer g_bsend;
std::vector<Request*> g_bsends;  ///< buffered sends not yet known to be complete

void reap_buffered_sends() {
  std::erase_if(g_bsends, [](Request* r) {
    if (!r->complete) return false;
    engine().requests().release(r);
    return true;
  });
}

/// An eager message of contiguous data written into the peer's ring at once (nothing queued before
/// it): the send is complete, with no request and no copy beyond the ring's.
bool send_eager_now(const P2pArgs& a, const void* buf) {
  return !a.null_proc && a.contiguous &&
         engine().try_send_eager_now(a.world_peer, a.comm->ctx, a.tag, data_at(buf, a.lb), a.bytes);
}

/// Runs a send to completion (blocking send semantics for `mode`).
int blocking_send(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm, SendMode mode) {
  P2pArgs a = check_send(fn, buf, count, dt, dest, tag, comm);
  if (a.null_proc) return MPI_SUCCESS;
  Engine& e = engine();
  if (mode != SendMode::kSync && send_eager_now(a, buf)) return MPI_SUCCESS;
  Request* r = make_send(a, buf, dt, mode);
  e.start_send(r);
  if (!r->complete) e.wait_until([r] { return r->complete; });
  e.requests().release(r);
  return MPI_SUCCESS;
}

int start_isend(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                SendMode mode, MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_REQUEST, fn, "request is NULL (argument request)");
  P2pArgs a = check_send(fn, buf, count, dt, dest, tag, comm);
  Request* r = make_send(a, buf, dt, mode);
  engine().start_send(r);
  *request = to_handle(r);
  return MPI_SUCCESS;
}

/// Throws MPI_ERR_BUFFER unless a buffer is attached that a message of a.bytes fits.
void check_bsend_room(const char* fn, const P2pArgs& a) {
  if (g_bsend.addr == nullptr) fail(MPI_ERR_BUFFER, fn, "no buffer attached (MPI_Buffer_attach)");
  if (a.bytes + MPI_BSEND_OVERHEAD > std::size_t(g_bsend.size)) {
    fail(MPI_ERR_BUFFER, fn,
         "message of " + std::to_string(a.bytes) + " bytes does not fit the attached buffer of " +
             std::to_string(g_bsend.size) + " bytes (MPI_BSEND_OVERHEAD is " +
             std::to_string(MPI_BSEND_OVERHEAD) + ")");
  }
}

/// A send request that owns a copy of its data (a packed send already does), so the caller's buffer
/// is free as soon as the call returns (MPI_Bsend, MPI_Ibsend, MPI_Sendrecv_replace).
Request* make_owning_send(const P2pArgs& a, const void* buf, MPI_Datatype dt, SendMode mode) {
  Request* r = make_send(a, buf, dt, mode);
  if (a.bytes != 0 && !a.null_proc && !r->packed) {
    r->owned = std::make_unique_for_overwrite<char[]>(a.bytes);
    std::memcpy(r->owned.get(), r->buf, a.bytes);
    r->buf = r->owned.get();
  }
  return r;
}

/// MPI_Bsend / MPI_Ibsend: the data is copied at once, so the send completes locally whatever the receiver
/// does.
Request* make_buffered(const char* fn, const P2pArgs& a, const void* buf, MPI_Datatype dt) {
  check_bsend_room(fn, a);
  return make_owning_send(a, buf, dt, SendMode::kBuffered);
}

/// Reports a completed blocking receive and releases it (MPI_ERR_TRUNCATE if it was truncated).
int recv_to_completion_done(const char* fn, Request* r, MPI_Status* status) {
  Engine& e = engine();
  deliver(*r);
  set_status(status, *r);
  bool truncated = r->truncated;
  std::string why = truncated ? truncation_message(fn, *r) : std::string();
  e.requests().release(r);
  if (truncated) throw MpiError(MPI_ERR_TRUNCATE, why);
  return MPI_SUCCESS;
}

/// Blocking-receive fast path (Engine::recv_eager_now): an eager message copied from the ring into
/// the buffer, no request. Contiguous datatypes only; false: the general path takes over.
bool recv_eager_now(const P2pArgs& a, void* buf, MPI_Status* status) {
  if (!a.contiguous || a.null_proc) return false;
  FastRecv got;
  if (!engine().recv_eager_now(a.comm->ctx, a.world_peer, a.tag, data_at(buf, a.lb), a.bytes, got)) {
    return false;
  }
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = a.comm == &world_comm() ? got.source : from_world(*a.comm, got.source);
    status->MPI_TAG = got.tag;
    status_set_bytes(status, got.bytes);  // MPI_ERROR as it was (set_status)
    status->MPI_internal[2] = 0;
  }
  return true;
}

int recv_to_completion(const char* fn, Request* r, MPI_Status* status) {
  engine().start_recv(r);
  return finish_blocking_recv(fn, r, status);
}

}  // namespace

int finish_blocking_recv(const char* fn, Request* r, MPI_Status* status) {
  if (!r->complete) engine().wait_receiving(r, [r] { return r->complete; });
  return recv_to_completion_done(fn, r, status);
}

void wait_buffered_sends() {
  if (g_bsends.empty()) return;
  engine().wait_until([] {
    for (Request* r : g_bsends) {
      if (!r->complete) return false;
    }
    return true;
  });
  reap_buffered_sends();
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  return guarded("MPI_Send", comm, [&] {
    return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
  });
}
TAKYON_MPI_WEAK_ALIAS(Send)

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return guarded("MPI_Ssend", comm, [&] {
    return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::kSync);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ssend)

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return guarded("MPI_Rsend", comm, [&] {
    return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::kReady);
  });
}
TAKYON_MPI_WEAK_ALIAS(Rsend)

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return guarded("MPI_Bsend", comm, [&] {
    P2pArgs a = check_send("MPI_Bsend", buf, count, datatype, dest, tag, comm);
    if (a.null_proc) return MPI_SUCCESS;
    check_bsend_room("MPI_Bsend", a);
    if (send_eager_now(a, buf)) return MPI_SUCCESS;  // in the ring already: no copy, no request
    reap_buffered_sends();
    Request* r = make_buffered("MPI_Bsend", a, buf, datatype);
    g_bsends.push_back(r);
    engine().start_send(r);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Bsend)

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  return guarded("MPI_Buffer_attach", MPI_COMM_WORLD, [&] {
    if (g_bsend.addr != nullptr) fail(MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is already attached");
    if (size < 0)
      fail(MPI_ERR_ARG, "MPI_Buffer_attach", "negative size " + std::to_string(size) + " (argument size)");
    if (buffer == nullptr && size > 0)
      fail(MPI_ERR_BUFFER, "MPI_Buffer_attach", "buffer is NULL (argument buffer)");
    g_bsend = {buffer, size};
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Buffer_attach)

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return guarded("MPI_Buffer_detach", MPI_COMM_WORLD, [&] {
    if (buffer_addr == nullptr || size == nullptr) {
      fail(MPI_ERR_ARG, "MPI_Buffer_detach", "NULL argument (buffer_addr or size)");
    }
    wait_buffered_sends();
    *static_cast<void**>(buffer_addr) = g_bsend.addr;
    *size = g_bsend.size;
    g_bsend = {};
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Buffer_detach)

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Status* status) {
  return guarded("MPI_Recv", comm, [&] {
    P2pArgs a = check_recv("MPI_Recv", buf, count, datatype, source, tag, comm);
    if (recv_eager_now(a, buf, status)) return MPI_SUCCESS;
    return recv_to_completion("MPI_Recv", make_recv(a, buf, datatype), status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Recv)

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return guarded("MPI_Isend", comm, [&] {
    return start_isend("MPI_Isend", buf, count, datatype, dest, tag, comm, SendMode::kStandard, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Isend)

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Issend", comm, [&] {
    return start_isend("MPI_Issend", buf, count, datatype, dest, tag, comm, SendMode::kSync, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Issend)

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Irsend", comm, [&] {
    return start_isend("MPI_Irsend", buf, count, datatype, dest, tag, comm, SendMode::kReady, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Irsend)

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Ibsend", comm, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Ibsend", "request is NULL (argument request)");
    P2pArgs a = check_send("MPI_Ibsend", buf, count, datatype, dest, tag, comm);
    Request* r = a.null_proc ? make_send(a, buf, datatype, SendMode::kBuffered)
                             : make_buffered("MPI_Ibsend", a, buf, datatype);
    engine().start_send(r);
    *request = to_handle(r);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Ibsend)

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return guarded("MPI_Irecv", comm, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Irecv", "request is NULL (argument request)");
    P2pArgs a = check_recv("MPI_Irecv", buf, count, datatype, source, tag, comm);
    Request* r = make_recv(a, buf, datatype);
    engine().start_recv(r);
    *request = to_handle(r);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Irecv)

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Sendrecv", comm, [&] {
    P2pArgs s = check_send("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm);
    P2pArgs r = check_recv("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm);
    Engine& e = engine();
    // Fast path: an eager send that goes out at once is complete, and what is left is a blocking receive.
    if (!r.null_proc && send_eager_now(s, sendbuf)) {
      if (recv_eager_now(r, recvbuf, status)) return MPI_SUCCESS;
      return recv_to_completion("MPI_Sendrecv", make_recv(r, recvbuf, recvtype), status);
    }
    Request* rr = make_recv(r, recvbuf, recvtype);
    e.start_recv(rr);
    Request* sr = make_send(s, sendbuf, sendtype, SendMode::kStandard);
    e.start_send(sr);
    e.wait_receiving(rr, [&] { return rr->complete && sr->complete; });
    e.requests().release(sr);
    return recv_to_completion_done("MPI_Sendrecv", rr, status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Sendrecv)

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                     int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Sendrecv_replace", comm, [&] {
    P2pArgs s = check_send("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, comm);
    P2pArgs r = check_recv("MPI_Sendrecv_replace", buf, count, datatype, source, recvtag, comm);
    // An eager send written into the ring at once has left the buffer: receive into it directly.
    if (send_eager_now(s, buf)) {
      if (recv_eager_now(r, buf, status)) return MPI_SUCCESS;
      return recv_to_completion("MPI_Sendrecv_replace", make_recv(r, buf, datatype), status);
    }
    // Otherwise the send keeps its own copy, since the receive overwrites the buffer.
    Request* sr = make_owning_send(s, buf, datatype, SendMode::kStandard);
    Engine& e = engine();
    Request* rr = make_recv(r, buf, datatype);
    e.start_recv(rr);
    e.start_send(sr);
    e.wait_receiving(rr, [&] { return rr->complete && sr->complete; });
    e.requests().release(sr);
    return recv_to_completion_done("MPI_Sendrecv_replace", rr, status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Sendrecv_replace)

namespace {

/// MPI_Isendrecv(_replace): one request, the receive's, completing once the send has too (Engine::pair).
void start_sendrecv(Request* rr, Request* sr, MPI_Request* request) {
  Engine& e = engine();
  Engine::pair(rr, sr);
  e.start_recv(rr);
  e.start_send(sr);
  *request = to_handle(rr);
}

}  // namespace

extern "C" int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                              int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                              int recvtag, MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Isendrecv", comm, [&] {
    const char* fn = "MPI_Isendrecv";
    if (request == nullptr) fail(MPI_ERR_REQUEST, fn, "request is NULL (argument request)");
    P2pArgs s = check_send(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm);
    P2pArgs r = check_recv(fn, recvbuf, recvcount, recvtype, source, recvtag, comm);
    Request* rr = make_recv(r, recvbuf, recvtype);
    Request* sr = nullptr;
    try {
      sr = make_send(s, sendbuf, sendtype, SendMode::kStandard);
    } catch (...) {
      engine().requests().release(rr);
      throw;
    }
    start_sendrecv(rr, sr, request);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Isendrecv)

extern "C" int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                      int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Isendrecv_replace", comm, [&] {
    const char* fn = "MPI_Isendrecv_replace";
    if (request == nullptr) fail(MPI_ERR_REQUEST, fn, "request is NULL (argument request)");
    P2pArgs s = check_send(fn, buf, count, datatype, dest, sendtag, comm);
    P2pArgs r = check_recv(fn, buf, count, datatype, source, recvtag, comm);
    // The send keeps its own copy: the receive overwrites the buffer, maybe before the send has read it.
    Request* sr = make_owning_send(s, buf, datatype, SendMode::kStandard);
    Request* rr = nullptr;
    try {
      rr = make_recv(r, buf, datatype);
    } catch (...) {
      engine().requests().release(sr);
      throw;
    }
    start_sendrecv(rr, sr, request);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Isendrecv_replace)
