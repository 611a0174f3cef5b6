// SPDX-License-Identifier: MIT
// Communicator creation, the collective step every constructor shares: the small internal exchanges
// (every member's record to every other), written over the point-to-point engine in a context no
// user receive can match, the agreement on a context slot the flat collectives can use, and the end
// of a communicator (MPI_Comm_free). One place, so the exchanges can later be swapped for the real
// collectives. The communicator model itself is comm/comm.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "comm/comm.hpp"
#include "comm/topo.hpp"
#include "errors.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// The context slots this rank can offer for a new communicator: the registry's free slots
/// (free_slots), less any flat slot whose freed communicator's members may still read this rank's
/// buffers (flat::slot_reusable).
void offerable_slots(CtxMask& mask);
/// MPI_Comm_free's end of a communicator: announces to the flat collectives that this rank is done
/// with its slot's lines (flat::release), then gives its slot back to the registry (release_comm).
void free_comm(CommInfo& c);

/// Tag of the creation exchanges in a communicator's collective context.
inline constexpr int kCommCreateTag = 0x43524541;  // "CREA"

/// An allgather of `bytes` bytes among `members` (world ranks; this process is members[me]), in
/// context `ctx` with `tag`: writes every member's `mine` into `all` (members.size() * bytes bytes),
/// member i's at all + i * bytes. `over` is the communicator the messages belong to (for error
/// reporting). ceil(log2 n) rounds of one message each way (Bruck). Blocking; throws PeerFailure or
/// MpiError(MPI_ERR_INTERN) if a peer's record has the wrong size.
void exchange_all(CommInfo& over, const std::vector<int>& members, int me, int ctx, int tag, const void* mine,
                  std::size_t bytes, void* all);

/// One exchange between two processes, in context `ctx` with `tag`: sends `out_bytes` at `out` to
/// world rank `peer` and receives exactly `in_bytes` from it into `in` (MPI_ERR_INTERN naming `fn`
/// for another size). Blocking; throws PeerFailure if the peer dies.
void exchange_pair(CommInfo& over, int peer, int ctx, int tag, const void* out, std::size_t out_bytes,
                   void* in, std::size_t in_bytes, const char* fn);
/// A broadcast of `bytes` at `buf` from members[root] to the other `members` (world ranks; this
/// process is members[me]), in context `ctx` with `tag`: one message from the root to each. Blocking.
void bcast_members(CommInfo& over, const std::vector<int>& members, int me, int root, int ctx, int tag,
                   void* buf, std::size_t bytes, const char* fn);

// The shared checks of a creation exchange (the messages are alike for every creation function).
[[noreturn]] void fail_creation_mismatch(const char* fn, int world_rank, const char* other_fn);
[[noreturn]] void fail_member_arguments(const char* fn, int world_rank, int error_class);
[[noreturn]] void fail_no_context_id(const char* fn);

/// Every member's creation record, by index in `members`, for a Record with the fields op, color,
/// key, error_class and mask (CtxMask). `mine.error_class` is set from `local`, the error of this
/// member's own argument checks: a member with bad arguments still takes part, so nobody waits for
/// it. Then throws, alike on every member: `local` if set, MPI_ERR_OTHER if a member called another
/// creation function (op_name(op) names it) or if another member's arguments were bad.
template <class Record, class OpName>
std::vector<Record> exchange_records(CommInfo& over, const std::vector<int>& members, int me, int ctx,
                                     int tag, Record mine, const std::optional<MpiError>& local,
                                     const char* fn, OpName op_name) {
  mine.error_class = local ? local->error_class() : 0;
  std::vector<Record> all(members.size());
  exchange_all(over, members, me, ctx, tag, &mine, sizeof(Record), all.data());
  if (local) throw MpiError(*local);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].op != mine.op) fail_creation_mismatch(fn, members[i], op_name(all[i].op));
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].error_class != 0) fail_member_arguments(fn, members[i], all[i].error_class);
  }
  return all;
}

/// The indices of the records whose color is `color`, ordered by (key, index).
template <class Record>
std::vector<int> members_of_color(const std::vector<Record>& recs, int color) {
  std::vector<int> idx;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].color == color) idx.push_back(int(i));
  }
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int a, int b) { return recs[std::size_t(a)].key < recs[std::size_t(b)].key; });
  return idx;
}

/// The lowest context slot free on every record in `idx` (MPI_ERR_INTERN if there is none).
template <class Record>
int agree_slot(const std::vector<Record>& recs, const std::vector<int>& idx, const char* fn) {
  for (std::size_t w = 0; w < kCtxSlots / 64; ++w) {
    std::uint64_t bits = ~std::uint64_t{0};
    for (int i : idx) bits &= recs[std::size_t(i)].mask[w];
    if (bits != 0) return int(w * 64 + std::size_t(__builtin_ctzll(bits)));
  }
  fail_no_context_id(fn);
}

/// The topology constructors, as TopoRequest::op.
inline constexpr int kTopoCart = 1;
inline constexpr int kTopoCartSub = 2;
inline constexpr int kTopoGraph = 3;
inline constexpr int kTopoDistGraph = 4;
inline constexpr int kTopoDistGraphAdjacent = 5;

/// The creation step every topology constructor shares. Each member of `parent` passes the color of
/// the communicator it joins (MPI_UNDEFINED: none), its key there (new ranks ordered by key, then
/// old rank), a hash of the arguments that must agree on every member, and the MPI error its own
/// argument checks raised. A member with bad arguments still exchanges, so
/// all members fail (MPI_ERR_OTHER naming it) instead of waiting. Returns the new communicator with
/// `topo` attached, or MPI_COMM_NULL.
struct TopoRequest {
  int op = 0;  ///< which constructor, a kTopo* constant (members calling different ones fail)
  int color = MPI_UNDEFINED;
  int key = 0;
  std::uint64_t args_hash = 0;
  std::optional<MpiError> error;  ///< what this member's own argument checks threw
};
MPI_Comm create_topo_comm(CommInfo& parent, const TopoRequest& req, std::shared_ptr<const Topology> topo,
                          const char* fn);

}  // namespace takyon::mpi
