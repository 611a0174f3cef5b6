// SPDX-License-Identifier: MIT
// Persistent requests: Send_init and friends create an inactive request, Start/Startall run it (a
// persistent collective's too, api/coll_init.cpp); Wait leaves it inactive for the next Start,
// MPI_Request_free releases it.
#include <cstring>

#include "api/common.hpp"
#include "api/export.hpp"
#include "coll/schedule.hpp"

namespace takyon::mpi {
namespace {

int send_init(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              SendMode mode, MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_REQUEST, fn, "request is NULL (argument request)");
  P2pArgs a = check_send(fn, buf, count, dt, dest, tag, comm);
  Request* r = make_send(a, buf, dt, mode, /*pack_now=*/false);  // MPI_Start packs
  r->persistent = true;
  *request = to_handle(r);
  return MPI_SUCCESS;
}

void start(const char* fn, MPI_Request handle, const char* arg) {
  Request* r = check_request(handle, fn, arg);
  if (r == nullptr) fail(MPI_ERR_REQUEST, fn, std::string("MPI_REQUEST_NULL (argument ") + arg + ")");
  if (!r->persistent)
    fail(MPI_ERR_REQUEST, fn, std::string("not a persistent request (argument ") + arg + ")");
  if (r->active) fail(MPI_ERR_REQUEST, fn, std::string("request is already active (argument ") + arg + ")");
  if (r->kind == RequestKind::kColl) {
    start_persistent(*r);
    return;
  }
  prepare_start(*r);
  if (r->kind == RequestKind::kRecv) {
    engine().start_recv(r);
  } else {
    engine().start_send(r);
  }
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Send_init", comm, [&] {
    return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, SendMode::kStandard, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Send_init)

extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Ssend_init", comm, [&] {
    return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, SendMode::kSync, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ssend_init)

extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Rsend_init", comm, [&] {
    return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, SendMode::kReady, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Rsend_init)

// A persistent buffered send behaves as a standard one: the caller keeps the buffer until Wait.
extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  return guarded("MPI_Bsend_init", comm, [&] {
    return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, SendMode::kStandard, request);
  });
}
TAKYON_MPI_WEAK_ALIAS(Bsend_init)

extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return guarded("MPI_Recv_init", comm, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Recv_init", "request is NULL (argument request)");
    P2pArgs a = check_recv("MPI_Recv_init", buf, count, datatype, source, tag, comm);
    Request* r = make_recv(a, buf, datatype);
    r->persistent = true;
    *request = to_handle(r);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Recv_init)

extern "C" int PMPI_Start(MPI_Request* request) {
  return guarded("MPI_Start", MPI_COMM_WORLD, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Start", "request is NULL (argument request)");
    start("MPI_Start", *request, "request");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Start)

extern "C" int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  return guarded("MPI_Startall", MPI_COMM_WORLD, [&] {
    if (count < 0)
      fail(MPI_ERR_COUNT, "MPI_Startall", "invalid count " + std::to_string(count) + " (argument count)");
    if (count > 0 && array_of_requests == nullptr)
      fail(MPI_ERR_REQUEST, "MPI_Startall", "array_of_requests is NULL");
    for (int i = 0; i < count; ++i) {
      std::string arg = "array_of_requests[" + std::to_string(i) + "]";
      start("MPI_Startall", array_of_requests[i], arg.c_str());
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Startall)
