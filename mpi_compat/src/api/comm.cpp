// SPDX-License-Identifier: MIT
// Communicator management: Comm_dup (+ _with_info), split, split_type, create, create_group, free,
// compare, group, test_inter, set_name / get_name. On an intercommunicator, dup, split and create
// make intercommunicators (coll/intercomm.hpp); split_type and create_group need an intracommunicator.
// Creating a communicator is an exchange of one Record per member (coll/comm_create.hpp): what the
// member asked for (color, key...) and the context slots free on it. Every member of a new
// communicator then picks the lowest slot free on all its members, so context ids are unique among
// each process's live communicators and messages on different communicators never match.
// A member whose own arguments are bad still takes part in the exchange, marked (LocalError), so every
// member fails (the others with MPI_ERR_OTHER naming it) instead of waiting for it forever.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/info.hpp"
#include "coll/comm_create.hpp"
#include "coll/intercomm.hpp"
#include "comm/group.hpp"
#include "path/provider.hpp"

namespace takyon::mpi {
namespace {

enum class CreateOp : std::int32_t { kDup = 1, kSplit = 2, kSplitType = 3, kCreate = 4, kCreateGroup = 5 };

constexpr std::size_t kHostBytes = 192;

struct Record {
  CreateOp op;
  std::int32_t color;
  std::int32_t key;
  std::int32_t error_class;  ///< nonzero: this member's arguments were bad (it fails with this class)
  CtxMask mask;
  char host[kHostBytes];
};

const char* op_name(CreateOp op) {
  switch (op) {
    case CreateOp::kDup:
      return "MPI_Comm_dup";
    case CreateOp::kSplit:
      return "MPI_Comm_split";
    case CreateOp::kSplitType:
      return "MPI_Comm_split_type";
    case CreateOp::kCreate:
      return "MPI_Comm_create";
    case CreateOp::kCreateGroup:
      return "MPI_Comm_create_group";
  }
  return "?";
}

Record make_record(CreateOp op, int color, int key) {
  Record r{};
  r.op = op;
  r.color = color;
  r.key = key;
  offerable_slots(r.mask);
  return r;
}

/// The error of a member's own argument checks, kept until the exchange is over.
class LocalError {
 public:
  template <class Checks>
  void run(const Checks& checks) {
    try {
      checks();
    } catch (const MpiError& e) {
      error_ = e;
    }
  }
  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const std::optional<MpiError>& error() const { return error_; }
  void rethrow() const {
    if (error_) throw MpiError(*error_);
  }

 private:
  std::optional<MpiError> error_;
};

/// Every member's record, by index in `members`; throws alike on every member if any member's
/// arguments were bad or they called different creation functions (coll/comm_create.hpp).
std::vector<Record> exchange(CommInfo& over, const std::vector<int>& members, int me, int ctx, int tag,
                             const Record& mine, const LocalError& local, const char* fn) {
  return exchange_records(over, members, me, ctx, tag, mine, local.error(), fn, op_name);
}

/// The new communicator of the members `idx` (indices into `members`, in new-rank order).
MPI_Comm build(const CommInfo& parent, const std::vector<int>& members, const std::vector<Record>& recs,
               const std::vector<int>& idx, const char* fn) {
  int slot = agree_slot(recs, idx, fn);
  std::vector<int> world;
  world.reserve(idx.size());
  for (int i : idx) world.push_back(members[std::size_t(i)]);
  return register_comm(std::move(world), slot, parent.errhandler).handle;
}

/// `comm`, which must be an intracommunicator (MPI_ERR_COMM naming `fn`).
CommInfo& check_intracomm(MPI_Comm comm, const char* fn) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm): an intercommunicator");
  return c;
}

void check_newcomm(MPI_Comm* newcomm, const char* fn) {
  if (newcomm == nullptr) fail(MPI_ERR_ARG, fn, "newcomm is NULL (argument newcomm)");
}

/// Split `parent` by the records' colors (MPI_UNDEFINED: no communicator), ordered by (key, old rank).
MPI_Comm split_by_records(CommInfo& parent, const std::vector<int>& members, const std::vector<Record>& recs,
                          const char* fn) {
  const int me = comm_rank(parent);
  const int color = recs[std::size_t(me)].color;
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  return build(parent, members, recs, members_of_color(recs, color), fn);
}

std::string host_identity() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  std::string host = host_name_for_locality(buf, engine().rank());
  std::string boot_id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::getline(in, boot_id);
  return host + "\n" + boot_id;
}

