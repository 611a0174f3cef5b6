// SPDX-License-Identifier: MIT
// takyonLoadGraphDescription / takyonFreeGraphDescription: file to checked model to the C structs.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <numeric>
#include <sstream>

#include "backend_registry.hpp"
#include "error_log.hpp"
#include "extensions/extension_error.hpp"
#include "extensions/graph/graph_state.hpp"
#include "extensions/graph/graph_text.hpp"
#include "provider_string.hpp"

// The application defines these only when its graph has Buffers. Weak references resolve to NULL
// when the program (or any library it loaded) does not define them, so programs without Buffers
// link and run; -fvisibility=hidden does not apply to undefined references, so the dynamic linker
// still binds them to the executable's definitions.
extern "C" {
// NOLINTBEGIN(readability-redundant-declaration): the weak re-declaration is the point
__attribute__((weak)) void* appAllocateMemory(const char* name, const char* where, uint64_t bytes,
                                              void** user_data_ret);
__attribute__((weak)) void appFreeMemory(const char* where, void* user_data, void* addr);
// NOLINTEND(readability-redundant-declaration)
}

namespace takyon::detail::graph {
namespace {

// calloc()ed arrays and strdup()ed strings: the structs are read (and never freed) by C code, so
// they use the C allocator. Zeroed memory lets free_graph() run on a half-built graph.
template <typename T>
T* c_array(size_t count) {
  if (count == 0) return nullptr;
  void* memory = std::calloc(count, sizeof(T));
  if (memory == nullptr) throw std::bad_alloc();
  return static_cast<T*>(memory);
}

char* c_string(const std::string& text) {
  char* copy = c_array<char>(text.size() + 1);
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

std::string validate_interconnect(std::string_view text) {
  ProviderArgs args;
  ErrorLog log;
  if (ProviderArgs::parse(text, args, log) != Status::kOk) return log.cause();
  const BackendEntry* entry = find_backend(args.name());
  if (entry == nullptr) return "unknown provider " + quote(args.name()) + " (known: " + backend_names() + ")";
  if (args.validate(entry->spec, log) != Status::kOk) return log.cause();
  return "";
}

const ProviderQueries& provider_queries() {
  static const ProviderQueries queries{validate_interconnect, [](std::string_view name) {
                                         const BackendEntry* entry = find_backend(name);
                                         return entry != nullptr && entry->info.reach == TAKYON_REACH_THREADS;
                                       }};
  return queries;
}

void free_tree(TakyonPathTree* node) {
  if (node == nullptr) return;
  for (int i = 0; i < node->num_children; ++i) free_tree(&node->children[i]);
  std::free(node->children);
}

void free_attrs(TakyonPathAttributes& attrs) {
  std::free(attrs.sender_max_bytes_list);
  std::free(attrs.recver_max_bytes_list);
  std::free(attrs.sender_addr_list);
  std::free(attrs.recver_addr_list);
}

// Frees everything but the application's buffers.
void free_graph(TakyonGraph* graph) {
  for (int g = 0; g < graph->group_count; ++g) std::free(graph->group_list[g].name);
  std::free(graph->group_list);
  for (int p = 0; p < graph->process_count; ++p) {
    TakyonProcess& process = graph->process_list[p];
    std::free(process.thread_list);
    for (int b = 0; b < process.buffer_count; ++b) {
      std::free(process.buffer_list[b].name);
      std::free(process.buffer_list[b].where);
    }
    std::free(process.buffer_list);
  }
  std::free(graph->process_list);
  for (int p = 0; p < graph->path_count; ++p) {
    free_attrs(graph->path_list[p].attrsA);
    free_attrs(graph->path_list[p].attrsB);
  }
  std::free(graph->path_list);
  for (int c = 0; c < graph->collective_count; ++c) {
    TakyonCollective& collective = graph->collective_list[c];
    std::free(collective.name);
    std::free(collective.path_list);
    free_tree(collective.path_tree);
    std::free(collective.path_tree);
  }
  std::free(graph->collective_list);
  delete state_of(graph);
  std::free(graph);
}

void free_buffers(TakyonGraph* graph, int process_id) {
  if (process_id < 0 || process_id >= graph->process_count) return;
  TakyonProcess& process = graph->process_list[process_id];
  for (int b = 0; b < process.buffer_count; ++b) {
    TakyonBuffer& buffer = process.buffer_list[b];
    if (buffer.addr == nullptr) continue;
    if (appFreeMemory != nullptr) {
      appFreeMemory(buffer.where, buffer.user_data, buffer.addr);
    }
    buffer.addr = nullptr;
    buffer.user_data = nullptr;
  }
}

TakyonCollectiveType c_type(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kBarrier:
      return TAKYON_COLLECTIVE_BARRIER;
    case CollectiveKind::kReduce:
      return TAKYON_COLLECTIVE_REDUCE;
    case CollectiveKind::kOne2One:
      return TAKYON_COLLECTIVE_ONE2ONE;
    case CollectiveKind::kScatter:
      return TAKYON_COLLECTIVE_SCATTER;
    case CollectiveKind::kGather:
      return TAKYON_COLLECTIVE_GATHER;
    case CollectiveKind::kBcast:
      return TAKYON_COLLECTIVE_BCAST;
    case CollectiveKind::kAlltoall:
      return TAKYON_COLLECTIVE_ALLTOALL;
  }
  return TAKYON_COLLECTIVE_ONE2ONE;
}

// Fills node's children from `kids` (entry indices) recursively; depth is bounded by the parser.
void build_tree(TakyonPathTree* node, const std::vector<int>& kids,
                const std::vector<std::vector<int>>& children_of) {
  node->num_children = static_cast<int>(kids.size());
  node->children = c_array<TakyonPathTree>(kids.size());
  for (size_t i = 0; i < kids.size(); ++i) {
    TakyonPathTree* child = &node->children[i];
    child->path_index = kids[i];
    child->parent = node;
    build_tree(child, children_of[static_cast<size_t>(kids[i])], children_of);
  }
}

class Builder {
 public:
  Builder(TakyonGraph* graph, GraphState& state) : graph_(graph), state_(state), model_(state.model) {}

