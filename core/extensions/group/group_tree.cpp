// SPDX-License-Identifier: MIT
// A tree of paths over a group (takyon_group.h) for the guide's collectives: one all-gather that
// checks every member asked for the same tree, then the tree's edges through takyonGroupCreatePaths.
// Built on the public API only.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "takyon/takyon_group.h"

namespace {

constexpr std::uint32_t kTreeMagic = 0x54475431;  // "TGT1"
constexpr std::size_t kTreeTextBytes = 200;

/// What every member asked for, all-gathered and compared.
struct Spec {
  std::uint32_t magic;
  std::int32_t root;
  std::int32_t fanout;
  std::int32_t nbufs;
  std::uint64_t bytes;
  std::uint32_t failed;  ///< nonzero: `text` says why this member's arguments are bad
  char text[kTreeTextBytes];
};

bool tree_fail(char** error_ret, const std::string& message) {
  if (error_ret != nullptr) *error_ret = strdup(("takyonGroupCreateTree: " + message).c_str());
  return false;
}

std::string describe(const Spec& s) {
  return "root " + std::to_string(s.root) + ", fanout " + std::to_string(s.fanout) + ", nbufs " +
         std::to_string(s.nbufs) + ", bytes " + std::to_string(s.bytes);
}

/// This member's own arguments; "" when they are fine.
std::string check_tree_args(const TakyonGroupExchange& g, int root, int fanout, int nbufs,
                            TakyonGroupTree** tree_ret) {
  const std::string me = "rank " + std::to_string(g.rank) + ": ";
  if (tree_ret == nullptr) return me + "tree_ret is NULL";
  if (root < 0 || root >= g.size) {
    return me + "root " + std::to_string(root) + " is outside the group (size " + std::to_string(g.size) +
           ")";
  }
  if (fanout < 0) return me + "fanout is " + std::to_string(fanout) + " (>= 1, or TAKYON_GROUP_STAR)";
  if (nbufs < 1) return me + "nbufs is " + std::to_string(nbufs) + " (>= 1)";
  return "";
}

/// Position p's parent and children in a tree of `size` members with `fanout` (0: a star).
struct Shape {
  int parent = -1;  ///< a position; -1 at the root
  int first_child = 0;
  int nchildren = 0;
};

Shape shape_of(int position, int size, int fanout) {
  Shape s;
  const long long k = fanout == TAKYON_GROUP_STAR ? (size > 1 ? size - 1 : 1) : fanout;
  if (position > 0) s.parent = int((position - 1) / k);
  const long long first = position * k + 1;
  if (first < size) {
    s.first_child = int(first);
    s.nchildren = int(std::min<long long>(k, size - first));
  }
  return s;
}

}  // namespace

