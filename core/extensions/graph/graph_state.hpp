// SPDX-License-Identifier: MIT
// What a loaded TakyonGraph keeps behind private_graph: the checked model and this process's view.
#ifndef TAKYON_EXTENSIONS_GRAPH_GRAPH_STATE_HPP_
#define TAKYON_EXTENSIONS_GRAPH_GRAPH_STATE_HPP_

#include <vector>

#include "extensions/graph/graph_model.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::detail::graph {

// Written once by takyonLoadGraphDescription() and only read afterwards, so the group instance
// threads may share it without locks. The only fields those threads write are
// TakyonConnection.pathA/pathB, each by the one thread that owns that endpoint.
struct GraphState {
  Graph model;
  int process_id = 0;
  std::vector<int> paths_by_id;  // indices into model.paths (== TakyonGraph.path_list), ascending ID
};

[[nodiscard]] inline GraphState* state_of(const TakyonGraph* graph) {
  return graph == nullptr ? nullptr : static_cast<GraphState*>(graph->private_graph);
}

// "node[3]" for global group ID group_id (which must be valid).
[[nodiscard]] std::string instance_text(const Graph& model, int group_id);

// Checks group_id against the graph and the loading process; on failure records why (naming
// `caller`) and returns nullptr.
[[nodiscard]] GraphState* checked_state(const TakyonGraph* graph, int group_id, const char* caller);

}  // namespace takyon::detail::graph

#endif  // TAKYON_EXTENSIONS_GRAPH_GRAPH_STATE_HPP_
