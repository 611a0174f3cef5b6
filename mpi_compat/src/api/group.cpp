// SPDX-License-Identifier: MIT
// MPI_Group_*: size, rank, the set operations, incl/excl (plain and by ranges), translate_ranks,
// compare and free. Groups hold world ranks; empty results are MPI_GROUP_EMPTY.
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "comm/group.hpp"

namespace takyon::mpi {
namespace {

bool contains(const Group& g, int world_rank) {
  return group_rank_of(g, world_rank) != MPI_UNDEFINED;
}

void check_out(const void* p, const char* fn, const char* arg) {
  if (p == nullptr) fail(MPI_ERR_ARG, fn, std::string(arg) + " is NULL (argument " + arg + ")");
}

void check_n(int n, const char* fn) {
  if (n < 0) fail(MPI_ERR_ARG, fn, "negative count " + std::to_string(n) + " (argument n)");
}

void check_rank_in(const Group& g, int rank, const char* fn, const std::string& arg) {
  if (rank < 0 || rank >= int(g.ranks.size())) {
    fail(MPI_ERR_RANK, fn,
         "invalid rank " + std::to_string(rank) + " (" + arg + ", group size " +
             std::to_string(g.ranks.size()) + ")");
  }
}

/// The group ranks listed by `ranks[0..n)`: each valid and none twice.
std::vector<int> checked_ranks(const Group& g, int n, const int* ranks, const char* fn) {
  check_n(n, fn);
  if (n > 0 && ranks == nullptr) fail(MPI_ERR_ARG, fn, "ranks is NULL (argument ranks)");
  std::vector<bool> seen(g.ranks.size(), false);
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    check_rank_in(g, ranks[i], fn, "ranks[" + std::to_string(i) + "]");
    if (seen[std::size_t(ranks[i])]) {
      fail(MPI_ERR_RANK, fn,
           "rank " + std::to_string(ranks[i]) + " listed twice (ranks[" + std::to_string(i) + "])");
    }
    seen[std::size_t(ranks[i])] = true;
    out.push_back(ranks[i]);
  }
  return out;
}

/// The group ranks the triplets (first, last, stride) name, in order: each valid and none twice.
std::vector<int> range_ranks(const Group& g, int n, int ranges[][3], const char* fn) {
  check_n(n, fn);
  if (n > 0 && ranges == nullptr) fail(MPI_ERR_ARG, fn, "ranges is NULL (argument ranges)");
  std::vector<bool> seen(g.ranks.size(), false);
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string where = "ranges[" + std::to_string(i) + "]";
    if (stride == 0) fail(MPI_ERR_ARG, fn, "stride 0 in " + where);
    check_rank_in(g, first, fn, where + "[0]");
    check_rank_in(g, last, fn, where + "[1]");
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
      fail(MPI_ERR_ARG, fn,
           "range " + std::to_string(first) + ".." + std::to_string(last) + " never advances with stride " +
               std::to_string(stride) + " (" + where + ")");
    }
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[std::size_t(r)]) {
        fail(MPI_ERR_RANK, fn, "rank " + std::to_string(r) + " named twice (" + where + ")");
      }
      seen[std::size_t(r)] = true;
      out.push_back(int(r));
    }
  }
  return out;
}

/// `g` restricted to the group ranks in `picked` (incl: in that order) or outside it (excl: in group order).
MPI_Group select(const Group& g, const std::vector<int>& picked, bool include) {
  std::vector<int> world;
  if (include) {
    for (int r : picked) world.push_back(g.ranks[std::size_t(r)]);
  } else {
    std::vector<bool> drop(g.ranks.size(), false);
    for (int r : picked) drop[std::size_t(r)] = true;
    for (std::size_t i = 0; i < g.ranks.size(); ++i) {
      if (!drop[i]) world.push_back(g.ranks[i]);
    }
  }
  return new_group(std::move(world));
}

/// Group_incl, _excl, _range_incl, _range_excl: the ranks `pick(g)` lists (checked against the
/// group), kept (incl) or left out (excl).
template <class Pick>
int subgroup(const char* fn, MPI_Group group, MPI_Group* newgroup, bool include, Pick pick) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    const Group& g = check_group(group, fn, "group");
    check_out(newgroup, fn, "newgroup");
    *newgroup = select(g, pick(g, fn), include);
    return MPI_SUCCESS;
  });
}