extern "C" bool takyonGroupCreateTree(const TakyonGroupExchange* group, int root, int fanout, int nbufs,
                                      uint64_t bytes, const TakyonGroupOptions* options,
                                      TakyonGroupTree** tree_ret, char** error_ret) {
  if (error_ret != nullptr) *error_ret = nullptr;
  if (tree_ret != nullptr) *tree_ret = nullptr;
  if (group == nullptr || group->allgather == nullptr || group->size < 1 || group->rank < 0 ||
      group->rank >= group->size) {
    return tree_fail(error_ret, "group is NULL, has no allgather, or a rank outside its size");
  }
  const TakyonGroupExchange& g = *group;

  // Every member's request, so that all agree on the tree or all fail alike.
  Spec mine{};
  mine.magic = kTreeMagic;
  mine.root = root;
  mine.fanout = fanout;
  mine.nbufs = nbufs;
  mine.bytes = bytes;
  const std::string own = check_tree_args(g, root, fanout, nbufs, tree_ret);
  mine.failed = own.empty() ? 0 : 1;
  std::strncpy(mine.text, own.c_str(), kTreeTextBytes - 1);
  std::vector<Spec> all(static_cast<std::size_t>(g.size));
  if (g.allgather(g.context, &mine, all.data(), sizeof(Spec)) != 0)
    return tree_fail(error_ret, "the group's allgather failed");
  for (int r = 0; r < g.size; ++r) {
    const Spec& s = all[std::size_t(r)];
    if (s.magic != kTreeMagic) {
      return tree_fail(error_ret, "rank " + std::to_string(r) +
                                      " runs another version of this exchange (or passed other bytes)");
    }
    if (s.failed != 0) return tree_fail(error_ret, std::string(s.text, strnlen(s.text, kTreeTextBytes)));
  }
  for (int r = 1; r < g.size; ++r) {
    const Spec& a = all[0];
    const Spec& b = all[std::size_t(r)];
    if (a.root != b.root || a.fanout != b.fanout || a.nbufs != b.nbufs || a.bytes != b.bytes) {
      return tree_fail(error_ret, "the members asked for different trees: rank 0 for " + describe(a) +
                                      ", rank " + std::to_string(r) + " for " + describe(b));
    }
  }

  const int position = (g.rank - root + g.size) % g.size;
  const Shape shape = shape_of(position, g.size, fanout);
  const auto rank_of = [&](int pos) { return (pos + root) % g.size; };
  const std::vector<uint64_t> sizes(static_cast<std::size_t>(nbufs), bytes);
  // Children first, in position order, then the parent: the paths come back in this order.
  std::vector<TakyonPeerBuffers> wants;
  wants.reserve(std::size_t(shape.nchildren) + 1);
  for (int c = 0; c < shape.nchildren; ++c) {
    wants.push_back(
        {rank_of(shape.first_child + c), nbufs, sizes.data(), nullptr, nbufs, sizes.data(), nullptr});
  }
  if (shape.parent >= 0)
    wants.push_back({rank_of(shape.parent), nbufs, sizes.data(), nullptr, nbufs, sizes.data(), nullptr});

  auto* tree = static_cast<TakyonGroupTree*>(std::calloc(1, sizeof(TakyonGroupTree)));
  auto** paths = static_cast<TakyonPath**>(std::calloc(wants.size() + 1, sizeof(TakyonPath*)));
  auto* child_ranks = static_cast<int*>(std::calloc(std::size_t(shape.nchildren) + 1, sizeof(int)));
  const bool allocated = tree != nullptr && paths != nullptr && child_ranks != nullptr;
  // A member out of memory still takes part, asking for no paths: the pair checks then fail every
  // member before any path is made, instead of leaving its peers waiting.
  char* why = nullptr;
  const bool made = takyonGroupCreatePaths(&g, allocated ? int(wants.size()) : 0, wants.data(), options,
                                           allocated ? paths : nullptr, &why);
  std::string error;
  if (!made) {
    error = why != nullptr ? why : "takyonGroupCreatePaths failed";
  } else if (!allocated) {
    error = "rank " + std::to_string(g.rank) + ": out of memory for the tree";
  }
  std::free(why);
  if (!error.empty()) {
    std::free(tree);
    std::free(paths);
    std::free(child_ranks);
    if (error_ret != nullptr) *error_ret = strdup(error.c_str());
    return false;
  }
  tree->root = root;
  tree->group_size = g.size;
  tree->position = position;
  tree->parent_rank = shape.parent >= 0 ? rank_of(shape.parent) : -1;
  tree->parent_path = shape.parent >= 0 ? paths[shape.nchildren] : nullptr;
  tree->nchildren = shape.nchildren;
  tree->child_path_list = paths;
  tree->child_ranks = child_ranks;
  for (int c = 0; c < shape.nchildren; ++c) child_ranks[c] = rank_of(shape.first_child + c);
  *tree_ret = tree;
  return true;
}

extern "C" bool takyonGroupDestroyTree(TakyonGroupTree** tree_ret, char** error_ret) {
  if (error_ret != nullptr) *error_ret = nullptr;
  if (tree_ret == nullptr || *tree_ret == nullptr) return true;
  TakyonGroupTree* tree = *tree_ret;
  *tree_ret = nullptr;
  // child_path_list holds the children, then the parent (takyonGroupCreateTree's order).
  const int npaths = tree->nchildren + (tree->parent_path != nullptr ? 1 : 0);
  char* why = nullptr;
  const bool ok = takyonGroupDestroyPaths(npaths, tree->child_path_list, &why);
  std::free(tree->child_path_list);
  std::free(tree->child_ranks);
  std::free(tree);
  if (!ok) {
    if (error_ret != nullptr) {
      *error_ret =
          strdup(("takyonGroupDestroyTree: " + std::string(why != nullptr ? why : "failed")).c_str());
    }
  }
  std::free(why);
  return ok;
}
