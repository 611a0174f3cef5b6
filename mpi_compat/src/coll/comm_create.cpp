// SPDX-License-Identifier: MIT
// Communicator creation: the exchanges over the point-to-point engine, the slot agreement and the
// topology communicators (see comm_create.hpp).
#include "coll/comm_create.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "coll/flat.hpp"
#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {

void offerable_slots(CtxMask& mask) {
  free_slots(mask);
  for (int slot = 0; slot < shm::kFlatSlots; ++slot) {
    const std::uint64_t bit = std::uint64_t{1} << (slot % 64);
    if ((mask[slot / 64] & bit) != 0 && !flat::slot_reusable(slot)) mask[slot / 64] &= ~bit;
  }
}

void free_comm(CommInfo& c) {
  flat::release(c);  // announces this rank is done with the slot's flat lines (slot_reusable)
  release_comm(c);
}
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
void exchange_all(CommInfo& over, const std::vector<int>& members, int me, int ctx, int tag, const void* mine,
                  std::size_t bytes, void* all) {
  const std::size_t n = members.size();
  // Shared: a send still in flight when a peer's death ends this call keeps it (Request::keep).
  std::shared_ptr<unsigned char[]> held_block =
      std::make_shared_for_overwrite<unsigned char[]>(n * bytes + 1);
  unsigned char* held = held_block.get();
  if (bytes > 0) std::memcpy(held, mine, bytes);
  Engine& e = engine();
  for (std::size_t dist = 1; dist < n; dist <<= 1) {
    const std::size_t count = dist < n - dist ? dist : n - dist;
    const int to = members[(std::size_t(me) + n - dist) % n];
    const int from = members[(std::size_t(me) + dist) % n];
    Request* rr = make(RequestKind::kRecv, over, from, ctx, tag, held + dist * bytes, count * bytes);
    e.start_recv(rr);
    Request* sr = make(RequestKind::kSend, over, to, ctx, tag, held, count * bytes);
    e.start_send(sr);
    // A peer's death throws PeerFailure out of here: the receive into `held` is given up, and the
    // send, left to the engine, keeps `held` alive until it is done with it.
    try {
      e.wait_receiving(rr, [&] { return rr->complete && sr->complete; });
    } catch (...) {
      sr->keep = held_block;
      e.free_request(sr);
      throw;
    }
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
  // Un-rotate: held's blocks [0, n - me) are members me..n-1, the rest members 0..me-1.
  if (bytes == 0) return;
  auto* out = static_cast<unsigned char*>(all);
  const std::size_t first = n - std::size_t(me);
  std::memcpy(out + std::size_t(me) * bytes, held, first * bytes);
  std::memcpy(out, held + first * bytes, std::size_t(me) * bytes);
}

namespace {

/// Releases receive `rr` of a creation exchange; fails if it did not get exactly `expected` bytes.
void finish_recv(Request* rr, std::size_t expected, int peer, const char* fn) {
  const bool bad = rr->truncated || rr->status_bytes != expected;
  engine().requests().release(rr);
  if (bad) {
    fail(MPI_ERR_INTERN, fn,
         "world rank " + std::to_string(peer) +
             " sent creation records of another size (did every member call the same creation function?)");
  }
}

/// Waits for receive `rr` (may be null) and the sends `sends`; a send still in flight when a
/// peer's death ends the wait keeps `data` alive (Request::keep).
void wait_all(Request* rr, std::vector<Request*>& sends, const std::shared_ptr<unsigned char[]>& data) {
  Engine& e = engine();
  auto done = [&] {
    if (rr != nullptr && !rr->complete) return false;
    for (Request* s : sends) {
      if (!s->complete) return false;
    }
    return true;
  };
  try {
    if (rr != nullptr) {
      e.wait_receiving(rr, done);
    } else {
      e.wait_until(done);
    }
  } catch (...) {
    for (Request* s : sends) {
      s->keep = data;
      e.free_request(s);
    }
    throw;
  }
}

}  // namespace

void exchange_pair(CommInfo& over, int peer, int ctx, int tag, const void* out, std::size_t out_bytes,
                   void* in, std::size_t in_bytes, const char* fn) {
  std::shared_ptr<unsigned char[]> data = std::make_shared_for_overwrite<unsigned char[]>(out_bytes + 1);
  if (out_bytes > 0) std::memcpy(data.get(), out, out_bytes);
  Engine& e = engine();
  Request* rr = make(RequestKind::kRecv, over, peer, ctx, tag, in, in_bytes);
  e.start_recv(rr);
  std::vector<Request*> sends{make(RequestKind::kSend, over, peer, ctx, tag, data.get(), out_bytes)};
  e.start_send(sends[0]);
  wait_all(rr, sends, data);
  e.requests().release(sends[0]);
  finish_recv(rr, in_bytes, peer, fn);
}

void bcast_members(CommInfo& over, const std::vector<int>& members, int me, int root, int ctx, int tag,
                   void* buf, std::size_t bytes, const char* fn) {
  Engine& e = engine();
  std::vector<Request*> sends;
  if (me != root) {
    Request* rr = make(RequestKind::kRecv, over, members[std::size_t(root)], ctx, tag, buf, bytes);
    e.start_recv(rr);
    wait_all(rr, sends, nullptr);
    finish_recv(rr, bytes, members[std::size_t(root)], fn);
    return;
  }
  std::shared_ptr<unsigned char[]> data = std::make_shared_for_overwrite<unsigned char[]>(bytes + 1);
  if (bytes > 0) std::memcpy(data.get(), buf, bytes);
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (int(i) == me) continue;
    sends.push_back(make(RequestKind::kSend, over, members[i], ctx, tag, data.get(), bytes));
    e.start_send(sends.back());
  }
  wait_all(nullptr, sends, data);
  for (Request* s : sends) e.requests().release(s);
}