  void build() {
    build_groups();
    build_processes();
    build_paths();
    build_collectives();
  }

  // Allocates this process's buffers, then resolves the address lists of its endpoints.
  bool allocate_and_resolve() {
    TakyonProcess& process = graph_->process_list[state_.process_id];
    for (int b = 0; b < process.buffer_count; ++b) {
      TakyonBuffer& buffer = process.buffer_list[b];
      const BufferItem& item = model_.buffers[static_cast<size_t>(model_buffer_[static_cast<size_t>(b)])];
      const std::string where =
          model_.file_name + ":" + std::to_string(item.line) + ": buffer " + quote(item.name);
      if (appAllocateMemory == nullptr || appFreeMemory == nullptr) {
        return fail_extension(
            where + " needs appAllocateMemory() and appFreeMemory(), which this program does not define");
      }
      void* user_data = nullptr;
      buffer.addr = appAllocateMemory(buffer.name, buffer.where, buffer.bytes, &user_data);
      buffer.user_data = user_data;
      if (buffer.addr == nullptr) {
        return fail_extension(where + ": appAllocateMemory(\"" + item.name + "\", \"" + item.where + "\", " +
                              std::to_string(item.bytes) + ") returned NULL");
      }
    }
    for (size_t p = 0; p < model_.paths.size(); ++p) {
      const PathItem& path = model_.paths[p];
      for (int side = 0; side < 2; ++side) {
        const int group_id = path.endpoint[side].group_id;
        if (group_id < 0 || model_.process_of_id[static_cast<size_t>(group_id)] != state_.process_id)
          continue;
        TakyonPathAttributes& attrs = side == 0 ? graph_->path_list[p].attrsA : graph_->path_list[p].attrsB;
        resolve(path.spec[side].sender_addrs, attrs.sender_addr_list);
        resolve(path.spec[side].recver_addrs, attrs.recver_addr_list);
      }
    }
    return true;
  }