/// Group_union, _intersection, _difference: the world ranks `combine(g1, g2)` lists, as a new group.
template <class Combine>
int group_set_op(const char* fn, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, Combine combine) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    const Group& g1 = check_group(group1, fn, "group1");
    const Group& g2 = check_group(group2, fn, "group2");
    check_out(newgroup, fn, "newgroup");
    *newgroup = new_group(combine(g1, g2));
    return MPI_SUCCESS;
  });
}

}  // namespace

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  return guarded("MPI_Group_size", MPI_COMM_WORLD, [&] {
    const Group& g = check_group(group, "MPI_Group_size", "group");
    check_out(size, "MPI_Group_size", "size");
    *size = int(g.ranks.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank) {
  return guarded("MPI_Group_rank", MPI_COMM_WORLD, [&] {
    check_initialized("MPI_Group_rank");
    const Group& g = check_group(group, "MPI_Group_rank", "group");
    check_out(rank, "MPI_Group_rank", "rank");
    *rank = group_rank_of(g, engine().rank());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_rank)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                          int ranks2[]) {
  constexpr const char* fn = "MPI_Group_translate_ranks";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    const Group& g1 = check_group(group1, fn, "group1");
    const Group& g2 = check_group(group2, fn, "group2");
    check_n(n, fn);
    if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) fail(MPI_ERR_ARG, fn, "ranks1 or ranks2 is NULL");
    for (int i = 0; i < n; ++i) {
      if (ranks1[i] != MPI_PROC_NULL) check_rank_in(g1, ranks1[i], fn, "ranks1[" + std::to_string(i) + "]");
    }
    for (int i = 0; i < n; ++i) {
      ranks2[i] =
          ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : group_rank_of(g2, g1.ranks[std::size_t(ranks1[i])]);
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return guarded("MPI_Group_compare", MPI_COMM_WORLD, [&] {
    const Group& g1 = check_group(group1, "MPI_Group_compare", "group1");
    const Group& g2 = check_group(group2, "MPI_Group_compare", "group2");
    check_out(result, "MPI_Group_compare", "result");
    *result = compare_members(g1.ranks, g2.ranks);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_compare)

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_op("MPI_Group_union", group1, group2, newgroup, [](const Group& g1, const Group& g2) {
    std::vector<int> world = g1.ranks;
    for (int w : g2.ranks) {
      if (!contains(g1, w)) world.push_back(w);
    }
    return world;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_union)

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_op("MPI_Group_intersection", group1, group2, newgroup,
                      [](const Group& g1, const Group& g2) {
                        std::vector<int> world;
                        for (int w : g1.ranks) {
                          if (contains(g2, w)) world.push_back(w);
                        }
                        return world;
                      });
}
TAKYON_MPI_WEAK_ALIAS(Group_intersection)

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_op("MPI_Group_difference", group1, group2, newgroup, [](const Group& g1, const Group& g2) {
    std::vector<int> world;
    for (int w : g1.ranks) {
      if (!contains(g2, w)) world.push_back(w);
    }
    return world;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_difference)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return subgroup("MPI_Group_incl", group, newgroup, true,
                  [&](const Group& g, const char* fn) { return checked_ranks(g, n, ranks, fn); });
}
TAKYON_MPI_WEAK_ALIAS(Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return subgroup("MPI_Group_excl", group, newgroup, false,
                  [&](const Group& g, const char* fn) { return checked_ranks(g, n, ranks, fn); });
}
TAKYON_MPI_WEAK_ALIAS(Group_excl)

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return subgroup("MPI_Group_range_incl", group, newgroup, true,
                  [&](const Group& g, const char* fn) { return range_ranks(g, n, ranges, fn); });
}
TAKYON_MPI_WEAK_ALIAS(Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return subgroup("MPI_Group_range_excl", group, newgroup, false,
                  [&](const Group& g, const char* fn) { return range_ranks(g, n, ranges, fn); });
}
TAKYON_MPI_WEAK_ALIAS(Group_range_excl)

extern "C" int PMPI_Group_free(MPI_Group* group) {
  return guarded("MPI_Group_free", MPI_COMM_WORLD, [&] {
    check_out(group, "MPI_Group_free", "group");
    check_group(*group, "MPI_Group_free", "group");
    free_group(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_free)
