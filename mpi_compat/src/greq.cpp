// SPDX-License-Identifier: MIT
// Generalized requests (see greq.hpp). The callbacks live in a table by request, so the engine's
// Request needs nothing of them.
#include "greq.hpp"

#include <unordered_map>

#include "comm/comm.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

struct Callbacks {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free_fn;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
};

std::unordered_map<const Request*, Callbacks>& table() {
  static std::unordered_map<const Request*, Callbacks> t;
  return t;
}

}  // namespace

Request* start_greq(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free_fn,
                    MPI_Grequest_cancel_function* cancel, void* extra_state) {
  Request* r = engine().requests().acquire();
  r->kind = RequestKind::kGreq;
  r->comm = &world_comm();
  r->datatype = MPI_BYTE;
  r->active = true;
  try {
    table().emplace(r, Callbacks{query, free_fn, cancel, extra_state});
  } catch (...) {
    engine().requests().release(r);
    throw;
  }
  return r;
}

int query_greq(Request& r, MPI_Status* status) {
  MPI_Status own{};
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  // What the callback does not set reads as an empty status: no source, no tag, no bytes, not cancelled.
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  for (int& w : st->MPI_internal) w = 0;
  const Callbacks& c = table().at(&r);
  int rc = c.query(c.extra_state, st);
  st->MPI_ERROR = rc;
  return rc;
}

int release_greq(Request& r) {
  auto it = table().find(&r);
  Callbacks c = it->second;
  table().erase(it);
  engine().requests().release(&r);
  return c.free_fn(c.extra_state);
}

int complete_greq(Request& r) {
  r.complete = true;
  return r.freed ? release_greq(r) : MPI_SUCCESS;
}

int free_greq(Request& r) {
  if (r.complete) return release_greq(r);
  r.freed = true;
  return MPI_SUCCESS;
}

int cancel_greq(Request& r) {
  const Callbacks& c = table().at(&r);
  return c.cancel(c.extra_state, r.complete ? 1 : 0);
}

}  // namespace takyon::mpi
