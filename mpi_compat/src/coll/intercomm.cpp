// SPDX-License-Identifier: MIT
// Intercommunicator creation, splitting and merging (see intercomm.hpp).
#include "coll/intercomm.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "coll/comm_create.hpp"
#include "messages.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

/// Tag of the leaders' swap and of the leaders' broadcasts to their groups (collective context).
constexpr int kInterTag = 0x494e5452;  // "INTR"

/// What a member of an intercommunicator brings to a constructor (one size for all of them, a
/// different size from every intracommunicator record, so mixing them up fails).
struct InterRecord {
  InterOp op;
  std::int32_t color;
  std::int32_t key;
  std::int32_t error_class;  ///< nonzero: this member's arguments were bad
  std::int32_t high;
  std::int32_t leader_failed;  ///< set by a leader whose swap with the other leader failed
  std::int32_t reserved[2];    ///< (a size no intracommunicator record has)
  CtxMask mask;
};

const char* inter_op_name(InterOp op) {
  switch (op) {
    case InterOp::kDup:
      return "MPI_Comm_dup";
    case InterOp::kSplit:
      return "MPI_Comm_split";
    case InterOp::kCreate:
      return "MPI_Comm_create";
    case InterOp::kMerge:
      return "MPI_Intercomm_merge";
    case InterOp::kIntercommCreate:
      return "MPI_Intercomm_create";
  }
  return "another communicator constructor";
}

struct BothGroups {
  std::vector<InterRecord> local;   ///< by local rank
  std::vector<InterRecord> remote;  ///< by remote rank
};

/// Every member's record of both groups of `c`, on every member. Throws alike on every member of
/// both groups when any member's arguments were bad or members called different constructors.
BothGroups exchange_both(CommInfo& c, InterRecord mine, const std::optional<MpiError>& error,
                         const char* fn) {
  mine.error_class = error ? error->error_class() : 0;
  BothGroups g;
  g.local.resize(c.members.size());
  g.remote.resize(c.remote.size());
  exchange_all(c, c.members, c.rank, c.coll_ctx, kCommCreateTag, &mine, sizeof mine, g.local.data());
  const std::size_t remote_bytes = g.remote.size() * sizeof(InterRecord);
  // A failed swap (the remote leader died) still reaches this group, which would wait otherwise.
  std::exception_ptr failure;
  if (c.rank == 0) {
    try {
      exchange_pair(c, c.remote[0], c.coll_ctx, kInterTag, g.local.data(),
                    g.local.size() * sizeof(InterRecord), g.remote.data(), remote_bytes, fn);
    } catch (...) {
      failure = std::current_exception();
      g.remote.assign(g.remote.size(), InterRecord{});
      g.remote[0].leader_failed = 1;
    }
  }
  bcast_members(c, c.members, c.rank, 0, c.coll_ctx, kInterTag, g.remote.data(), remote_bytes, fn);
  if (failure) std::rethrow_exception(failure);
  if (g.remote[0].leader_failed != 0) {
    fail(MPI_ERR_OTHER, fn,
         "the local leader (world rank " + std::to_string(c.members[0]) +
             ") could not exchange the records with the remote group");
  }
  if (error) throw MpiError(*error);
  for (std::size_t i = 0; i < g.local.size(); ++i) {
    if (g.local[i].op != mine.op) fail_creation_mismatch(fn, c.members[i], inter_op_name(g.local[i].op));
  }
  for (std::size_t i = 0; i < g.remote.size(); ++i) {
    if (g.remote[i].op != mine.op) fail_creation_mismatch(fn, c.remote[i], inter_op_name(g.remote[i].op));
  }
  for (std::size_t i = 0; i < g.local.size(); ++i) {
    if (g.local[i].error_class != 0) fail_member_arguments(fn, c.members[i], g.local[i].error_class);
  }
  for (std::size_t i = 0; i < g.remote.size(); ++i) {
    if (g.remote[i].error_class != 0) fail_member_arguments(fn, c.remote[i], g.remote[i].error_class);
  }
  return g;
}

/// The lowest slot free in every mask of `masks` (MPI_ERR_INTERN if none is).
int lowest_common_slot(const std::vector<const CtxMask*>& masks, const char* fn) {
  for (std::size_t w = 0; w < kCtxSlots / 64; ++w) {
    std::uint64_t bits = ~std::uint64_t{0};
    for (const CtxMask* m : masks) bits &= (*m)[w];
    if (bits != 0) return int(w * 64 + std::size_t(__builtin_ctzll(bits)));
  }
  fail_no_context_id(fn);
}

/// What a leader of MPI_Intercomm_create sends to the other leader, then its group's world ranks.
struct LeaderHeader {
  std::int32_t error_class;  ///< nonzero: a member of this group passed bad arguments
  std::int32_t size;         ///< members of this group
  CtxMask mask;              ///< the slots free on all of them
};