/// MPI_Comm_dup (with_info false: the parent's hints are copied) and MPI_Comm_dup_with_info (the
/// hints are `info`'s, api/comm_info.cpp).
MPI_Comm dup(CommInfo& parent, MPI_Comm* newcomm, const char* fn, MPI_Info info = MPI_INFO_NULL,
             bool with_info = false) {
  LocalError local;
  InfoEntries hints;
  local.run([&] {
    check_newcomm(newcomm, fn);
    check_info_arg(info, fn);  // inside: a bad info on one member fails all, hangs none
    hints = with_info ? comm_hints(info_entries(info, fn)) : parent.hints;
  });
  std::vector<int> members = comm_members(parent);
  const int me = comm_rank(parent);
  MPI_Comm h = MPI_COMM_NULL;
  if (is_inter(parent)) {  // the same two groups, in a context both agree on
    h = split_intercomm(parent, InterOp::kDup, 0, me, local.error(), fn);
  } else {
    auto recs = exchange(parent, members, me, parent.coll_ctx, kCommCreateTag,
                         make_record(CreateOp::kDup, 0, 0), local, fn);
    std::vector<int> idx(members.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = int(i);
    h = build(parent, members, recs, idx, fn);
  }
  CommInfo& c = *find_comm(h);
  c.topo = parent.topo;  // the duplicate has the same topology
  c.hints = std::move(hints);
  int rc = copy_attrs(parent, c);
  if (rc != MPI_SUCCESS) {
    delete_attrs(c);
    free_comm(c);
    *newcomm = MPI_COMM_NULL;  // as Open MPI and MPICH answer
    fail(rc, fn, "an attribute copy callback returned error code " + std::to_string(rc));
  }
  return h;
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_dup", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_dup");
    MPI_Comm h = dup(c, newcomm, "MPI_Comm_dup");
    *newcomm = h;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_dup)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_dup_with_info", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_dup_with_info");
    MPI_Comm h = dup(c, newcomm, "MPI_Comm_dup_with_info", info, true);
    *newcomm = h;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_dup_with_info)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_split";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    LocalError local;
    local.run([&] {
      check_newcomm(newcomm, fn);
      if (color < 0 && color != MPI_UNDEFINED) {
        fail(MPI_ERR_ARG, fn,
             "invalid color " + std::to_string(color) + " (argument color; >= 0 or MPI_UNDEFINED)");
      }
    });
    if (is_inter(c)) {  // an intercommunicator of each color that both groups have
      *newcomm = split_intercomm(c, InterOp::kSplit, color, key, local.error(), fn);
      return MPI_SUCCESS;
    }
    std::vector<int> members = comm_members(c);
    auto recs =
        exchange(c, members, comm_rank(c), c.coll_ctx, kCommCreateTag,
                 make_record(CreateOp::kSplit, local.failed() ? MPI_UNDEFINED : color, key), local, fn);
    *newcomm = split_by_records(c, members, recs, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_split)

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_split_type";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_intracomm(comm, fn);
    LocalError local;
    // SHARED: the ranks of this host. The hardware- and resource-guided types name no level this
    // library knows, for which the standard returns MPI_COMM_NULL.
    bool shared = split_type == MPI_COMM_TYPE_SHARED;
    local.run([&] {
      check_newcomm(newcomm, fn);
      check_info_arg(info, fn);
      if (!shared && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
          split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_RESOURCE_GUIDED) {
        fail(MPI_ERR_ARG, fn,
             "invalid split_type " + std::to_string(split_type) +
                 " (argument split_type; MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_UNGUIDED, "
                 "MPI_COMM_TYPE_HW_GUIDED, "
                 "MPI_COMM_TYPE_RESOURCE_GUIDED or MPI_UNDEFINED)");
      }
    });
    Record mine = make_record(CreateOp::kSplitType, shared ? 0 : MPI_UNDEFINED, key);
    std::string host = host_identity();
    std::strncpy(mine.host, host.c_str(), kHostBytes - 1);
    std::vector<int> members = comm_members(c);
    auto recs = exchange(c, members, comm_rank(c), c.coll_ctx, kCommCreateTag, mine, local, fn);
    for (std::size_t i = 0; i < recs.size(); ++i) {  // color: the first rank on the same host
      if (recs[i].color == MPI_UNDEFINED) continue;
      for (std::size_t j = 0; j <= i; ++j) {
        if (recs[j].color != MPI_UNDEFINED && std::strncmp(recs[i].host, recs[j].host, kHostBytes) == 0) {
          recs[i].color = int(j);
          break;
        }
      }
    }
    *newcomm = split_by_records(c, members, recs, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_split_type)

