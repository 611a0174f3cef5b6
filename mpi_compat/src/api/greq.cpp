// SPDX-License-Identifier: MIT
// Generalized requests' entry points: MPI_Grequest_start and MPI_Grequest_complete (the model and
// when each callback runs: greq.hpp).
#include "greq.hpp"
#include "api/common.hpp"
#include "api/export.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  constexpr const char* fn = "MPI_Grequest_start";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (request == nullptr) fail(MPI_ERR_ARG, fn, "request is NULL (argument request)");
    if (query_fn == nullptr) fail(MPI_ERR_ARG, fn, "query_fn is NULL (argument query_fn)");
    if (free_fn == nullptr) fail(MPI_ERR_ARG, fn, "free_fn is NULL (argument free_fn)");
    if (cancel_fn == nullptr) fail(MPI_ERR_ARG, fn, "cancel_fn is NULL (argument cancel_fn)");
    *request = to_handle(start_greq(query_fn, free_fn, cancel_fn, extra_state));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  constexpr const char* fn = "MPI_Grequest_complete";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    Request* r = check_request(request, fn, "request");
    if (r == nullptr) fail(MPI_ERR_REQUEST, fn, "request is MPI_REQUEST_NULL (argument request)");
    if (r->kind != RequestKind::kGreq)
      fail(MPI_ERR_REQUEST, fn, "not a generalized request (argument request)");
    if (r->complete) fail(MPI_ERR_REQUEST, fn, "MPI_Grequest_complete was already called (argument request)");
    int rc = complete_greq(*r);
    if (rc != MPI_SUCCESS)
      fail(rc, fn, "the freed request's free callback returned error code " + std::to_string(rc));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Grequest_complete)
