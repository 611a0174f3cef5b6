// SPDX-License-Identifier: MIT
// The registry of groups (see group.hpp).
#include "comm/group.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

#include "errors.hpp"

namespace takyon::mpi {
namespace {

const Group g_empty{};

std::unordered_map<MPI_Group, std::unique_ptr<Group>>& group_registry() {
  static std::unordered_map<MPI_Group, std::unique_ptr<Group>> r;
  return r;
}

}  // namespace

const Group* find_group(MPI_Group group) {
  if (group == MPI_GROUP_EMPTY) return &g_empty;
  auto& r = group_registry();
  auto it = r.find(group);
  return it != r.end() ? it->second.get() : nullptr;
}

const Group& check_group(MPI_Group group, const char* fn, const char* arg) {
  if (const Group* g = find_group(group)) return *g;
  if (group == MPI_GROUP_NULL)
    fail(MPI_ERR_GROUP, fn, std::string("invalid group MPI_GROUP_NULL (argument ") + arg + ")");
  fail(MPI_ERR_GROUP, fn,
       std::string("invalid group (argument ") + arg + "): not a live group (freed, or never created)");
}

MPI_Group new_group(std::vector<int> ranks) {
  if (ranks.empty()) return MPI_GROUP_EMPTY;
  auto g = std::make_unique<Group>();
  g->ranks = std::move(ranks);
  auto h = reinterpret_cast<MPI_Group>(g.get());
  group_registry().emplace(h, std::move(g));
  return h;
}

void free_group(MPI_Group group) {
  group_registry().erase(group);
}

int group_rank_of(const Group& g, int world_rank) {
  for (std::size_t i = 0; i < g.ranks.size(); ++i) {
    if (g.ranks[i] == world_rank) return int(i);
  }
  return MPI_UNDEFINED;
}

/// MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two lists of world ranks.
int compare_members(const std::vector<int>& a, const std::vector<int>& b) {
  if (a == b) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  std::vector<int> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
}

}  // namespace takyon::mpi
