// SPDX-License-Identifier: MIT
// Consistency checks of a parsed graph: names, IDs, instances, buffers, lists and collectives.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "extensions/graph/graph_model.hpp"
#include "extensions/graph/graph_text.hpp"

namespace takyon::detail::graph {
namespace {

class Checker {
 public:
  Checker(Graph& graph, const ProviderQueries& providers) : graph_(graph), providers_(providers) {}

  void run() {
    check_groups();
    check_processes();
    check_buffers();
    check_paths();
    check_collectives();
  }

 private:
  [[nodiscard]] std::string instance_name(int group_id) const {
    const GroupItem& group =
        graph_.groups[static_cast<size_t>(graph_.group_of_id[static_cast<size_t>(group_id)])];
    return group.name + "[" + std::to_string(graph_.instance_of_id[static_cast<size_t>(group_id)]) + "]";
  }

  void check_groups() {
    std::map<std::string_view, int> first_line;
    int total = 0;
    for (size_t g = 0; g < graph_.groups.size(); ++g) {
      GroupItem& group = graph_.groups[g];
      const auto [it, inserted] = first_line.emplace(group.name, group.line);
      if (!inserted) {
        fail_at(group.line, "group " + quote(group.name) + " is defined twice (first at line " +
                                std::to_string(it->second) + ")");
      }
      if (total + group.instances > kMaxGroupInstances) {
        fail_at(group.line, "group " + quote(group.name) + ": more than " +
                                std::to_string(kMaxGroupInstances) + " group instances in all");
      }
      group.starting_group_id = total;
      group_index_.emplace(group.name, static_cast<int>(g));
      for (int i = 0; i < group.instances; ++i) {
        graph_.group_of_id.push_back(static_cast<int>(g));
        graph_.instance_of_id.push_back(i);
      }
      total += group.instances;
    }
    graph_.process_of_id.assign(static_cast<size_t>(total), -1);
  }

  // Sets ref.group_id or fails naming `who`.
  void resolve(InstanceRef& ref, int line, const std::string& who) {
    const auto it = group_index_.find(ref.group);
    if (it == group_index_.end()) fail_at(line, who + ": unknown group " + quote(ref.group));
    const GroupItem& group = graph_.groups[static_cast<size_t>(it->second)];
    if (ref.instance >= group.instances) {
      fail_at(line, who + ": " + ref.group + "[" + std::to_string(ref.instance) +
                        "] is out of range (group " + quote(group.name) + " has " +
                        std::to_string(group.instances) + " instance" + (group.instances == 1 ? "" : "s") +
                        ": 0.." + std::to_string(group.instances - 1) + ")");
    }
    ref.group_id = group.starting_group_id + ref.instance;
  }

  void check_processes() {
    std::map<int, int> first_line;
    for (ProcessItem& process : graph_.processes) {
      const std::string who = "process " + std::to_string(process.id);
      const auto [it, inserted] = first_line.emplace(process.id, process.line);
      if (!inserted)
        fail_at(process.line, who + " is defined twice (first at line " + std::to_string(it->second) + ")");
      for (InstanceRef& ref : process.instances) {
        resolve(ref, process.group_ids_line, who + ": GroupIDs");
        int& owner = graph_.process_of_id[static_cast<size_t>(ref.group_id)];
        if (owner == process.id)
          fail_at(process.group_ids_line,
                  who + ": GroupIDs: " + instance_name(ref.group_id) + " is listed twice");
        if (owner >= 0) {
          fail_at(process.group_ids_line, who + ": GroupIDs: " + instance_name(ref.group_id) +
                                              " is already in process " + std::to_string(owner) +
                                              " (an instance runs in one process)");
        }
        owner = process.id;
      }
    }
    const int count = static_cast<int>(graph_.processes.size());
    for (const ProcessItem& process : graph_.processes) {
      if (process.id >= count) {
        fail_at(process.line, "process " + std::to_string(process.id) + ": process IDs must be 0.." +
                                  std::to_string(count - 1) + " (" + std::to_string(count) +
                                  " processes, numbered from 0 without gaps)");
      }
    }
    std::sort(graph_.processes.begin(), graph_.processes.end(),
              [](const ProcessItem& x, const ProcessItem& y) { return x.id < y.id; });
    for (size_t id = 0; id < graph_.process_of_id.size(); ++id) {
      if (graph_.process_of_id[id] < 0) {
        const GroupItem& group = graph_.groups[static_cast<size_t>(graph_.group_of_id[id])];
        fail_at(group.line, "group " + quote(group.name) + ": " + instance_name(static_cast<int>(id)) +
                                " is in no process (list it in one process's GroupIDs)");
      }
    }
  }

