// SPDX-License-Identifier: MIT
// Argument checks, request handles and statuses for the point-to-point entry points (see common.hpp).
#include "messages.hpp"

#include <memory>
#include <string>

#include "datatype/datatype.hpp"
#include "datatype/pack.hpp"
#include "datatype/type.hpp"
#include "greq.hpp"

namespace takyon::mpi {
namespace {

void check_buffer(const char* fn, const void* buf, int count, MPI_Datatype dt, P2pArgs& a) {
  if (count < 0) fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument count)");
  check_type(dt, fn);
  const Type& t = *find_type(dt);
  // A derived type may address absolute memory from MPI_BOTTOM (NULL).
  if (buf == nullptr && count > 0 && t.predefined) {
    fail(MPI_ERR_BUFFER, fn, "buffer is NULL with count " + std::to_string(count) + " (argument buf)");
  }
  a.count = std::size_t(count);
  a.bytes = items_bytes(dt, a.count, fn, "count");
  a.contiguous = t.contiguous || a.bytes == 0;
  a.lb = t.contiguous ? t.lb : 0;
}

/// The type a packed request uses: its held derived type, or a predefined one (always valid).
const Type& request_type(const Request& r) {
  if (r.dt_hold) return *static_cast<const Type*>(r.dt_hold.get());
  return *find_type(static_cast<MPI_Datatype>(const_cast<void*>(r.datatype)));
}

/// Points the request at its data: in place (contiguous) or a request buffer (packed).
void attach_data(Request* r, const P2pArgs& a, const void* buf, MPI_Datatype dt) {
  r->datatype = dt;
  if (a.contiguous || a.null_proc) {
    r->buf = data_at(buf, a.lb);
    return;
  }
  r->packed = true;
  r->dt_hold = hold_type(dt);
  r->user_buf = const_cast<void*>(buf);
  r->user_count = a.count;
  r->owned = std::make_unique_for_overwrite<char[]>(a.bytes);
  r->buf = r->owned.get();
}

void check_rank(const char* fn, const CommInfo& c, int rank, const char* arg, bool any_ok) {
  int size = peer_size(c);  // an intercommunicator's ranks name its remote group
  if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE)) return;
  if (rank < 0 || rank >= size) {
    fail(MPI_ERR_RANK, fn,
         "invalid rank " + std::to_string(rank) + " (argument " + arg +
             (is_inter(c) ? ", remote group size " : ", communicator size ") + std::to_string(size) + ")");
  }
}

void check_tag(const char* fn, int tag, bool any_ok) {
  if (any_ok && tag == MPI_ANY_TAG) return;
  if (tag < 0 || tag > kTagUb) {
    fail(MPI_ERR_TAG, fn,
         "invalid tag " + std::to_string(tag) + " (argument tag; 0.." + std::to_string(kTagUb) +
             (any_ok ? " or MPI_ANY_TAG)" : ")"));
  }
}

}  // namespace

P2pArgs check_send_full(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm) {
  P2pArgs a;
  a.comm = &check_comm(comm, fn);
  check_buffer(fn, buf, count, dt, a);
  check_rank(fn, *a.comm, dest, "dest", false);
  check_tag(fn, tag, false);
  a.null_proc = dest == MPI_PROC_NULL;
  a.world_peer = a.null_proc ? 0 : to_world(*a.comm, dest);
  a.tag = tag;
  return a;
}

P2pArgs check_recv_full(const char* fn, const void* buf, int count, MPI_Datatype dt, int source, int tag,
                        MPI_Comm comm) {
  P2pArgs a;
  a.comm = &check_comm(comm, fn);
  check_buffer(fn, buf, count, dt, a);
  check_rank(fn, *a.comm, source, "source", true);
  check_tag(fn, tag, true);
  a.null_proc = source == MPI_PROC_NULL;
  a.world_peer = source == MPI_ANY_SOURCE ? kAnySource : a.null_proc ? 0 : to_world(*a.comm, source);
  a.tag = tag == MPI_ANY_TAG ? kAnyTag : tag;
  return a;
}

P2pArgs check_probe(const char* fn, int source, int tag, MPI_Comm comm) {
  P2pArgs a;
  a.comm = &check_comm(comm, fn);
  check_rank(fn, *a.comm, source, "source", true);
  check_tag(fn, tag, true);
  a.null_proc = source == MPI_PROC_NULL;
  a.world_peer = source == MPI_ANY_SOURCE ? kAnySource : a.null_proc ? 0 : to_world(*a.comm, source);
  a.tag = tag == MPI_ANY_TAG ? kAnyTag : tag;
  return a;
}

