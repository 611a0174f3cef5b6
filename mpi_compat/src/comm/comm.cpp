// SPDX-License-Identifier: MIT
// The predefined communicators and the registry of derived ones (see comm.hpp).
#include "comm/comm.hpp"

#include <limits>
#include <unordered_map>

#include "errors.hpp"
#include "runtime.hpp"
#include "shm/layout.hpp"

namespace takyon::mpi {
namespace {

// Every context id travels in the frame header (shm rings and path channels alike).
static_assert(std::numeric_limits<decltype(shm::CellHeader::ctx)>::max() >= kCtxSlots * kCtxPerSlot,
              "context ids must fit the envelope's ctx field");

// Field by field, so that fields added to CommInfo later need no change here.
CommInfo make_predefined(MPI_Comm handle, int slot, bool is_self) {
  CommInfo c{};
  c.handle = handle;
  c.ctx = slot * kCtxPerSlot;
  c.coll_ctx = slot * kCtxPerSlot + 1;
  c.is_self = is_self;
  c.errhandler = MPI_ERRORS_ARE_FATAL;
  c.slot = slot;
  c.name = is_self ? "MPI_COMM_SELF" : "MPI_COMM_WORLD";
  return c;
}

CommInfo g_self = make_predefined(MPI_COMM_SELF, 1, true);

struct Registry {
  std::unordered_map<MPI_Comm, std::unique_ptr<CommInfo>> live;
  std::vector<std::unique_ptr<CommInfo>> freed;  ///< kept while requests may still name them
  CtxMask free_mask{};
  MPI_Comm last_handle = MPI_COMM_NULL;  ///< one-entry cache of find_comm (a live handle, or NULL)
  CommInfo* last = nullptr;
  Registry() {
    for (auto& w : free_mask) w = ~std::uint64_t{0};
    free_mask[0] &= ~std::uint64_t{3};  // WORLD, SELF
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

CommInfo detail::g_world = make_predefined(MPI_COMM_WORLD, 0, false);

CommInfo* find_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return &detail::g_world;
  if (comm == MPI_COMM_SELF) return &g_self;
  Registry& r = registry();
  if (comm == r.last_handle) return r.last;  // the communicator of the previous call, most often
  auto it = r.live.find(comm);
  if (it == r.live.end()) return nullptr;
  r.last_handle = comm;
  r.last = it->second.get();
  return r.last;
}

void check_initialized(const char* fn) {
  if (!runtime_active()) {
    fail(MPI_ERR_OTHER, fn, runtime_finalized() ? "called after MPI_Finalize" : "called before MPI_Init");
  }
}

CommInfo& check_comm(MPI_Comm comm, const char* fn) {
  check_initialized(fn);
  if (CommInfo* c = find_comm(comm)) return *c;
  if (comm == MPI_COMM_NULL) fail(MPI_ERR_COMM, fn, "invalid communicator MPI_COMM_NULL (argument comm)");
  fail(MPI_ERR_COMM, fn,
       "invalid communicator (argument comm): not a live communicator (freed, or never created)");
}

int from_world(const CommInfo& c, int world_rank) {
  if (c.is_self) return world_rank == engine().rank() ? 0 : -1;
  if (c.members.empty()) return world_rank;
  const std::vector<int>& ranks = c.remote.empty() ? c.world_to_rank : c.remote_world_to_rank;
  if (world_rank < 0 || std::size_t(world_rank) >= ranks.size()) return -1;
  return ranks[std::size_t(world_rank)];
}

std::vector<int> comm_members(const CommInfo& c) {
  if (!c.members.empty()) return c.members;
  if (c.is_self) return {engine().rank()};
  std::vector<int> all(std::size_t(engine().size()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = int(i);
  return all;
}

MPI_Errhandler errhandler_of(MPI_Comm comm) {
  CommInfo* c = find_comm(comm);
  return c != nullptr ? c->errhandler : detail::g_world.errhandler;
}

void free_slots(CtxMask& mask) {
  const Registry& r = registry();
  for (std::size_t i = 0; i < std::size(mask); ++i) mask[i] = r.free_mask[i];
}

CommInfo& register_comm(std::vector<int> members, int slot, MPI_Errhandler errhandler) {
  Registry& r = registry();
  auto c = std::make_unique<CommInfo>();
  c->handle = reinterpret_cast<MPI_Comm>(c.get());
  c->slot = slot;
  c->ctx = slot * kCtxPerSlot;
  c->coll_ctx = slot * kCtxPerSlot + 1;
  c->is_self = false;
  c->errhandler = errhandler;
  c->world_to_rank.assign(std::size_t(engine().size()), -1);
  const int me = engine().rank();
  for (std::size_t i = 0; i < members.size(); ++i) {
    c->world_to_rank[std::size_t(members[i])] = int(i);
    if (members[i] == me) c->rank = int(i);
  }
  c->members = std::move(members);
  r.free_mask[std::size_t(slot) / 64] &= ~(std::uint64_t{1} << (std::size_t(slot) % 64));
  CommInfo& ref = *c;
  r.live.emplace(ref.handle, std::move(c));
  return ref;
}

CommInfo& register_intercomm(std::vector<int> local, std::vector<int> remote, int slot,
                             MPI_Errhandler errhandler) {
  CommInfo& c = register_comm(std::move(local), slot, errhandler);
  c.remote_world_to_rank.assign(std::size_t(engine().size()), -1);
  for (std::size_t i = 0; i < remote.size(); ++i) c.remote_world_to_rank[std::size_t(remote[i])] = int(i);
  c.remote = std::move(remote);
  return c;
}

void release_comm(CommInfo& c) {
  Registry& r = registry();
  auto it = r.live.find(c.handle);
  if (it == r.live.end()) return;
  if (r.last_handle == c.handle) {
    r.last_handle = MPI_COMM_NULL;
    r.last = nullptr;
  }
  r.free_mask[std::size_t(c.slot) / 64] |= std::uint64_t{1} << (std::size_t(c.slot) % 64);
  c.topo.reset();  // a topology lives as long as a communicator using it
  // No request left anywhere: nothing can name an earlier freed communicator any more.
  if (engine().requests().live() == 0) r.freed.clear();
  r.freed.push_back(std::move(it->second));
  r.live.erase(it);
}

}  // namespace takyon::mpi