  void check_buffers() {
    std::map<std::string_view, int> first_line;
    for (size_t b = 0; b < graph_.buffers.size(); ++b) {
      const BufferItem& buffer = graph_.buffers[b];
      const auto [it, inserted] = first_line.emplace(buffer.name, buffer.line);
      if (!inserted) {
        fail_at(buffer.line, "buffer " + quote(buffer.name) + " is defined twice (first at line " +
                                 std::to_string(it->second) + ")");
      }
      if (buffer.process_id >= static_cast<int>(graph_.processes.size())) {
        fail_at(buffer.line, "buffer " + quote(buffer.name) + ": ProcessId " +
                                 std::to_string(buffer.process_id) + " is not a process (processes are 0.." +
                                 std::to_string(graph_.processes.size() - 1) + ")");
      }
      buffer_index_.emplace(buffer.name, static_cast<int>(b));
    }
  }

  void check_paths() {
    std::map<int, int> first_line;
    std::map<std::string_view, int> interconnect_owner;  // provider string -> path ID
    for (size_t p = 0; p < graph_.paths.size(); ++p) {
      PathItem& path = graph_.paths[p];
      const std::string who = "path " + std::to_string(path.id);
      const auto [it, inserted] = first_line.emplace(path.id, path.line);
      if (!inserted)
        fail_at(path.line, who + " is defined twice (first at line " + std::to_string(it->second) + ")");
      path_index_.emplace(path.id, static_cast<int>(p));
      for (auto& endpoint : path.endpoint) {
        if (!endpoint.unused()) resolve(endpoint, path.endpoints_line, who + ": Endpoints");
      }
      if (path.endpoint[0].group_id >= 0 && path.endpoint[0].group_id == path.endpoint[1].group_id) {
        fail_at(path.endpoints_line, who + ": Endpoints: both sides are " +
                                         instance_name(path.endpoint[0].group_id) +
                                         " (a path joins two different group instances)");
      }
      check_interconnects(path, who, interconnect_owner);
      check_nbufs(path, who);
      for (int side = 0; side < 2; ++side) {
        if (path.spec[side].used) check_lists(path, side, who);
      }
    }
  }

  void check_interconnects(const PathItem& path, const std::string& who,
                           std::map<std::string_view, int>& interconnect_owner) {
    for (int side = 0; side < 2; ++side) {
      const EndpointSpec& spec = path.spec[side];
      if (!spec.used) continue;
      const char* key = side == 0 ? "InterconnectA" : "InterconnectB";
      if (providers_.validate) {
        const std::string problem = providers_.validate(spec.interconnect);
        if (!problem.empty()) fail_at(path.interconnect_line[side], who + ": " + key + ": " + problem);
      }
      const auto [it, inserted] = interconnect_owner.emplace(spec.interconnect, path.id);
      if (!inserted && it->second != path.id) {
        fail_at(path.interconnect_line[side], who + ": " + key + " " + quote(spec.interconnect) +
                                                  " is also used by path " + std::to_string(it->second) +
                                                  " (two paths with one interconnect string would collide)");
      }
    }
    const std::vector<std::string_view> words =
        split_words(path.spec[0].used ? path.spec[0].interconnect : path.spec[1].interconnect);
    const bool inter_thread = !words.empty() && providers_.threads_only && providers_.threads_only(words[0]);
    if (inter_thread && path.spec[0].used && path.spec[1].used) {
      const int pa = graph_.process_of_id[static_cast<size_t>(path.endpoint[0].group_id)];
      const int pb = graph_.process_of_id[static_cast<size_t>(path.endpoint[1].group_id)];
      if (pa != pb) {
        fail_at(path.interconnect_line[0],
                who + ": " + std::string(words[0]) + " needs both endpoints in one process, but " +
                    instance_name(path.endpoint[0].group_id) + " is in process " + std::to_string(pa) +
                    " and " + instance_name(path.endpoint[1].group_id) + " in process " + std::to_string(pb));
      }
    }
  }

