// SPDX-License-Identifier: MIT
// Communicator-creation exchanges over the point-to-point engine (see comm_exchange.hpp).
#include "comm_exchange.hpp"

#include <cstring>
#include <string>

#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

Request* make(RequestKind kind, CommInfo& over, int world_peer, int ctx, int tag, void* buf,
              std::size_t bytes) {
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

// Bruck's allgather: in round k (dist = 2^k) every member sends the blocks it holds so far, up to
// dist of them, to member me - dist and receives as many from me + dist; after ceil(log2 n) rounds
// block i of `held` is member (me + i) % n's. Rounds run in order on every member, so two messages
// between the same pair (same context and tag) match in order.
std::vector<std::vector<unsigned char>> exchange_all(CommInfo& over, const std::vector<int>& members, int me,
                                                     int ctx, int tag, const void* mine, std::size_t bytes) {
  const std::size_t n = members.size();
  std::vector<unsigned char> held(n * bytes);
  if (bytes > 0) std::memcpy(held.data(), mine, bytes);
  Engine& e = engine();
  for (std::size_t dist = 1; dist < n; dist <<= 1) {
    const std::size_t count = dist < n - dist ? dist : n - dist;
    const int to = members[(std::size_t(me) + n - dist) % n];
    const int from = members[(std::size_t(me) + dist) % n];
    Request* rr = make(RequestKind::kRecv, over, from, ctx, tag, held.data() + dist * bytes, count * bytes);
    e.start_recv(rr);
    Request* sr = make(RequestKind::kSend, over, to, ctx, tag, held.data(), count * bytes);
    e.start_send(sr);
    // A peer's death throws PeerFailure out of here; the requests stay with the engine (the job ends).
    e.wait_until([&] { return rr->complete && sr->complete; });
    const bool bad = rr->truncated || rr->status_bytes != count * bytes;
    e.requests().release(rr);
    e.requests().release(sr);
    if (bad) {
      fail(MPI_ERR_INTERN, "communicator creation",
           "world rank " + std::to_string(from) +
               " sent creation records of another size (did every member "
               "call the same creation function?)");
    }
  }
  std::vector<std::vector<unsigned char>> all(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* block = held.data() + i * bytes;
    all[(std::size_t(me) + i) % n].assign(block, block + bytes);
  }
  return all;
}

}  // namespace takyon::mpi
