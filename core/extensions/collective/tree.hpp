// SPDX-License-Identifier: MIT
// The shape shared by the tree collectives (barrier, reduce, bcast): a parent edge and child edges.
#ifndef TAKYON_EXTENSIONS_COLLECTIVE_TREE_HPP_
#define TAKYON_EXTENSIONS_COLLECTIVE_TREE_HPP_

#include <cstdlib>
#include <string>

#include "extensions/collective/collective_common.hpp"
#include "extensions/extension_error.hpp"

namespace takyon::detail {

// Checks the arguments and allocates a tree handle (TakyonCollectiveBarrier/Reduce/Bcast).
template <typename Tree>
Tree* init_tree(const char* function, int nchildren, TakyonPath* parent_path, TakyonPath** child_path_list) {
  if (!check_path_list(function, "child_path_list", nchildren, child_path_list)) return nullptr;
  if (nchildren == 0 && parent_path == nullptr) {
    fail_extensionf("%s: no parent and no children: a tree needs at least one edge", function);
    return nullptr;
  }
  for (int i = 0; i < nchildren; i++) {
    if (child_path_list[i] == parent_path) {
      fail_extensionf("%s: child_path_list[%d] is also the parent path (%s)", function, i,
                      describe_path(parent_path).c_str());
      return nullptr;
    }
  }
  auto* tree = static_cast<Tree*>(alloc_handle(function, sizeof(Tree)));
  if (tree == nullptr) return nullptr;
  tree->child_path_list = copy_path_list(nchildren, child_path_list);
  if (tree->child_path_list == nullptr) {
    std::free(tree);
    fail_extensionf("%s: out of memory", function);
    return nullptr;
  }
  tree->nchildren = nchildren;
  tree->parent_path = parent_path;
  return tree;
}

template <typename Tree>
void finalize_tree(Tree* tree) {
  if (tree == nullptr) return;
  std::free(tree->child_path_list);
  std::free(tree);
}

// "root with 2 children" / "member with a parent and 3 children", for messages.
template <typename Tree>
std::string tree_role(const Tree* tree) {
  return std::string(tree->parent_path == nullptr ? "root" : "member with a parent") + " and " +
         std::to_string(tree->nchildren) + (tree->nchildren == 1 ? " child" : " children");
}

// Checks a handle passed to a run function.
template <typename Tree>
bool check_tree_handle(const char* function, const Tree* tree) {
  if (tree == nullptr) return fail_extensionf("%s: the collective is NULL", function);
  return true;
}

}  // namespace takyon::detail

#endif  // TAKYON_EXTENSIONS_COLLECTIVE_TREE_HPP_