namespace {

/// The members of `g` as indices into `members` (the parent's); fails if one is not in the parent.
std::vector<int> group_in_parent(const Group& g, const CommInfo& parent, const char* fn) {
  std::vector<int> idx;
  for (int w : g.ranks) {  // the local group's ranks, also on an intercommunicator
    int r = w >= 0 && std::size_t(w) < parent.world_to_rank.size() ? parent.world_to_rank[std::size_t(w)]
                                                                   : from_world(parent, w);
    if (r < 0) {
      fail(MPI_ERR_GROUP, fn,
           "invalid group (argument group): world rank " + std::to_string(w) + " is not in the communicator");
    }
    idx.push_back(r);
  }
  return idx;
}

}  // namespace

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_create";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    LocalError local;
    const Group* g = nullptr;
    std::vector<int> idx;
    local.run([&] {
      g = &check_group(group, fn, "group");
      check_newcomm(newcomm, fn);
      idx = group_in_parent(*g, c, fn);
    });
    if (is_inter(c)) {  // each group passes a subgroup of its own: the intercommunicator between the two
      int in_group = local.failed() ? MPI_UNDEFINED : group_rank_of(*g, engine().rank());
      *newcomm = split_intercomm(c, InterOp::kCreate, in_group == MPI_UNDEFINED ? MPI_UNDEFINED : 0, in_group,
                                 local.error(), fn);
      return MPI_SUCCESS;
    }
    std::vector<int> members = comm_members(c);
    auto recs = exchange(c, members, comm_rank(c), c.coll_ctx, kCommCreateTag,
                         make_record(CreateOp::kCreate, 0, 0), local, fn);
    // Each member passes its own group (MPI-2.2: disjoint groups may differ), the same on all its members.
    bool in = group_rank_of(*g, engine().rank()) != MPI_UNDEFINED;
    *newcomm = in ? build(c, members, recs, idx, fn) : MPI_COMM_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_create)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_create_group";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_intracomm(comm, fn);
    // Checked at once: every member sees the same group and tag (a group reaching outside the
    // parent would make the exchange wait for processes that are not calling).
    const Group& g = check_group(group, fn, "group");
    if (tag < 0 || tag > kTagUb) {
      fail(MPI_ERR_TAG, fn,
           "invalid tag " + std::to_string(tag) + " (argument tag; 0.." + std::to_string(kTagUb) + ")");
    }
    group_in_parent(g, c, fn);
    LocalError local;
    local.run([&] { check_newcomm(newcomm, fn); });
    int me = group_rank_of(g, engine().rank());
    if (me == MPI_UNDEFINED) {  // MPI-4: a local operation for a process outside the group
      local.rethrow();
      *newcomm = MPI_COMM_NULL;
      return MPI_SUCCESS;
    }
    // Collective over the group only: in the parent's group-creation context, separated by the tag.
    auto recs =
        exchange(c, g.ranks, me, group_ctx(c), tag, make_record(CreateOp::kCreateGroup, 0, 0), local, fn);
    std::vector<int> idx(g.ranks.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = int(i);
    *newcomm = build(c, g.ranks, recs, idx, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_create_group)

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  constexpr const char* fn = "MPI_Comm_free";
  return guarded(fn, comm != nullptr ? *comm : MPI_COMM_WORLD, [&] {
    if (comm == nullptr) fail(MPI_ERR_ARG, fn, "comm is NULL (argument comm)");
    CommInfo& c = check_comm(*comm, fn);
    if (c.members.empty()) {
      fail(MPI_ERR_COMM, fn,
           std::string("cannot free the predefined communicator ") +
               (c.is_self ? "MPI_COMM_SELF" : "MPI_COMM_WORLD") + " (argument comm)");
    }
    int rc = delete_attrs(c);
    if (rc != MPI_SUCCESS)
      fail(rc, fn, "an attribute delete callback returned error code " + std::to_string(rc));
    free_comm(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_free)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  constexpr const char* fn = "MPI_Comm_compare";
  return guarded(fn, comm1, [&] {
    check_initialized(fn);
    CommInfo* a = find_comm(comm1);
    CommInfo* b = find_comm(comm2);
    if (a == nullptr) fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm1)");
    if (b == nullptr) fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm2)");
    if (result == nullptr) fail(MPI_ERR_ARG, fn, "result is NULL (argument result)");
    if (a == b) {
      *result = MPI_IDENT;
    } else if (is_inter(*a) != is_inter(*b)) {
      *result = MPI_UNEQUAL;
    } else {
      int cmp = compare_members(comm_members(*a), comm_members(*b));
      if (is_inter(*a) && cmp != MPI_UNEQUAL) {  // both groups count: the weaker of the two results
        int remote = compare_members(a->remote, b->remote);
        cmp = remote == MPI_UNEQUAL || cmp == MPI_UNEQUAL ? MPI_UNEQUAL
              : remote == MPI_IDENT && cmp == MPI_IDENT   ? MPI_IDENT
                                                          : MPI_SIMILAR;
      }
      *result = cmp == MPI_IDENT ? MPI_CONGRUENT : cmp;
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_compare)

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return guarded("MPI_Comm_group", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_group");
    if (group == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_group", "group is NULL (argument group)");
    *group = new_group(comm_members(c));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_group)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return guarded("MPI_Comm_test_inter", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_test_inter");
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL (argument flag)");
    *flag = is_inter(c) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_test_inter)

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return guarded("MPI_Comm_set_name", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_set_name");
    if (comm_name == nullptr)
      fail(MPI_ERR_ARG, "MPI_Comm_set_name", "comm_name is NULL (argument comm_name)");
    c.name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));  // longer names are truncated
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return guarded("MPI_Comm_get_name", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_get_name");
    if (comm_name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    std::memcpy(comm_name, c.name.c_str(), c.name.size() + 1);
    *resultlen = int(c.name.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_get_name)
