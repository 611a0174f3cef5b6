// SPDX-License-Identifier: MIT
// Communicators: the predefined MPI_COMM_WORLD and MPI_COMM_SELF and the derived ones (Comm_dup,
// split, create...), their context ids, rank translation, names, attributes and error handlers.
// A derived communicator's MPI_Comm handle is the address of its heap CommInfo; find_comm() looks a
// handle up in a registry of live communicators and never dereferences a handle it did not hand out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attributes.hpp"
#include "mpi.h"
#include "runtime.hpp"

namespace takyon::mpi {

/// Context ids come in slots: slot k owns ctx 4k (point-to-point), 4k+1 (collectives) and 4k+2
/// (Comm_create_group's exchange, keyed by the user's tag). Slot 0 is WORLD, 1 is SELF.
inline constexpr int kCtxSlots = 2048;
inline constexpr int kCtxPerSlot = 4;
/// One bit per slot, set where the slot is free on this process (exchanged when creating).
using CtxMask = std::uint64_t[kCtxSlots / 64];

struct CommInfo {
  MPI_Comm handle;
  int ctx;       ///< point-to-point context id
  int coll_ctx;  ///< context id of the communicator's collectives (never matches user messages)
  bool is_self;
  MPI_Errhandler errhandler;
  // Derived communicators only (WORLD and SELF leave members empty):
  std::vector<int> members;        ///< world rank of each rank of a derived communicator
  std::vector<int> world_to_rank;  ///< rank of each world rank in it, -1 for non-members
  int rank = 0;                    ///< this process's rank in a derived communicator
  int slot = 0;                    ///< context-id slot (ctx == slot * kCtxPerSlot)
  std::string name;
  AttrList attrs;  ///< (keyval, value) in the order they were set (attributes.hpp)
  /// The info hints in effect (MPI_Comm_set_info, MPI_Comm_dup...): the standard's assertions only.
  std::vector<std::pair<std::string, std::string>> hints;
  unsigned coll_seq = 0;  ///< collectives started on this communicator: each one's tag (coll/schedule.hpp)
  std::shared_ptr<const struct Topology>
      topo;  ///< Cartesian or graph topology (comm/topo.hpp); Comm_dup shares it
  // Intercommunicators only (empty for an intracommunicator): `members` is the local group and
  // point-to-point ranks name this remote group, disjoint from it.
  std::vector<int> remote;                ///< world rank of each rank of the remote group
  std::vector<int> remote_world_to_rank;  ///< remote rank of each world rank, -1 for non-members
};

/// The context id of a communicator's Comm_create_group exchanges.
inline int group_ctx(const CommInfo& c) {
  return c.slot * kCtxPerSlot + 2;
}

/// WORLD, SELF or a live derived communicator; nullptr for anything else (never dereferences `comm`).
CommInfo* find_comm(MPI_Comm comm);
namespace detail {
extern CommInfo g_world;
}  // namespace detail
/// MPI_COMM_WORLD's CommInfo (find_comm(MPI_COMM_WORLD), without the call).
inline CommInfo& world_comm() {
  return detail::g_world;
}
/// Like find_comm() but throws MpiError(MPI_ERR_COMM) naming `fn`; also checks MPI is initialized.
CommInfo& check_comm(MPI_Comm comm, const char* fn);
/// Throws MpiError(MPI_ERR_OTHER) naming `fn` unless MPI is initialized and not finalized.
void check_initialized(const char* fn);

// Inline: every collective asks several times, and the small ones are a few hundred instructions.
inline bool is_inter(const CommInfo& c) {
  return !c.remote.empty();
}
/// Size and rank: of the local group on an intercommunicator.
inline int comm_size(const CommInfo& c) {
  if (c.is_self) return 1;
  return c.members.empty() ? detail::g_world_size : int(c.members.size());
}
inline int comm_rank(const CommInfo& c) {
  if (c.is_self) return 0;
  return c.members.empty() ? detail::g_world_rank : c.rank;
}
/// How many ranks point-to-point can name: the remote group's size on an intercommunicator.
inline int peer_size(const CommInfo& c) {
  return is_inter(c) ? int(c.remote.size()) : comm_size(c);
}
/// A rank point-to-point names (0..peer_size-1: a remote rank on an intercommunicator) as a world
/// rank, and back (-1 for a world rank it cannot name).
inline int to_world(const CommInfo& c, int rank) {
  if (c.is_self) return detail::g_world_rank;
  if (c.members.empty()) return rank;
  return c.remote.empty() ? c.members[std::size_t(rank)] : c.remote[std::size_t(rank)];
}
int from_world(const CommInfo& c, int world_rank);
/// The world ranks of `c`'s members (the local group of an intercommunicator), by rank.
std::vector<int> comm_members(const CommInfo& c);

/// `comm`'s error handler; MPI_COMM_WORLD's for an invalid communicator.
MPI_Errhandler errhandler_of(MPI_Comm comm);

/// Fills `mask` with this process's free context slots.
void free_slots(CtxMask& mask);  // (offerable_slots, coll/comm_create.hpp, adds the flat collectives' rule)
/// Registers a new derived communicator over `members` (world ranks, by new rank; must include this
/// process) in context slot `slot` (free here), inheriting `errhandler`. Returns it (owned by the registry).
CommInfo& register_comm(std::vector<int> members, int slot, MPI_Errhandler errhandler);
/// register_comm for an intercommunicator of local group `local` and remote group `remote`.
CommInfo& register_intercomm(std::vector<int> local, std::vector<int> remote, int slot,
                             MPI_Errhandler errhandler);
/// Frees a derived communicator: the handle becomes invalid and its slot free. Its memory stays
/// until the process exits, so requests still naming it stay safe.
void release_comm(CommInfo& c);

/// Attributes (attributes.hpp, through api/attr.cpp). Comm_dup: runs the copy callbacks of `from`'s
/// attributes into `to`; returns MPI_SUCCESS or the first failing callback's code.
int copy_attrs(CommInfo& from, CommInfo& to);
/// Comm_free, MPI_Finalize (SELF): runs the delete callbacks, last attribute set first, and removes
/// them; returns MPI_SUCCESS or the first failing callback's code.
int delete_attrs(CommInfo& c);

}  // namespace takyon::mpi
