// SPDX-License-Identifier: MIT
// Group lookups and the takyonGet<Collective>() handles built from a group instance's paths.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "extensions/extension_error.hpp"
#include "extensions/graph/graph_state.hpp"

namespace takyon::detail::graph {
namespace {

// One lookup: the collective, the caller's group ID, and how to name both in messages.
class Lookup {
 public:
  Lookup(TakyonGraph* graph, const char* name, int group_id, CollectiveKind kind, const char* caller)
      : graph_(graph), group_id_(group_id), caller_(caller) {
    state_ = checked_state(graph, group_id, caller);
    if (state_ == nullptr) return;
    if (name == nullptr) {
      fail_extensionf("%s: name is NULL", caller);
      state_ = nullptr;
      return;
    }
    for (const CollectiveItem& item : state_->model.collectives) {
      if (item.name == name && item.kind == kind) collective_ = &item;
    }
    if (collective_ == nullptr) {
      fail_extensionf("%s: the graph has no %s collective named '%s'", caller, kind_name(kind), name);
      state_ = nullptr;
    }
  }

  [[nodiscard]] bool ok() const { return state_ != nullptr; }
  [[nodiscard]] const std::vector<CollectiveEntry>& entries() const { return collective_->entries; }

  [[nodiscard]] int src_of(const CollectiveEntry& entry) const { return side_group(entry, entry.src_is_a); }
  [[nodiscard]] int dest_of(const CollectiveEntry& entry) const { return side_group(entry, !entry.src_is_a); }

  // The caller's endpoint of entry's path (which must have the caller as one side), or nullptr
  // with the reason recorded when it has not been created.
  TakyonPath* mine(const CollectiveEntry& entry) {
    const TakyonConnection& connection = graph_->path_list[entry.path_index];
    const bool is_a = connection.group_idA == group_id_;
    TakyonPath* path = is_a ? connection.pathA : connection.pathB;
    if (path == nullptr) {
      fail_extensionf(
          "%s: collective '%s': %s has not created its endpoint %s of path %d (call "
          "takyonCreateGroupPaths() first)",
          caller_, collective_->name.c_str(), me().c_str(), is_a ? "A" : "B", entry.path_id);
      missing_ = true;
    }
    return path;
  }
  [[nodiscard]] bool missing() const { return missing_; }

  std::nullptr_t no_part(const char* role) const {
    fail_extensionf("%s: collective '%s' (%s): %s (group ID %d) is not %s in it", caller_,
                    collective_->name.c_str(), kind_name(collective_->kind), me().c_str(), group_id_, role);
    return nullptr;
  }
  [[nodiscard]] int group_id() const { return group_id_; }

 private:
  [[nodiscard]] int side_group(const CollectiveEntry& entry, bool a) const {
    const TakyonConnection& connection = graph_->path_list[entry.path_index];
    return a ? connection.group_idA : connection.group_idB;
  }
  [[nodiscard]] std::string me() const { return instance_text(state_->model, group_id_); }

  TakyonGraph* graph_;
  int group_id_;
  const char* caller_;
  GraphState* state_ = nullptr;
  const CollectiveItem* collective_ = nullptr;
  bool missing_ = false;
};

// A tree node's view: the edge to its parent (where it is the child) and the edges to its
// children (where it is the parent), in file order.
template <typename Handle, typename Init>
Handle* get_tree(TakyonGraph* graph, const char* name, int group_id, CollectiveKind kind, const char* caller,
                 Init init) {
  Lookup lookup(graph, name, group_id, kind, caller);
  if (!lookup.ok()) return nullptr;
  TakyonPath* parent = nullptr;
  std::vector<TakyonPath*> children;
  bool member = false;
  for (const CollectiveEntry& entry : lookup.entries()) {
    if (lookup.dest_of(entry) == group_id) {
      parent = lookup.mine(entry);
      member = true;
    } else if (lookup.src_of(entry) == group_id) {
      children.push_back(lookup.mine(entry));
      member = true;
    }
  }
  if (!member) return lookup.no_part("a node of the tree");
  if (lookup.missing()) return nullptr;
  return init(static_cast<int>(children.size()), parent, children.empty() ? nullptr : children.data());
}

}  // namespace
}  // namespace takyon::detail::graph

using takyon::detail::graph::CollectiveEntry;
using takyon::detail::graph::CollectiveKind;
using takyon::detail::graph::Lookup;

extern "C" TakyonGroup* takyonGetGroup(TakyonGraph* graph, int group_id) {
  if (graph == nullptr) return nullptr;
  for (int g = 0; g < graph->group_count; ++g) {
    TakyonGroup& group = graph->group_list[g];
    if (group_id >= group.starting_group_id && group_id < group.starting_group_id + group.instances)
      return &group;
  }
  return nullptr;
}

extern "C" int takyonGetGroupInstance(TakyonGraph* graph, int group_id) {
  const TakyonGroup* group = takyonGetGroup(graph, group_id);
  return group == nullptr ? -1 : group_id - group->starting_group_id;
}

extern "C" TakyonCollectiveBarrier* takyonGetBarrier(TakyonGraph* graph, const char* name, int group_id) {
  return takyon::detail::graph::get_tree<TakyonCollectiveBarrier>(
      graph, name, group_id, CollectiveKind::kBarrier, "takyonGetBarrier", takyonBarrierInit);
}