  void check_nbufs(const PathItem& path, const std::string& who) {
    const int a_line = path.key_line[static_cast<size_t>(Key::kNBufsAtoB)];
    const int b_line = path.key_line[static_cast<size_t>(Key::kNBufsBtoA)];
    if (path.spec[0].used && path.spec[1].used) {
      if (path.spec[0].nbufs_AtoB != path.spec[1].nbufs_AtoB) {
        fail_at(a_line, who + ": NBufsAtoB differs between the endpoints (" +
                            std::to_string(path.spec[0].nbufs_AtoB) + " for A, " +
                            std::to_string(path.spec[1].nbufs_AtoB) + " for B)");
      }
      if (path.spec[0].nbufs_BtoA != path.spec[1].nbufs_BtoA) {
        fail_at(b_line, who + ": NBufsBtoA differs between the endpoints (" +
                            std::to_string(path.spec[0].nbufs_BtoA) + " for A, " +
                            std::to_string(path.spec[1].nbufs_BtoA) + " for B)");
      }
    }
    for (int side = 0; side < 2; ++side) {
      const EndpointSpec& spec = path.spec[side];
      if (spec.used && spec.nbufs_AtoB == 0 && spec.nbufs_BtoA == 0) {
        fail_at(a_line, who + ": NBufsAtoB and NBufsBtoA are both 0 for endpoint " + (side == 0 ? "A" : "B") +
                            " (a path needs at least one buffer)");
      }
    }
  }

  void check_lists(PathItem& path, int side, const std::string& who) {
    EndpointSpec& spec = path.spec[side];
    const std::string end = side == 0 ? "A" : "B";
    const int sends = side == 0 ? spec.nbufs_AtoB : spec.nbufs_BtoA;
    const int recvs = side == 0 ? spec.nbufs_BtoA : spec.nbufs_AtoB;
    const std::string send_key = side == 0 ? "NBufsAtoB" : "NBufsBtoA";
    const std::string recv_key = side == 0 ? "NBufsBtoA" : "NBufsAtoB";
    const auto line_of = [&](Key key) { return path.key_line[static_cast<size_t>(key)]; };
    const auto check_length = [&](size_t length, int expected, Key key, const std::string& nbufs_key,
                                  bool may_be_empty) {
      if (static_cast<int>(length) == expected || (may_be_empty && length == 0)) return;
      fail_at(line_of(key), who + ": " + std::string(kKeyNames[static_cast<size_t>(key)]) + " for endpoint " +
                                end + " has " + std::to_string(length) + " entr" +
                                (length == 1 ? "y" : "ies") + " but " + nbufs_key + " is " +
                                std::to_string(expected) +
                                (may_be_empty ? " (or write '-' for all NULL)" : ""));
    };
    check_length(spec.sender_max_bytes.size(), sends, Key::kSenderMaxBytesList, send_key, false);
    check_length(spec.recver_max_bytes.size(), recvs, Key::kRecverMaxBytesList, recv_key, false);
    check_length(spec.sender_addrs.size(), sends, Key::kSenderAddrList, send_key, true);
    check_length(spec.recver_addrs.size(), recvs, Key::kRecverAddrList, recv_key, true);
    check_addrs(path, side, who, Key::kSenderAddrList, spec.sender_addrs, spec.sender_max_bytes);
    check_addrs(path, side, who, Key::kRecverAddrList, spec.recver_addrs, spec.recver_max_bytes);
  }

