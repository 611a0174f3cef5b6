// SPDX-License-Identifier: MIT
// takyonCreateGroupPaths / takyonDestroyGroupPaths: one group instance's endpoints, deadlock free.
#include <cstdlib>
#include <string>

#include "extensions/extension_error.hpp"
#include "extensions/graph/graph_state.hpp"

namespace takyon::detail::graph {
namespace {

std::string endpoint_text(const GraphState& state, int group_id, const TakyonConnection& connection,
                          bool is_a) {
  const TakyonPathAttributes& attrs = is_a ? connection.attrsA : connection.attrsB;
  return instance_text(state.model, group_id) + " (group ID " + std::to_string(group_id) + "): path " +
         std::to_string(connection.id) + " endpoint " + (is_a ? "A" : "B") + " '" + attrs.interconnect + "'";
}

bool create(TakyonGraph* graph, int group_id) {
  GraphState* state = checked_state(graph, group_id, "takyonCreateGroupPaths");
  if (state == nullptr) return false;
  // Deadlock freedom: every instance creates its endpoints in ascending path ID order, and each
  // takyonCreate() blocks only until the peer endpoint of that same path is created. Take the
  // smallest path ID P that some instance is blocked on. P's peer instance has created every one
  // of its endpoints below P (they are either done or it would be blocked on a smaller ID), so it
  // is blocked on P itself or will reach P next; either way P completes. By induction every path
  // completes and no wait cycle can form. Creating in file order instead could deadlock (a
  // triangle listed 0-1, 1-2, 2-0 against 2-0 first on one instance).
  for (int index : state->paths_by_id) {
    TakyonConnection& connection = graph->path_list[index];
    for (const bool is_a : {true, false}) {
      if ((is_a ? connection.group_idA : connection.group_idB) != group_id) continue;
      TakyonPath*& slot = is_a ? connection.pathA : connection.pathB;
      if (slot != nullptr) {
        return fail_extension("takyonCreateGroupPaths: " + endpoint_text(*state, group_id, connection, is_a) +
                              ": already created (destroy it with takyonDestroyGroupPaths() first)");
      }
      // A copy: takyonCreate() writes error_message into its argument, and the graph's attributes
      // are shared with the other instances' threads. The lists are only read.
      TakyonPathAttributes attrs = is_a ? connection.attrsA : connection.attrsB;
      attrs.error_message = nullptr;
      TakyonPath* path = takyonCreate(&attrs);
      if (path == nullptr) {
        const std::string why = attrs.error_message != nullptr ? attrs.error_message : "no reason given";
        std::free(attrs.error_message);
        return fail_extension("takyonCreateGroupPaths: " + endpoint_text(*state, group_id, connection, is_a) +
                              ": " + why);
      }
      slot = path;
    }
  }
  return true;
}

bool destroy(TakyonGraph* graph, int group_id) {
  GraphState* state = checked_state(graph, group_id, "takyonDestroyGroupPaths");
  if (state == nullptr) return false;
  // The same ascending order as creation: a graceful destroy waits for its peer, and the argument
  // in create() applies unchanged. A failure does not stop the others from being destroyed.
  std::string first_error;
  for (int index : state->paths_by_id) {
    TakyonConnection& connection = graph->path_list[index];
    for (const bool is_a : {true, false}) {
      if ((is_a ? connection.group_idA : connection.group_idB) != group_id) continue;
      TakyonPath*& slot = is_a ? connection.pathA : connection.pathB;
      if (slot == nullptr) continue;
      const std::string where = endpoint_text(*state, group_id, connection, is_a);
      char* error = takyonDestroy(&slot);
      slot = nullptr;
      if (error != nullptr) {
        if (first_error.empty()) first_error = "takyonDestroyGroupPaths: " + where + ": " + error;
        std::free(error);
      }
    }
  }
  return first_error.empty() ? true : fail_extension(first_error);
}

}  // namespace
}  // namespace takyon::detail::graph

extern "C" bool takyonCreateGroupPaths(TakyonGraph* graph, int group_id) {
  try {
    return takyon::detail::graph::create(graph, group_id);
  } catch (const std::exception& e) {
    return takyon::detail::fail_extensionf("takyonCreateGroupPaths: %s", e.what());
  }
}

extern "C" bool takyonDestroyGroupPaths(TakyonGraph* graph, int group_id) {
  try {
    return takyon::detail::graph::destroy(graph, group_id);
  } catch (const std::exception& e) {
    return takyon::detail::fail_extensionf("takyonDestroyGroupPaths: %s", e.what());
  }
}