/// What a leader of MPI_Intercomm_create broadcasts to its group, then the remote group's world ranks.
struct GroupResult {
  std::int32_t error_class;  ///< nonzero: the creation failed (this class at every member)
  std::int32_t remote_size;
  std::int32_t slot;
  std::int32_t remote_failed;  ///< the error is the remote group's (its leader reported bad arguments)
};

/// The leader's own checks of the arguments only it uses.
void check_leader_args(CommInfo*& peer, MPI_Comm peer_comm, int remote_leader, int tag, const char* fn) {
  peer = find_comm(peer_comm);
  if (peer == nullptr) fail(MPI_ERR_COMM, fn, "invalid communicator (argument peer_comm)");
  if (remote_leader < 0 || remote_leader >= peer_size(*peer)) {
    fail(MPI_ERR_RANK, fn,
         "invalid rank " + std::to_string(remote_leader) + " (argument remote_leader, peer_comm size " +
             std::to_string(peer_size(*peer)) + ")");
  }
  if (tag < 0 || tag > kTagUb) {
    fail(MPI_ERR_TAG, fn,
         "invalid tag " + std::to_string(tag) + " (argument tag; 0.." + std::to_string(kTagUb) + ")");
  }
  if (to_world(*peer, remote_leader) == engine().rank()) {
    fail(MPI_ERR_RANK, fn,
         "remote_leader " + std::to_string(remote_leader) +
             " is this process (argument remote_leader; the groups must be "
             "disjoint)");
  }
}

}  // namespace

MPI_Comm create_intercomm(CommInfo& local, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          const std::optional<MpiError>& error, const char* fn) {
  std::vector<int> members = comm_members(local);
  const int me = comm_rank(local);
  const int n = int(members.size());
  // Every member's slots, its local_leader and its argument errors, on every member.
  InterRecord mine{};
  mine.op = InterOp::kIntercommCreate;
  mine.color = local_leader;
  mine.error_class = error ? error->error_class() : 0;
  offerable_slots(mine.mask);
  std::vector<InterRecord> recs(members.size());
  exchange_all(local, members, me, local.coll_ctx, kCommCreateTag, &mine, sizeof mine, recs.data());
  for (int i = 0; i < n; ++i) {
    if (recs[std::size_t(i)].color != local_leader || local_leader < 0 || local_leader >= n) {
      if (error) throw MpiError(*error);
      fail(MPI_ERR_ARG, fn,
           "world rank " + std::to_string(members[std::size_t(i)]) + " passed local_leader " +
               std::to_string(recs[std::size_t(i)].color) + ", this process " + std::to_string(local_leader) +
               " (argument local_leader: the same valid rank on every member)");
    }
  }
  // From here on every member's errors go through the leader to both groups, so nobody waits.
  std::int32_t group_error = 0;
  int bad_member = -1;
  for (int i = 0; i < n && group_error == 0; ++i) {
    group_error = recs[std::size_t(i)].error_class;
    bad_member = members[std::size_t(i)];
  }
  GroupResult result{};
  std::vector<int> remote;
  if (me == local_leader) {
    std::optional<MpiError> leader_error;
    CommInfo* peer = nullptr;
    try {
      check_leader_args(peer, peer_comm, remote_leader, tag, fn);
    } catch (const MpiError& e) {
      leader_error = e;
    }
    // A failure on the way (the remote leader died) still reaches the group, which would wait otherwise.
    std::exception_ptr failure;
    if (!leader_error) {
      try {
        LeaderHeader out{};
        out.error_class = group_error;
        out.size = n;
        for (std::size_t w = 0; w < kCtxSlots / 64; ++w) {
          std::uint64_t bits = ~std::uint64_t{0};
          for (const InterRecord& r : recs) bits &= r.mask[w];
          out.mask[w] = bits;
        }
        LeaderHeader in{};
        // The peer communicator's group-creation context, keyed by the user's tag (comm/comm.hpp).
        const int peer_world = to_world(*peer, remote_leader);
        exchange_pair(*peer, peer_world, group_ctx(*peer), tag, &out, sizeof out, &in, sizeof in, fn);
        if (in.size <= 0 || in.size > engine().size()) {
          fail(MPI_ERR_INTERN, fn,
               "the remote leader sent a group of " + std::to_string(in.size) + " members");
        }
        remote.resize(std::size_t(in.size));
        exchange_pair(*peer, peer_world, group_ctx(*peer), tag, members.data(), members.size() * sizeof(int),
                      remote.data(), remote.size() * sizeof(int), fn);
        result.remote_size = in.size;
        if (in.error_class != 0) {
          result.remote_failed = 1;
          leader_error = MpiError(MPI_ERR_OTHER, std::string(fn) +
                                                     ": a member of the remote group passed invalid "
                                                     "arguments, so no intercommunicator was created");
        }
        for (int w : remote) {
          if (std::find(members.begin(), members.end(), w) != members.end()) {
            leader_error = MpiError(MPI_ERR_COMM, std::string(fn) + ": world rank " + std::to_string(w) +
                                                      " is in both groups (the groups must be disjoint)");
            break;
          }
        }
        result.slot = lowest_common_slot({&out.mask, &in.mask}, fn);
      } catch (...) {
        failure = std::current_exception();
        result.error_class = MPI_ERR_OTHER;
      }
    }
    if (leader_error) result.error_class = leader_error->error_class();
    bcast_members(local, members, me, local_leader, local.coll_ctx, kInterTag, &result, sizeof result, fn);
    if (failure) std::rethrow_exception(failure);
    if (error) throw MpiError(*error);
    if (group_error != 0) fail_member_arguments(fn, bad_member, group_error);
    if (leader_error) throw MpiError(*leader_error);
  } else {
    bcast_members(local, members, me, local_leader, local.coll_ctx, kInterTag, &result, sizeof result, fn);
    if (error) throw MpiError(*error);
    if (group_error != 0) fail_member_arguments(fn, bad_member, group_error);
    if (result.remote_failed != 0) {
      fail(MPI_ERR_OTHER, fn,
           "a member of the remote group passed invalid arguments, so no intercommunicator was created");
    }
    if (result.error_class != 0) {
      fail(MPI_ERR_OTHER, fn,
           "the local leader (world rank " + std::to_string(members[std::size_t(local_leader)]) +
               ") could not create the intercommunicator (" +
               (error_class_name(result.error_class) != nullptr ? error_class_name(result.error_class)
                                                                : "an error") +
               " there)");
    }
    remote.resize(std::size_t(result.remote_size));
  }
  bcast_members(local, members, me, local_leader, local.coll_ctx, kInterTag, remote.data(),
                remote.size() * sizeof(int), fn);
  return register_intercomm(std::move(members), std::move(remote), result.slot, local.errhandler).handle;
}