extern "C" TakyonCollectiveReduce* takyonGetReduce(TakyonGraph* graph, const char* name, int group_id) {
  return takyon::detail::graph::get_tree<TakyonCollectiveReduce>(
      graph, name, group_id, CollectiveKind::kReduce, "takyonGetReduce", takyonReduceInit);
}

extern "C" TakyonCollectiveBcast* takyonGetBcast(TakyonGraph* graph, const char* name, int group_id) {
  return takyon::detail::graph::get_tree<TakyonCollectiveBcast>(graph, name, group_id, CollectiveKind::kBcast,
                                                                "takyonGetBcast", takyonBcastInit);
}

extern "C" TakyonCollectiveOne2One* takyonGetOne2One(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kOne2One, "takyonGetOne2One");
  if (!lookup.ok()) return nullptr;
  std::vector<TakyonPath*> src;
  std::vector<TakyonPath*> dest;
  for (const CollectiveEntry& entry : lookup.entries()) {
    if (lookup.src_of(entry) == group_id) src.push_back(lookup.mine(entry));
    if (lookup.dest_of(entry) == group_id) dest.push_back(lookup.mine(entry));
  }
  if (src.empty() && dest.empty()) return lookup.no_part("a sender or receiver");
  if (lookup.missing()) return nullptr;
  return takyonOne2OneInit(static_cast<int>(lookup.entries().size()), static_cast<int>(src.size()),
                           static_cast<int>(dest.size()), src.empty() ? nullptr : src.data(),
                           dest.empty() ? nullptr : dest.data());
}

extern "C" TakyonScatterSrc* takyonGetScatterSrc(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kScatter, "takyonGetScatterSrc");
  if (!lookup.ok()) return nullptr;
  if (lookup.src_of(lookup.entries()[0]) != group_id) return lookup.no_part("the scatter source");
  std::vector<TakyonPath*> paths;
  for (const CollectiveEntry& entry : lookup.entries()) paths.push_back(lookup.mine(entry));
  if (lookup.missing()) return nullptr;
  return takyonScatterSrcInit(static_cast<int>(paths.size()), paths.data());
}

extern "C" TakyonScatterDest* takyonGetScatterDest(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kScatter, "takyonGetScatterDest");
  if (!lookup.ok()) return nullptr;
  const auto& entries = lookup.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (lookup.dest_of(entries[i]) != group_id) continue;
    TakyonPath* path = lookup.mine(entries[i]);
    if (path == nullptr) return nullptr;
    return takyonScatterDestInit(static_cast<int>(entries.size()), static_cast<int>(i), path);
  }
  return lookup.no_part("a scatter destination");
}

extern "C" TakyonGatherSrc* takyonGetGatherSrc(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kGather, "takyonGetGatherSrc");
  if (!lookup.ok()) return nullptr;
  const auto& entries = lookup.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (lookup.src_of(entries[i]) != group_id) continue;
    TakyonPath* path = lookup.mine(entries[i]);
    if (path == nullptr) return nullptr;
    return takyonGatherSrcInit(static_cast<int>(entries.size()), static_cast<int>(i), path);
  }
  return lookup.no_part("a gather source");
}

extern "C" TakyonGatherDest* takyonGetGatherDest(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kGather, "takyonGetGatherDest");
  if (!lookup.ok()) return nullptr;
  if (lookup.dest_of(lookup.entries()[0]) != group_id) return lookup.no_part("the gather destination");
  std::vector<TakyonPath*> paths;
  for (const CollectiveEntry& entry : lookup.entries()) paths.push_back(lookup.mine(entry));
  if (lookup.missing()) return nullptr;
  return takyonGatherDestInit(static_cast<int>(paths.size()), paths.data());
}

extern "C" TakyonCollectiveAlltoall* takyonGetAlltoall(TakyonGraph* graph, const char* name, int group_id) {
  Lookup lookup(graph, name, group_id, CollectiveKind::kAlltoall, "takyonGetAlltoall");
  if (!lookup.ok()) return nullptr;
  // Members sorted by group ID: every member computes the same order, so my_index agrees.
  std::set<int> member_set;
  for (const CollectiveEntry& entry : lookup.entries()) {
    member_set.insert(lookup.src_of(entry));
    member_set.insert(lookup.dest_of(entry));
  }
  const std::vector<int> members(member_set.begin(), member_set.end());
  const auto me = std::find(members.begin(), members.end(), group_id);
  if (me == members.end()) return lookup.no_part("a member");
  std::vector<TakyonPath*> paths(members.size(), nullptr);
  for (const CollectiveEntry& entry : lookup.entries()) {
    const int src = lookup.src_of(entry);
    const int dest = lookup.dest_of(entry);
    if (src != group_id && dest != group_id) continue;
    const int other = src == group_id ? dest : src;
    const auto at = std::lower_bound(members.begin(), members.end(), other) - members.begin();
    paths[static_cast<size_t>(at)] = lookup.mine(entry);
  }
  if (lookup.missing()) return nullptr;
  return takyonAlltoallInit(static_cast<int>(members.size()), static_cast<int>(me - members.begin()),
                            paths.data());
}