Request* make_send(const P2pArgs& a, const void* buf, MPI_Datatype dt, SendMode mode, bool pack_now) {
  Request* r = engine().requests().acquire();
  r->kind = RequestKind::kSend;
  r->mode = mode;
  r->null_proc = a.null_proc;
  r->bytes = a.bytes;
  r->peer = a.world_peer;
  r->tag = a.tag;
  r->ctx = a.comm->ctx;
  r->comm = a.comm;
  try {
    attach_data(r, a, buf, dt);
    if (r->packed && pack_now) pack_items(buf, a.count, request_type(*r), r->buf);
  } catch (...) {
    engine().requests().release(r);  // no buffer for a packed copy: the request goes back to the pool
    throw;
  }
  return r;
}

Request* make_recv(const P2pArgs& a, void* buf, MPI_Datatype dt) {
  Request* r = engine().requests().acquire();
  r->kind = RequestKind::kRecv;
  r->null_proc = a.null_proc;
  r->bytes = a.bytes;
  r->peer = a.world_peer;
  r->tag = a.tag;
  r->ctx = a.comm->ctx;
  r->comm = a.comm;
  try {
    attach_data(r, a, buf, dt);
  } catch (...) {
    engine().requests().release(r);
    throw;
  }
  return r;
}

void deliver(Request& r) {
  if (!r.packed || r.kind != RequestKind::kRecv || r.delivered || !r.complete) return;
  r.delivered = true;
  if (r.null_proc || r.cancelled) return;
  unpack_items(r.buf, r.status_bytes, r.user_count, request_type(r), r.user_buf);
}

void prepare_start(Request& r) {
  r.delivered = false;
  if (r.packed && r.kind == RequestKind::kSend) pack_items(r.user_buf, r.user_count, request_type(r), r.buf);
}

Request* check_request(MPI_Request h, const char* fn, const char* arg) {
  if (h == MPI_REQUEST_NULL) return nullptr;
  check_initialized(fn);
  if (!engine().requests().owns_live(h)) {
    fail(MPI_ERR_REQUEST, fn,
         std::string("invalid request (argument ") + arg + "): not a live request handle");
  }
  return reinterpret_cast<Request*>(h);
}

void set_empty_status(MPI_Status* s) {
  if (s == MPI_STATUS_IGNORE) return;
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;
  status_set_bytes(s, 0);
  s->MPI_internal[2] = 0;
}

void set_status(MPI_Status* s, const Request& r) {
  if (s == MPI_STATUS_IGNORE) return;
  if (r.kind != RequestKind::kRecv) {  // sends and collectives
    set_empty_status(s);
    s->MPI_internal[2] = r.cancelled ? 1 : 0;  // a cancelled send (MPI_Test_cancelled)
    return;
  }
  // A receive's MPI_ERROR is left as it was unless the receive failed (a truncation): calls that
  // return one status do not set it (the standard's rule, which Open MPI follows and MPICH's tests
  // check); the array calls set it.
  if (r.null_proc) {
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_TAG = MPI_ANY_TAG;
    status_set_bytes(s, 0);
    s->MPI_internal[2] = 0;
    return;
  }
  if (r.cancelled) {
    set_empty_status(s);
    s->MPI_internal[2] = 1;
    return;
  }
  s->MPI_SOURCE = from_world(*static_cast<const CommInfo*>(r.comm), r.status_source);
  s->MPI_TAG = r.status_tag;
  if (request_error(r) != MPI_SUCCESS) s->MPI_ERROR = request_error(r);
  status_set_bytes(s, r.status_bytes);
  s->MPI_internal[2] = 0;
}

int finish_request(MPI_Request* handle, MPI_Status* status) {
  auto* r = reinterpret_cast<Request*>(*handle);
  if (r->kind == RequestKind::kGreq) {  // its status is the query callback's; then it is freed
    int err = query_greq(*r, status);
    int freed = release_greq(*r);
    *handle = MPI_REQUEST_NULL;
    return err != MPI_SUCCESS ? err : freed;
  }
  deliver(*r);
  set_status(status, *r);
  int err = request_error(*r);
  if (r->persistent) {
    r->active = false;
    r->complete = false;
  } else {
    engine().requests().release(r);
    *handle = MPI_REQUEST_NULL;
  }
  return err;
}

}  // namespace takyon::mpi