 private:
  void resolve(const std::vector<AddrEntry>& entries, size_t* list) {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].is_null) continue;
      const int slot = buffer_slot_[static_cast<size_t>(entries[i].buffer_index)];
      const TakyonBuffer& buffer = graph_->process_list[state_.process_id].buffer_list[slot];
      list[i] = reinterpret_cast<size_t>(buffer.addr) + static_cast<size_t>(entries[i].offset);
    }
  }

  void build_groups() {
    graph_->group_list = c_array<TakyonGroup>(model_.groups.size());
    graph_->group_count = static_cast<int>(model_.groups.size());
    for (size_t g = 0; g < model_.groups.size(); ++g) {
      graph_->group_list[g].name = c_string(model_.groups[g].name);
      graph_->group_list[g].instances = model_.groups[g].instances;
      graph_->group_list[g].starting_group_id = model_.groups[g].starting_group_id;
    }
  }

  void build_processes() {
    graph_->process_list = c_array<TakyonProcess>(model_.processes.size());
    graph_->process_count = static_cast<int>(model_.processes.size());
    std::vector<int> buffers_of(model_.processes.size(), 0);
    for (const BufferItem& buffer : model_.buffers) ++buffers_of[static_cast<size_t>(buffer.process_id)];
    for (size_t p = 0; p < model_.processes.size(); ++p) {
      const ProcessItem& item = model_.processes[p];
      TakyonProcess& process = graph_->process_list[p];
      process.id = item.id;
      process.thread_list = c_array<TakyonThread>(item.instances.size());
      process.thread_count = static_cast<int>(item.instances.size());
      for (size_t t = 0; t < item.instances.size(); ++t)
        process.thread_list[t].group_id = item.instances[t].group_id;
      process.buffer_list = c_array<TakyonBuffer>(static_cast<size_t>(buffers_of[p]));
    }
    for (size_t b = 0; b < model_.buffers.size(); ++b) {
      const BufferItem& item = model_.buffers[b];
      TakyonProcess& process = graph_->process_list[item.process_id];
      TakyonBuffer& buffer = process.buffer_list[process.buffer_count];
      buffer.name = c_string(item.name);
      buffer.where = c_string(item.where);
      buffer.bytes = item.bytes;
      buffer_slot_.push_back(process.buffer_count);
      if (item.process_id == state_.process_id) model_buffer_.push_back(static_cast<int>(b));
      ++process.buffer_count;
    }
  }

  static void fill_attrs(const EndpointSpec& spec, bool is_a, TakyonPathAttributes& attrs) {
    const std::string& text = spec.used ? spec.interconnect : std::string("-");
    std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", text.c_str());
    attrs.is_endpointA = is_a;
    attrs.is_polling = spec.is_polling;
    attrs.abort_on_failure = spec.abort_on_failure;
    attrs.verbosity = spec.verbosity;
    attrs.path_create_timeout = spec.timeouts[0];
    attrs.send_start_timeout = spec.timeouts[1];
    attrs.send_finish_timeout = spec.timeouts[2];
    attrs.recv_start_timeout = spec.timeouts[3];
    attrs.recv_finish_timeout = spec.timeouts[4];
    attrs.path_destroy_timeout = spec.timeouts[5];
    attrs.send_completion_method = spec.send_completion;
    attrs.recv_completion_method = spec.recv_completion;
    attrs.nbufs_AtoB = spec.nbufs_AtoB;
    attrs.nbufs_BtoA = spec.nbufs_BtoA;
    const size_t sends = static_cast<size_t>(is_a ? spec.nbufs_AtoB : spec.nbufs_BtoA);
    const size_t recvs = static_cast<size_t>(is_a ? spec.nbufs_BtoA : spec.nbufs_AtoB);
    attrs.sender_max_bytes_list = c_array<uint64_t>(spec.sender_max_bytes.size());
    std::copy(spec.sender_max_bytes.begin(), spec.sender_max_bytes.end(), attrs.sender_max_bytes_list);
    attrs.recver_max_bytes_list = c_array<uint64_t>(spec.recver_max_bytes.size());
    std::copy(spec.recver_max_bytes.begin(), spec.recver_max_bytes.end(), attrs.recver_max_bytes_list);
    attrs.sender_addr_list = c_array<size_t>(spec.used ? sends : 0);
    attrs.recver_addr_list = c_array<size_t>(spec.used ? recvs : 0);
    attrs.error_message = nullptr;
  }

  void build_paths() {
    graph_->path_list = c_array<TakyonConnection>(model_.paths.size());
    graph_->path_count = static_cast<int>(model_.paths.size());
    for (size_t p = 0; p < model_.paths.size(); ++p) {
      const PathItem& path = model_.paths[p];
      TakyonConnection& connection = graph_->path_list[p];
      connection.id = path.id;
      connection.group_idA = path.endpoint[0].group_id;
      connection.group_idB = path.endpoint[1].group_id;
      fill_attrs(path.spec[0], true, connection.attrsA);
      fill_attrs(path.spec[1], false, connection.attrsB);
    }
    state_.paths_by_id.resize(model_.paths.size());
    std::iota(state_.paths_by_id.begin(), state_.paths_by_id.end(), 0);
    std::sort(state_.paths_by_id.begin(), state_.paths_by_id.end(), [&](int x, int y) {
      return model_.paths[static_cast<size_t>(x)].id < model_.paths[static_cast<size_t>(y)].id;
    });
  }

  void build_collectives() {
    graph_->collective_list = c_array<TakyonCollective>(model_.collectives.size());
    graph_->collective_count = static_cast<int>(model_.collectives.size());
    for (size_t c = 0; c < model_.collectives.size(); ++c) {
      const CollectiveItem& item = model_.collectives[c];
      TakyonCollective& collective = graph_->collective_list[c];
      collective.name = c_string(item.name);
      collective.type = c_type(item.kind);
      collective.path_list = c_array<TakyonCollectiveConnection>(item.entries.size());
      collective.num_paths = static_cast<int>(item.entries.size());
      for (size_t e = 0; e < item.entries.size(); ++e) {
        collective.path_list[e].path_id = item.entries[e].path_id;
        collective.path_list[e].src_is_endpointA = item.entries[e].src_is_a;
      }
      if (!is_tree(item.kind)) continue;
      std::vector<std::vector<int>> children_of(item.entries.size());
      std::vector<int> top;
      for (size_t e = 0; e < item.entries.size(); ++e) {
        const int parent = item.entries[e].parent;
        (parent < 0 ? top : children_of[static_cast<size_t>(parent)]).push_back(static_cast<int>(e));
      }
      collective.path_tree = c_array<TakyonPathTree>(1);
      collective.path_tree->path_index = -1;
      build_tree(collective.path_tree, top, children_of);
    }
  }

  TakyonGraph* graph_;
  GraphState& state_;
  const Graph& model_;
  std::vector<int> buffer_slot_;   // per model buffer: its index in its process's buffer_list
  std::vector<int> model_buffer_;  // per buffer of this process: its model index
};