  void check_addrs(const PathItem& path, int side, const std::string& who, Key key,
                   std::vector<AddrEntry>& addrs, const std::vector<uint64_t>& sizes) {
    const int line = path.key_line[static_cast<size_t>(key)];
    const std::string what = who + ": " + std::string(kKeyNames[static_cast<size_t>(key)]) +
                             " for endpoint " + (side == 0 ? "A" : "B");
    const int group_id = path.endpoint[side].group_id;
    const int process = graph_.process_of_id[static_cast<size_t>(group_id)];
    for (size_t i = 0; i < addrs.size(); ++i) {
      AddrEntry& entry = addrs[i];
      if (entry.is_null) continue;
      const auto it = buffer_index_.find(entry.buffer);
      if (it == buffer_index_.end()) fail_at(line, what + ": unknown buffer " + quote(entry.buffer));
      entry.buffer_index = it->second;
      const BufferItem& buffer = graph_.buffers[static_cast<size_t>(it->second)];
      if (buffer.process_id != process) {
        fail_at(line, what + ": buffer " + quote(buffer.name) + " belongs to process " +
                          std::to_string(buffer.process_id) + " but " + instance_name(group_id) +
                          " runs in process " + std::to_string(process));
      }
      // Both are at most 2^40 (parser limits), so the sum cannot overflow.
      const uint64_t end = entry.offset + sizes[i];
      if (end > buffer.bytes) {
        fail_at(line, what + ": entry " + std::to_string(i) + " (" + buffer.name + ":" +
                          std::to_string(entry.offset) + ", " + std::to_string(sizes[i]) +
                          " bytes) ends at byte " + std::to_string(end) + " but buffer " +
                          quote(buffer.name) + " has " + std::to_string(buffer.bytes) + " bytes");
      }
    }
  }

  void check_collectives() {
    std::map<std::string_view, int> first_line;
    for (CollectiveItem& collective : graph_.collectives) {
      const std::string who = "collective " + quote(collective.name);
      const auto [it, inserted] = first_line.emplace(collective.name, collective.line);
      if (!inserted)
        fail_at(collective.line,
                who + " is defined twice (first at line " + std::to_string(it->second) + ")");
      std::set<int> seen;
      for (CollectiveEntry& entry : collective.entries) {
        const auto found = path_index_.find(entry.path_id);
        if (found == path_index_.end()) {
          fail_at(collective.ids_line, who + ": PathSrcIds: unknown path " + std::to_string(entry.path_id));
        }
        if (!seen.insert(entry.path_id).second) {
          fail_at(collective.ids_line,
                  who + ": PathSrcIds: path " + std::to_string(entry.path_id) + " is listed twice");
        }
        entry.path_index = found->second;
        const PathItem& path = graph_.paths[static_cast<size_t>(entry.path_index)];
        if (!path.spec[0].used || !path.spec[1].used) {
          fail_at(collective.ids_line,
                  who + ": PathSrcIds: path " + std::to_string(entry.path_id) +
                      " is one-sided (an endpoint is '-'); collectives need both endpoints");
        }
      }
      const std::string ids = who + ": PathSrcIds: ";
      switch (collective.kind) {
        case CollectiveKind::kBarrier:
        case CollectiveKind::kReduce:
        case CollectiveKind::kBcast:
          check_tree(collective, ids);
          break;
        case CollectiveKind::kScatter:
          check_one_side(collective, ids, true);
          break;
        case CollectiveKind::kGather:
          check_one_side(collective, ids, false);
          break;
        case CollectiveKind::kAlltoall:
          check_alltoall(collective, ids);
          break;
        case CollectiveKind::kOne2One:
          break;
      }
    }
  }

  [[nodiscard]] int src_of(const CollectiveEntry& entry) const {
    return graph_.paths[static_cast<size_t>(entry.path_index)].endpoint[entry.src_is_a ? 0 : 1].group_id;
  }
  [[nodiscard]] int dest_of(const CollectiveEntry& entry) const {
    return graph_.paths[static_cast<size_t>(entry.path_index)].endpoint[entry.src_is_a ? 1 : 0].group_id;
  }
  static std::string entry_text(const CollectiveEntry& entry) {
    return std::to_string(entry.path_id) + (entry.src_is_a ? ":A" : ":B");
  }