void fail_creation_mismatch(const char* fn, int world_rank, const char* other_fn) {
  fail(MPI_ERR_OTHER, fn,
       "collective mismatch: world rank " + std::to_string(world_rank) + " called " + other_fn +
           " on this communicator at the same point");
}

void fail_member_arguments(const char* fn, int world_rank, int error_class) {
  const char* name = error_class_name(error_class);
  fail(MPI_ERR_OTHER, fn,
       "world rank " + std::to_string(world_rank) + " passed invalid arguments (" +
           (name != nullptr ? name : "an error") + " there), so no communicator was created");
}

void fail_no_context_id(const char* fn) {
  fail(MPI_ERR_INTERN, fn,
       "no context id left: all " + std::to_string(kCtxSlots) +
           " communicator slots are in use on some member (free communicators you no longer need)");
}

namespace {

/// One per member of the old communicator; a different size from api/comm.cpp's record, so a
/// member calling Comm_split while others call Cart_create fails instead of misreading it.
struct TopoRecord {
  std::int32_t op;
  std::int32_t color;
  std::int32_t key;
  std::int32_t error_class;  ///< nonzero: this member's arguments were bad
  std::uint64_t args_hash;
  CtxMask mask;
};

const char* topo_op_name(int op) {
  switch (op) {
    case kTopoCart:
      return "MPI_Cart_create";
    case kTopoCartSub:
      return "MPI_Cart_sub";
    case kTopoGraph:
      return "MPI_Graph_create";
    case kTopoDistGraph:
      return "MPI_Dist_graph_create";
    case kTopoDistGraphAdjacent:
      return "MPI_Dist_graph_create_adjacent";
  }
  return "another topology constructor";
}

}  // namespace

MPI_Comm create_topo_comm(CommInfo& parent, const TopoRequest& req, std::shared_ptr<const Topology> topo,
                          const char* fn) {
  if (is_inter(parent)) fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm): an intercommunicator");
  TopoRecord mine{};
  mine.op = req.op;
  mine.color = req.error ? MPI_UNDEFINED : req.color;
  mine.key = req.key;
  mine.args_hash = req.args_hash;
  offerable_slots(mine.mask);
  std::vector<int> members = comm_members(parent);
  const int me = comm_rank(parent);
  // Every member judges all records the same way, so all fail alike.
  auto recs = exchange_records(parent, members, me, parent.coll_ctx, kCommCreateTag, mine, req.error, fn,
                               topo_op_name);
  for (std::size_t i = 1; i < recs.size(); ++i) {
    if (recs[i].args_hash != recs[0].args_hash) {
      fail(MPI_ERR_ARG, fn,
           "world rank " + std::to_string(members[i]) + " passed other arguments than world rank " +
               std::to_string(members[0]) + " (every member must pass the same topology)");
    }
  }
  if (mine.color == MPI_UNDEFINED) return MPI_COMM_NULL;
  std::vector<int> idx = members_of_color(recs, mine.color);
  const int slot = agree_slot(recs, idx, fn);
  std::vector<int> world;
  world.reserve(idx.size());
  for (int i : idx) world.push_back(members[std::size_t(i)]);
  CommInfo& c = register_comm(std::move(world), slot, parent.errhandler);
  c.topo = std::move(topo);
  return c.handle;
}

}  // namespace takyon::mpi