bool read_file(const char* filename, std::string& text) {
  std::ifstream in(filename, std::ios::binary);
  if (!in) return fail_extensionf("%s: cannot open the graph file: %s", filename, std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return fail_extensionf("%s: cannot read the graph file (is it a regular file?)", filename);
  if (static_cast<uint64_t>(size) > kMaxFileBytes) {
    return fail_extensionf("%s: the graph file is %lld bytes; the limit is 16 MiB", filename,
                           static_cast<long long>(size));
  }
  in.seekg(0, std::ios::beg);
  text.resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(text.data(), size))
    return fail_extensionf("%s: cannot read the graph file", filename);
  return true;
}

TakyonGraph* load(int process_id, const char* filename) {
  if (filename == nullptr) {
    fail_extension("takyonLoadGraphDescription: filename is NULL");
    return nullptr;
  }
  std::string text;
  if (!read_file(filename, text)) return nullptr;
  auto state = std::make_unique<GraphState>();
  std::string error;
  if (!parse_graph(text, filename, state->model, error) ||
      !check_graph(state->model, provider_queries(), error)) {
    fail_extension(error);
    return nullptr;
  }
  const int count = static_cast<int>(state->model.processes.size());
  if (process_id < 0 || process_id >= count) {
    fail_extensionf("%s: process ID %d is not in the graph (it defines processes 0..%d)", filename,
                    process_id, count - 1);
    return nullptr;
  }
  state->process_id = process_id;
  auto* graph = static_cast<TakyonGraph*>(std::calloc(1, sizeof(TakyonGraph)));
  if (graph == nullptr) throw std::bad_alloc();
  GraphState& kept = *state;
  graph->private_graph = state.release();
  try {
    Builder builder(graph, kept);
    builder.build();
    if (!builder.allocate_and_resolve()) {
      free_buffers(graph, process_id);
      free_graph(graph);
      return nullptr;
    }
  } catch (...) {
    free_buffers(graph, process_id);
    free_graph(graph);
    throw;
  }
  return graph;
}

}  // namespace