  void check_tree(const CollectiveItem& collective, const std::string& ids) {
    const int line = collective.ids_line;
    const std::vector<CollectiveEntry>& entries = collective.entries;
    const int root = src_of(entries[0]);
    std::map<int, size_t> parent_entry;  // child instance -> entry that reaches it
    for (size_t e = 0; e < entries.size(); ++e) {
      const CollectiveEntry& entry = entries[e];
      if (entry.parent < 0) {
        if (src_of(entry) != root) {
          fail_at(line, ids + "top-level entries must all leave the root " + instance_name(root) + ", but " +
                            entry_text(entry) + " leaves " + instance_name(src_of(entry)));
        }
      } else {
        const CollectiveEntry& parent = entries[static_cast<size_t>(entry.parent)];
        if (src_of(entry) != dest_of(parent)) {
          fail_at(line, ids + entry_text(entry) + " is in the list after " + entry_text(parent) +
                            ", whose child is " + instance_name(dest_of(parent)) +
                            ", but its parent side is " + instance_name(src_of(entry)));
        }
      }
      const int child = dest_of(entry);
      if (child == root) {
        fail_at(line, ids + entry_text(entry) + " makes the root " + instance_name(root) + " a child");
      }
      const auto [it, inserted] = parent_entry.emplace(child, e);
      if (!inserted) {
        fail_at(line, ids + instance_name(child) + " has two parents (entries " +
                          entry_text(entries[it->second]) + " and " + entry_text(entry) + ")");
      }
    }
  }

  // SCATTER: one source instance, distinct destinations. GATHER: the mirror image.
  void check_one_side(const CollectiveItem& collective, const std::string& ids, bool scatter) {
    const int line = collective.ids_line;
    const auto common = [&](const CollectiveEntry& e) { return scatter ? src_of(e) : dest_of(e); };
    const auto each = [&](const CollectiveEntry& e) { return scatter ? dest_of(e) : src_of(e); };
    const CollectiveEntry& first = collective.entries[0];
    std::map<int, const CollectiveEntry*> members;
    for (const CollectiveEntry& entry : collective.entries) {
      if (common(entry) != common(first)) {
        fail_at(line, ids + (scatter ? "SCATTER sources" : "GATHER destinations") +
                          " must all be one instance, but " + entry_text(first) + " gives " +
                          instance_name(common(first)) + " and " + entry_text(entry) + " gives " +
                          instance_name(common(entry)));
      }
      const auto [it, inserted] = members.emplace(each(entry), &entry);
      if (!inserted) {
        fail_at(line, ids + instance_name(each(entry)) + " is the " + (scatter ? "destination" : "source") +
                          " of two entries (" + entry_text(*it->second) + " and " + entry_text(entry) + ")");
      }
    }
  }

  void check_alltoall(const CollectiveItem& collective, const std::string& ids) {
    const int line = collective.ids_line;
    std::set<int> members;
    std::map<std::pair<int, int>, int> pair_path;
    for (const CollectiveEntry& entry : collective.entries) {
      const int x = std::min(src_of(entry), dest_of(entry));
      const int y = std::max(src_of(entry), dest_of(entry));
      members.insert(x);
      members.insert(y);
      const auto [it, inserted] = pair_path.emplace(std::make_pair(x, y), entry.path_id);
      if (!inserted) {
        fail_at(line, ids + instance_name(x) + " and " + instance_name(y) + " share two paths (" +
                          std::to_string(it->second) + " and " + std::to_string(entry.path_id) +
                          "); ALLTOALL needs exactly one path per pair of members");
      }
    }
    // Each pair appears at most once, so a member with fewer pairs than members-1 reveals a gap
    // after at most (its pairs + 1) probes: this loop stays linear in the number of entries.
    for (auto x = members.begin(); x != members.end(); ++x) {
      for (auto y = std::next(x); y != members.end(); ++y) {
        if (pair_path.count(std::make_pair(*x, *y)) == 0) {
          fail_at(line, ids + "no path between " + instance_name(*x) + " and " + instance_name(*y) +
                            " (ALLTOALL needs exactly one path per pair of members)");
        }
      }
    }
  }

  Graph& graph_;
  const ProviderQueries& providers_;
  std::map<std::string, int, std::less<>> group_index_;
  std::map<std::string, int, std::less<>> buffer_index_;
  std::map<int, int> path_index_;
};

}  // namespace

bool check_graph(Graph& graph, const ProviderQueries& providers, std::string& error) {
  try {
    Checker checker(graph, providers);
    checker.run();
  } catch (const GraphError& e) {
    error = graph.file_name + ":" + std::to_string(e.line) + ": " + e.what;
    return false;
  }
  return true;
}

}  // namespace takyon::detail::graph