MPI_Comm split_intercomm(CommInfo& c, InterOp op, int color, int key, const std::optional<MpiError>& error,
                         const char* fn) {
  InterRecord mine{};
  mine.op = op;
  mine.color = error ? MPI_UNDEFINED : color;
  mine.key = key;
  offerable_slots(mine.mask);
  BothGroups g = exchange_both(c, mine, error, fn);
  if (mine.color == MPI_UNDEFINED) return MPI_COMM_NULL;
  std::vector<int> local_idx = members_of_color(g.local, mine.color);
  std::vector<int> remote_idx = members_of_color(g.remote, mine.color);
  if (remote_idx.empty()) return MPI_COMM_NULL;  // the other group has nobody of this color
  std::vector<const CtxMask*> masks;
  std::vector<int> local;
  std::vector<int> remote;
  for (int i : local_idx) {
    masks.push_back(&g.local[std::size_t(i)].mask);
    local.push_back(c.members[std::size_t(i)]);
  }
  for (int i : remote_idx) {
    masks.push_back(&g.remote[std::size_t(i)].mask);
    remote.push_back(c.remote[std::size_t(i)]);
  }
  const int slot = lowest_common_slot(masks, fn);
  return register_intercomm(std::move(local), std::move(remote), slot, c.errhandler).handle;
}

MPI_Comm merge_intercomm(CommInfo& c, bool high, const std::optional<MpiError>& error, const char* fn) {
  InterRecord mine{};
  mine.op = InterOp::kMerge;
  mine.high = high ? 1 : 0;
  offerable_slots(mine.mask);
  BothGroups g = exchange_both(c, mine, error, fn);
  // The leaders' flags decide (MPI leaves differing flags within a group erroneous).
  const int local_high = g.local[0].high;
  const int remote_high = g.remote[0].high;
  const bool local_first = local_high != remote_high ? local_high < remote_high : c.members[0] < c.remote[0];
  std::vector<int> merged;
  const std::vector<int>& first = local_first ? c.members : c.remote;
  const std::vector<int>& second = local_first ? c.remote : c.members;
  merged.insert(merged.end(), first.begin(), first.end());
  merged.insert(merged.end(), second.begin(), second.end());
  std::vector<const CtxMask*> masks;
  for (const InterRecord& r : g.local) masks.push_back(&r.mask);
  for (const InterRecord& r : g.remote) masks.push_back(&r.mask);
  const int slot = lowest_common_slot(masks, fn);
  return register_comm(std::move(merged), slot, c.errhandler).handle;
}

}  // namespace takyon::mpi
