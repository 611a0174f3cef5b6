// SPDX-License-Identifier: MIT
// Writing the collective sweep's graph description file.
#include "collective_graph.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sweep.hpp"

namespace takyon::bench {
namespace {

// Generous: a collective of 1 MiB takes milliseconds. A member that died (or a bug in a
// collective) then fails the run in seconds instead of hanging it.
constexpr const char* kTimeout = "10";
// The barrier carries zero-byte messages only.
constexpr std::uint64_t kBarrierBytes = 64;

std::string repeat(const std::string& item, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += (i > 0 ? " " : "") + item;
  return out;
}

std::string both(const std::string& value) {
  return value + ", " + value;
}

std::string member(int m) {
  return std::string(kGroupName) + "[" + std::to_string(m) + "]";
}

// The depth-first PathSrcIds tokens of the subtree under `node`: "0:A ( 2:A 3:A ) 1:A".
void write_subtree(const CollectiveLayout& layout, int node, std::vector<std::string>& out) {
  for (int c = layout.fanout * node + 1; c <= layout.fanout * node + layout.fanout && c < layout.members;
       ++c) {
    out.push_back(std::to_string(c - 1) + ":A");
    if (layout.fanout * c + 1 < layout.members) {
      out.emplace_back("(");
      write_subtree(layout, c, out);
      out.emplace_back(")");
    }
  }
}

void write_path(std::ostringstream& out, int id, int a, int b, const std::string& provider) {
  const std::string interconnect = provider + " -ID=" + std::to_string(next_path_id());
  out << "Path: " << id << "\n  Endpoints: " << member(a) << ", " << member(b)
      << "\n  InterconnectA: " << interconnect << "\n  InterconnectB: " << interconnect << "\n";
}

}  // namespace

int CollectiveLayout::depth() const {
  int deepest = 0;
  for (int m = 1; m < members; ++m) {
    int d = 0;
    for (int p = m; p != 0; p = parent(p)) ++d;
    deepest = std::max(deepest, d);
  }
  return deepest;
}

int CollectiveLayout::mesh_path_id(int i, int j) const {
  const int lo = std::min(i, j);
  const int hi = std::max(i, j);
  // Pairs (0,1) (0,2) .. (0,N-1) (1,2) ..: lo's row starts after the rows of 0..lo-1.
  const int row_start = lo * members - lo * (lo + 1) / 2;
  return tree_paths() + row_start + (hi - lo - 1);
}

std::string collective_provider(bool processes) {
  return processes ? "InterProcessMemcpy" : "InterThreadMemcpy";
}

std::string collective_graph_text(const GraphSpec& spec) {
  const CollectiveLayout& layout = spec.layout;
  const std::string provider = collective_provider(spec.processes);
  const std::string max = std::to_string(spec.max_bytes);
  std::ostringstream out;
  out << "# takyon-bench --collectives: " << layout.members << " members ("
      << (spec.processes ? "one process each" : "threads of one process") << "), tree fan-out "
      << layout.fanout << ", alltoall mesh, " << provider << "\n\nGroups\nGroup: " << kGroupName
      << "\n  Instances: " << layout.members << "\n\nProcesses\n";
  if (spec.processes) {
    for (int m = 0; m < layout.members; ++m) out << "Process: " << m << "\n  GroupIDs: " << member(m) << "\n";
  } else {
    out << "Process: 0\n  GroupIDs:";
    for (int m = 0; m < layout.members; ++m) out << " " << member(m);
    out << "\n";
  }
  out << "\nBuffers\n\nPaths\nDefaults\n"
      << "  IsPolling: " << both(spec.polling ? "true" : "false") << "\n"
      << "  AbortOnFailure: false, false\n"
      << "  Verbosity: TAKYON_VERBOSITY_ERRORS, TAKYON_VERBOSITY_ERRORS\n"
      << "  PathCreateTimeout: " << both(kTimeout) << "\n  SendStartTimeout: " << both(kTimeout)
      << "\n  SendFinishTimeout: " << both(kTimeout) << "\n  RecvStartTimeout: " << both(kTimeout)
      << "\n  RecvFinishTimeout: " << both(kTimeout) << "\n  PathDestroyTimeout: " << both(kTimeout) << "\n"
      << "  SendCompletionMethod: TAKYON_BLOCKING, TAKYON_BLOCKING\n"
      << "  RecvCompletionMethod: TAKYON_BLOCKING, TAKYON_BLOCKING\n";
  // Tree paths: the barrier's buffer small, the others sized for the largest message.
  const std::string tree_sizes = std::to_string(kBarrierBytes) + " " + repeat(max, kTreeBuffers - 1);
  const std::string tree_addrs = repeat("NULL", kTreeBuffers);
  out << "  NBufsAtoB: " << both(std::to_string(kTreeBuffers))
      << "\n  NBufsBtoA: " << both(std::to_string(kTreeBuffers))
      << "\n  SenderMaxBytesList: " << both(tree_sizes) << "\n  RecverMaxBytesList: " << both(tree_sizes)
      << "\n  SenderAddrList: " << both(tree_addrs) << "\n  RecverAddrList: " << both(tree_addrs) << "\n";
  for (int m = 1; m < layout.members; ++m) write_path(out, m - 1, layout.parent(m), m, provider);
  out << "Defaults\n  NBufsAtoB: 1, 1\n  NBufsBtoA: 1, 1\n  SenderMaxBytesList: " << both(max)
      << "\n  RecverMaxBytesList: " << both(max) << "\n  SenderAddrList: NULL, NULL\n"
      << "  RecverAddrList: NULL, NULL\n";
  for (int i = 0; i < layout.members; ++i) {
    for (int j = i + 1; j < layout.members; ++j) write_path(out, layout.mesh_path_id(i, j), i, j, provider);
  }

  std::vector<std::string> tokens;
  write_subtree(layout, 0, tokens);
  std::string tree;
  for (const std::string& t : tokens) tree += (tree.empty() ? "" : " ") + t;
  std::string mesh;
  for (int p = layout.tree_paths(); p < layout.tree_paths() + layout.mesh_paths(); ++p) {
    mesh += (mesh.empty() ? "" : " ") + std::to_string(p) + ":A";
  }
  out << "\nCollectives\n";
  for (const auto& [name, type] : {std::pair{kBarrierName, "BARRIER"}, std::pair{kReduceName, "REDUCE"},
                                   std::pair{kBcastName, "BCAST"}}) {
    out << "Collective: " << name << "\n  Type: " << type << "\n  PathSrcIds: " << tree << "\n";
  }
  out << "Collective: " << kAlltoallName << "\n  Type: ALLTOALL\n  PathSrcIds: " << mesh << "\n";
  return out.str();
}

std::string write_collective_graph(const GraphSpec& spec) {
  static std::atomic<int> counter{0};
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("takyon-bench-collectives-" + std::to_string(getpid()) + "-" +
                                                std::to_string(counter.fetch_add(1)) + ".graph");
  std::ofstream out(file, std::ios::trunc);
  out << collective_graph_text(spec);
  out.flush();
  if (!out) throw std::runtime_error("cannot write the graph file " + file.string());
  return file.string();
}

}  // namespace takyon::bench
