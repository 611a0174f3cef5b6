// SPDX-License-Identifier: MIT
// takyonPrintGraph: a readable summary of a loaded graph on stdout.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "extensions/graph/graph_state.hpp"

namespace takyon::detail::graph {
namespace {

std::string instance_or_dash(const Graph& model, int group_id) {
  return group_id < 0 ? std::string("-") : instance_text(model, group_id);
}

void print_list(const char* label, const uint64_t* values, int count) {
  std::printf("%s", label);
  if (count == 0) std::printf(" -");
  for (int i = 0; i < count; ++i) std::printf(" %" PRIu64, values[i]);
}

void print_addrs(const char* label, const size_t* values, int count) {
  std::printf("%s", label);
  if (count == 0) std::printf(" -");
  for (int i = 0; i < count; ++i) {
    if (values[i] == 0) {
      std::printf(" NULL");
    } else {
      std::printf(" %p", reinterpret_cast<void*>(values[i]));
    }
  }
}

void print_endpoint(const char* side, const Graph& model, int group_id, const TakyonPathAttributes& attrs) {
  std::printf("    %s: %s '%s'", side, instance_or_dash(model, group_id).c_str(), attrs.interconnect);
  if (group_id < 0) {
    std::printf("\n");
    return;
  }
  const int sends = attrs.is_endpointA ? attrs.nbufs_AtoB : attrs.nbufs_BtoA;
  const int recvs = attrs.is_endpointA ? attrs.nbufs_BtoA : attrs.nbufs_AtoB;
  std::printf(" polling=%s abort=%s verbosity=0x%" PRIx64 " send=%s\n", attrs.is_polling ? "true" : "false",
              attrs.abort_on_failure ? "true" : "false", attrs.verbosity,
              attrs.send_completion_method == TAKYON_BLOCKING ? "blocking" : "is_send_finished");
  std::printf(
      "       timeouts create=%g send_start=%g send_finish=%g recv_start=%g recv_finish=%g destroy=%g\n",
      attrs.path_create_timeout, attrs.send_start_timeout, attrs.send_finish_timeout,
      attrs.recv_start_timeout, attrs.recv_finish_timeout, attrs.path_destroy_timeout);
  print_list("       sender bytes:", attrs.sender_max_bytes_list, sends);
  print_list("  recver bytes:", attrs.recver_max_bytes_list, recvs);
  std::printf("\n");
  print_addrs("       sender addrs:", attrs.sender_addr_list, sends);
  print_addrs("  recver addrs:", attrs.recver_addr_list, recvs);
  std::printf("\n");
}

const char* type_name(TakyonCollectiveType type) {
  switch (type) {
    case TAKYON_COLLECTIVE_BARRIER:
      return "BARRIER";
    case TAKYON_COLLECTIVE_REDUCE:
      return "REDUCE";
    case TAKYON_COLLECTIVE_ONE2ONE:
      return "ONE2ONE";
    case TAKYON_COLLECTIVE_SCATTER:
      return "SCATTER";
    case TAKYON_COLLECTIVE_GATHER:
      return "GATHER";
    case TAKYON_COLLECTIVE_BCAST:
      return "BCAST";
    case TAKYON_COLLECTIVE_ALLTOALL:
      return "ALLTOALL";
  }
  return "?";
}

// Writes the tree in the file's own PathSrcIds notation, so a reader can compare the two.
void print_tree(const TakyonCollective& collective, const TakyonPathTree& node) {
  for (int i = 0; i < node.num_children; ++i) {
    const TakyonPathTree& child = node.children[i];
    const TakyonCollectiveConnection& entry = collective.path_list[child.path_index];
    std::printf(" %d:%s", entry.path_id, entry.src_is_endpointA ? "A" : "B");
    if (child.num_children > 0) {
      std::printf(" (");
      print_tree(collective, child);
      std::printf(" )");
    }
  }
}

}  // namespace
}  // namespace takyon::detail::graph

extern "C" void takyonPrintGraph(TakyonGraph* graph) {
  using namespace takyon::detail::graph;
  const GraphState* state = state_of(graph);
  if (state == nullptr) {
    std::printf("Graph: NULL\n");
    return;
  }
  const Graph& model = state->model;
  std::printf("Graph '%s' (loaded for process %d)\n", model.file_name.c_str(), state->process_id);
  std::printf("  Groups: %d\n", graph->group_count);
  for (int g = 0; g < graph->group_count; ++g) {
    const TakyonGroup& group = graph->group_list[g];
    std::printf("    %s: %d instance%s, group IDs %d..%d\n", group.name, group.instances,
                group.instances == 1 ? "" : "s", group.starting_group_id,
                group.starting_group_id + group.instances - 1);
  }
  std::printf("  Processes: %d\n", graph->process_count);
  for (int p = 0; p < graph->process_count; ++p) {
    const TakyonProcess& process = graph->process_list[p];
    std::printf("    %d:", process.id);
    for (int t = 0; t < process.thread_count; ++t) {
      const int id = process.thread_list[t].group_id;
      std::printf(" %s(ID %d)", instance_text(model, id).c_str(), id);
    }
    std::printf("\n");
    for (int b = 0; b < process.buffer_count; ++b) {
      const TakyonBuffer& buffer = process.buffer_list[b];
      std::printf("       buffer %s: %s, %" PRIu64 " bytes, addr %p\n", buffer.name, buffer.where,
                  buffer.bytes, buffer.addr);
    }
  }
  std::printf("  Paths: %d\n", graph->path_count);
  for (int p = 0; p < graph->path_count; ++p) {
    const TakyonConnection& connection = graph->path_list[p];
    std::printf("    Path %d: NBufsAtoB=%d NBufsBtoA=%d\n", connection.id, connection.attrsA.nbufs_AtoB,
                connection.attrsA.nbufs_BtoA);
    print_endpoint("  A", model, connection.group_idA, connection.attrsA);
    print_endpoint("  B", model, connection.group_idB, connection.attrsB);
  }
  std::printf("  Collectives: %d\n", graph->collective_count);
  for (int c = 0; c < graph->collective_count; ++c) {
    const TakyonCollective& collective = graph->collective_list[c];
    std::printf("    %s (%s):", collective.name, type_name(collective.type));
    if (collective.path_tree != nullptr) {
      print_tree(collective, *collective.path_tree);
    } else {
      for (int e = 0; e < collective.num_paths; ++e) {
        std::printf(" %d:%s", collective.path_list[e].path_id,
                    collective.path_list[e].src_is_endpointA ? "A" : "B");
      }
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}
