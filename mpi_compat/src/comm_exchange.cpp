// SPDX-License-Identifier: MIT
// Communicator-creation exchanges over the point-to-point engine (see comm_exchange.hpp).
#include "comm_exchange.hpp"

#include <cstring>
#include <string>

#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

Request* make(RequestKind kind, CommInfo& over, int world_peer, int ctx, int tag, void* buf, std::size_t bytes) {
  Request* r = engine().requests().acquire();
  r->kind = kind;
  r->mode = SendMode::kStandard;
  r->buf = buf;
  r->bytes = bytes;
  r->peer = world_peer;
  r->tag = tag;
  r->ctx = ctx;
  r->comm = &over;
  r->datatype = MPI_BYTE;
  return r;
}

}  // namespace

std::vector<std::vector<unsigned char>> exchange_all(CommInfo& over, const std::vector<int>& members, int me, int ctx,
                                                     int tag, const void* mine, std::size_t bytes) {
  const std::size_t n = members.size();
  std::vector<std::vector<unsigned char>> all(n, std::vector<unsigned char>(bytes));
  if (bytes > 0) std::memcpy(all[std::size_t(me)].data(), mine, bytes);
  Engine& e = engine();
  std::vector<Request*> reqs;
  reqs.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    if (int(i) == me) continue;
    Request* r = make(RequestKind::kRecv, over, members[i], ctx, tag, all[i].data(), bytes);
    e.start_recv(r);
    reqs.push_back(r);
  }
  for (std::size_t k = 1; k < n; ++k) {  // start with the next member: spreads the load
    std::size_t i = (std::size_t(me) + k) % n;
    Request* r = make(RequestKind::kSend, over, members[i], ctx, tag, const_cast<void*>(mine), bytes);
    e.start_send(r);
    reqs.push_back(r);
  }
  // A peer's death throws PeerFailure out of here; the requests stay with the engine (the job ends).
  e.wait_until([&] {
    for (Request* r : reqs) {
      if (!r->complete) return false;
    }
    return true;
  });
  bool bad = false;
  int bad_rank = 0;
  for (Request* r : reqs) {
    if (r->kind == RequestKind::kRecv && (r->truncated || r->status_bytes != bytes)) {
      bad = true;
      bad_rank = r->status_source;
    }
    e.requests().release(r);
  }
  if (bad) {
    fail(MPI_ERR_INTERN, "communicator creation",
         "world rank " + std::to_string(bad_rank) + " sent a creation record of another size (did every member "
         "call the same creation function?)");
  }
  return all;
}

}  // namespace takyon::mpi