std::string instance_text(const Graph& model, int group_id) {
  const auto id = static_cast<size_t>(group_id);
  return model.groups[static_cast<size_t>(model.group_of_id[id])].name + "[" +
         std::to_string(model.instance_of_id[id]) + "]";
}

GraphState* checked_state(const TakyonGraph* graph, int group_id, const char* caller) {
  GraphState* state = state_of(graph);
  if (state == nullptr) {
    fail_extensionf("%s: graph is NULL", caller);
    return nullptr;
  }
  const int total = static_cast<int>(state->model.group_of_id.size());
  if (group_id < 0 || group_id >= total) {
    fail_extensionf("%s: group ID %d is not in the graph (group IDs are 0..%d)", caller, group_id, total - 1);
    return nullptr;
  }
  const int process = state->model.process_of_id[static_cast<size_t>(group_id)];
  if (process != state->process_id) {
    fail_extensionf("%s: %s (group ID %d) runs in process %d, but this graph was loaded for process %d",
                    caller, instance_text(state->model, group_id).c_str(), group_id, process,
                    state->process_id);
    return nullptr;
  }
  return state;
}

}  // namespace takyon::detail::graph

extern "C" TakyonGraph* takyonLoadGraphDescription(int process_id, const char* filename) {
  try {
    return takyon::detail::graph::load(process_id, filename);
  } catch (const std::bad_alloc&) {
    takyon::detail::fail_extensionf("%s: out of memory while loading the graph", filename);
  } catch (const std::exception& e) {
    takyon::detail::fail_extensionf("%s: %s", filename, e.what());
  }
  return nullptr;
}

extern "C" void takyonFreeGraphDescription(TakyonGraph* graph, int process_id) {
  using takyon::detail::graph::state_of;
  if (graph == nullptr) return;
  const int loaded_for = state_of(graph)->process_id;
  if (process_id != loaded_for) {
    // Freeing with the loading process's ID is always right; say so rather than leak or misfree.
    takyon::detail::fail_extensionf(
        "takyonFreeGraphDescription: process ID %d given, but the graph was loaded for process %d (its "
        "buffers "
        "are freed)",
        process_id, loaded_for);
  }
  takyon::detail::graph::free_buffers(graph, loaded_for);
  takyon::detail::graph::free_graph(graph);
}
