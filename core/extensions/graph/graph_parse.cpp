// SPDX-License-Identifier: MIT
// The graph file parser: text to the Graph model, syntax errors with the file's line numbers.
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "extensions/graph/graph_attrs.hpp"
#include "extensions/graph/graph_model.hpp"
#include "extensions/graph/graph_text.hpp"

namespace takyon::detail::graph {
namespace {

constexpr std::string_view kSections[] = {"Groups", "Processes", "Buffers", "Paths", "Collectives"};

// One meaningful line: a header ("Groups", "Defaults") or "<key>: <value>".
struct Line {
  int number = 0;
  bool is_header = false;
  std::string_view key;  // the header word, or the key
  std::string_view value;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.find('\0') != std::string_view::npos) fail_at(number, "the line holds a NUL byte");
    Line out;
    out.number = number;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      out.is_header = true;
      out.key = line;
      if (split_words(line).size() != 1) {
        fail_at(number, "expected '<Key>: <value>' or a section name, found " + quote(line));
      }
    } else {
      out.key = trim(line.substr(0, colon));
      out.value = trim(line.substr(colon + 1));
      if (out.key.empty() || split_words(out.key).size() != 1) {
        fail_at(number, "expected '<Key>: <value>', found " + quote(line));
      }
    }
    lines.push_back(out);
  }
  return lines;
}

// The keys an item may carry after its first line, with the value and line of each.
struct ItemKeys {
  std::map<std::string, std::pair<std::string_view, int>, std::less<>> values;

  [[nodiscard]] std::optional<std::pair<std::string_view, int>> get(std::string_view key) const {
    const auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

class Parser {
 public:
  Parser(std::string_view text, Graph& graph) : lines_(split_lines(text)), graph_(graph) {
    last_line_ = 1;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n' && i + 1 < text.size()) ++last_line_;
    }
  }

  void run() {
    section(0);
    while (at_item()) parse_group();
    if (graph_.groups.empty()) fail_at(line_number(), "the Groups section needs at least one 'Group:'");
    section(1);
    while (at_item()) parse_process();
    if (graph_.processes.empty())
      fail_at(line_number(), "the Processes section needs at least one 'Process:'");
    section(2);
    while (at_item()) parse_buffer();
    section(3);
    while (at_item() || at_defaults()) {
      if (at_defaults()) {
        parse_defaults();
      } else {
        parse_path();
      }
    }
    if (graph_.paths.empty()) fail_at(line_number(), "the Paths section needs at least one 'Path:'");
    section(4);
    while (at_item()) parse_collective();
    if (pos_ < lines_.size())
      fail_at(lines_[pos_].number,
              "unexpected " + quote(lines_[pos_].key) + " after the Collectives section");
  }

 private:
  [[nodiscard]] int line_number() const { return pos_ < lines_.size() ? lines_[pos_].number : last_line_; }
  [[nodiscard]] bool at_item() const { return pos_ < lines_.size() && !lines_[pos_].is_header; }
  [[nodiscard]] bool at_defaults() const {
    return pos_ < lines_.size() && lines_[pos_].is_header && lines_[pos_].key == "Defaults";
  }

  void section(size_t index) {
    const std::string expected(kSections[index]);
    if (pos_ >= lines_.size()) fail_at(last_line_, "expected section '" + expected + "' but the file ended");
    const Line& line = lines_[pos_];
    if (!line.is_header || line.key != expected) {
      if (line.is_header && line.key == "Defaults") {
        fail_at(line.number,
                "'Defaults' is allowed only in the Paths section (expected section '" + expected + "')");
      }
      const std::string found =
          line.is_header ? "section " + quote(line.key) : quote(std::string(line.key) + ":");
      fail_at(line.number,
              "expected section '" + expected + "', found " + found +
                  " (sections are Groups, Processes, Buffers, Paths, Collectives, in that order)");
    }
    ++pos_;
  }

  // Reads an item: its first line must be `item_key:`; the following non-header lines are its keys.
  // Returns the first line's value.
  std::string_view item(std::string_view item_key, std::string_view section_name,
                        std::initializer_list<std::string_view> allowed, std::string_view who_prefix,
                        int& line, ItemKeys& keys, std::string& who) {
    const Line& first = lines_[pos_];
    if (first.key != item_key) {
      fail_at(first.number, "expected '" + std::string(item_key) + ": ...' in the " +
                                std::string(section_name) + " section, found " +
                                quote(std::string(first.key) + ":"));
    }
    line = first.number;
    who = std::string(who_prefix) + " " + quote(first.value);
    ++pos_;
    while (at_item() && lines_[pos_].key != item_key) {
      const Line& l = lines_[pos_];
      bool known = false;
      for (std::string_view key : allowed) known = known || key == l.key;
      if (!known) {
        std::string list;
        for (std::string_view key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
        fail_at(l.number, who + ": unknown key " + quote(l.key) + " (expected " + list + ")");
      }
      if (keys.values.count(l.key) != 0) fail_at(l.number, who + ": " + std::string(l.key) + " given twice");
      keys.values.emplace(std::string(l.key), std::make_pair(l.value, l.number));
      ++pos_;
    }
    return first.value;
  }

  std::pair<std::string_view, int> need(const ItemKeys& keys, std::string_view key, const std::string& who,
                                        int line) {
    const auto value = keys.get(key);
    if (!value) fail_at(line, who + ": missing '" + std::string(key) + ":'");
    return *value;
  }

  static int parse_count(std::string_view text, int line, const std::string& what, uint64_t min,
                         uint64_t max) {
    const auto value = parse_uint(text, max);
    if (!value || *value < min) {
      fail_at(line, what + ": " + quote(text) + " is not an integer in " + std::to_string(min) + ".." +
                        std::to_string(max));
    }
    return static_cast<int>(*value);
  }

  static void check_count(size_t count, int line, const char* what) {
    if (count >= static_cast<size_t>(kMaxItems)) {
      fail_at(line, std::string("more than ") + std::to_string(kMaxItems) + " " + what);
    }
  }

  void parse_group() {
    int line = 0;
    ItemKeys keys;
    std::string who;
    const std::string_view name = item("Group", "Groups", {"Instances"}, "group", line, keys, who);
    if (!is_name(name))
      fail_at(line, "group name " + quote(name) + " is not a name (letters, digits, '_', '.', '-')");
    check_count(graph_.groups.size(), line, "groups");
    const auto [text, instances_line] = need(keys, "Instances", who, line);
    GroupItem group;
    group.name = std::string(name);
    group.line = line;
    group.instances = parse_count(text, instances_line, who + ": Instances", 1, kMaxGroupInstances);
    graph_.groups.push_back(std::move(group));
  }

  static InstanceRef parse_ref(std::string_view text, int line, const std::string& who, bool allow_unused) {
    InstanceRef ref;
    if (allow_unused && text == "-") return ref;
    const size_t open = text.find('[');
    if (open == std::string_view::npos || text.back() != ']' || !is_name(text.substr(0, open))) {
      fail_at(line, who + ": " + quote(text) + " is not a group instance (expected <group>[<index>]" +
                        (allow_unused ? " or '-')" : ")"));
    }
    ref.group = std::string(text.substr(0, open));
    ref.instance = parse_count(text.substr(open + 1, text.size() - open - 2), line,
                               who + ": instance index of " + quote(text), 0, kMaxGroupInstances - 1);
    return ref;
  }

  void parse_process() {
    int line = 0;
    ItemKeys keys;
    std::string who;
    const std::string_view id = item("Process", "Processes", {"GroupIDs"}, "process", line, keys, who);
    check_count(graph_.processes.size(), line, "processes");
    ProcessItem process;
    process.line = line;
    process.id = parse_count(id, line, "Process", 0, kMaxItems - 1);
    who = "process " + std::to_string(process.id);
    const auto [text, ids_line] = need(keys, "GroupIDs", who, line);
    process.group_ids_line = ids_line;
    const auto words = split_words(text);
    if (words.empty()) fail_at(ids_line, who + ": GroupIDs: expected one or more <group>[<index>]");
    if (words.size() > static_cast<size_t>(kMaxGroupInstances))
      fail_at(ids_line, who + ": GroupIDs: too many entries");
    for (std::string_view word : words)
      process.instances.push_back(parse_ref(word, ids_line, who + ": GroupIDs", false));
    graph_.processes.push_back(std::move(process));
  }

  void parse_buffer() {
    int line = 0;
    ItemKeys keys;
    std::string who;
    const std::string_view name =
        item("Buffer", "Buffers", {"ProcessId", "Where", "Bytes"}, "buffer", line, keys, who);
    if (!is_name(name))
      fail_at(line, "buffer name " + quote(name) + " is not a name (letters, digits, '_', '.', '-')");
    check_count(graph_.buffers.size(), line, "buffers");
    BufferItem buffer;
    buffer.name = std::string(name);
    buffer.line = line;
    const auto [pid, pid_line] = need(keys, "ProcessId", who, line);
    buffer.process_id = parse_count(pid, pid_line, who + ": ProcessId", 0, kMaxItems - 1);
    const auto [where, where_line] = need(keys, "Where", who, line);
    if (where.empty())
      fail_at(where_line, who + ": Where: expected the kind of memory (CPU, MMAP, CUDA:0 ...)");
    buffer.where = std::string(where);
    const auto [bytes, bytes_line] = need(keys, "Bytes", who, line);
    const auto value = parse_uint(bytes, kMaxBytes);
    if (!value || *value == 0)
      fail_at(bytes_line, who + ": Bytes: " + quote(bytes) + " is not an integer in 1..2^40");
    buffer.bytes = *value;
    graph_.buffers.push_back(std::move(buffer));
  }

  // Key lines of a Defaults block or a path's overrides.
  static void read_setting(const Line& l, const std::string& who, RawSettings& raw) {
    const auto key = find_key(l.key);
    if (!key) return;
    RawSetting& setting = raw[static_cast<size_t>(*key)];
    split_pair(l.value, l.number, who, l.key, setting);
  }

  void parse_defaults() {
    const int line = lines_[pos_].number;
    ++pos_;
    RawSettings block;
    while (at_item() && lines_[pos_].key != "Path") {
      const Line& l = lines_[pos_];
      if (!find_key(l.key))
        fail_at(l.number, "Defaults: unknown key " + quote(l.key) + " (expected a path attribute)");
      if (block[static_cast<size_t>(*find_key(l.key))].given)
        fail_at(l.number, "Defaults: " + std::string(l.key) + " given twice");
      read_setting(l, "Defaults", block);
      ++pos_;
    }
    if (std::none_of(block.begin(), block.end(), [](const RawSetting& s) { return s.given; })) {
      fail_at(line, "Defaults: the block sets nothing");
    }
    // Parse now so a bad default is reported where it was written, even if no path uses it.
    EndpointSpec scratch;
    apply_settings(block, 0, "Defaults", scratch);
    apply_settings(block, 1, "Defaults", scratch);
    for (size_t i = 0; i < kKeyCount; ++i) {
      if (block[i].given) defaults_[i] = block[i];
    }
  }

  void parse_path() {
    const Line& first = lines_[pos_];
    if (first.key != "Path") {
      fail_at(first.number, "expected 'Path: <id>' or 'Defaults' in the Paths section, found " +
                                quote(std::string(first.key) + ":"));
    }
    check_count(graph_.paths.size(), first.number, "paths");
    PathItem path;
    path.line = first.number;
    path.id = parse_count(first.value, first.number, "Path", 0, INT32_MAX);
    const std::string who = "path " + std::to_string(path.id);
    ++pos_;
    RawSettings settings = defaults_;
    RawSettings own;
    std::optional<std::pair<std::string_view, int>> endpoints;
    std::optional<std::pair<std::string_view, int>> interconnect[2];
    while (at_item() && lines_[pos_].key != "Path") {
      const Line& l = lines_[pos_];
      std::optional<std::pair<std::string_view, int>>* slot = nullptr;
      if (l.key == "Endpoints") slot = &endpoints;
      if (l.key == "InterconnectA") slot = &interconnect[0];
      if (l.key == "InterconnectB") slot = &interconnect[1];
      if (slot != nullptr) {
        if (slot->has_value()) fail_at(l.number, who + ": " + std::string(l.key) + " given twice");
        *slot = std::make_pair(l.value, l.number);
      } else {
        const auto key = find_key(l.key);
        if (!key) {
          fail_at(l.number, who + ": unknown key " + quote(l.key) +
                                " (expected Endpoints, InterconnectA, InterconnectB or a path attribute)");
        }
        if (own[static_cast<size_t>(*key)].given)
          fail_at(l.number, who + ": " + std::string(l.key) + " given twice");
        read_setting(l, who, own);
      }
      ++pos_;
    }
    for (size_t i = 0; i < kKeyCount; ++i) {
      if (own[i].given) settings[i] = own[i];
    }
    if (!endpoints) fail_at(path.line, who + ": missing 'Endpoints:'");
    path.endpoints_line = endpoints->second;
    RawSetting sides;
    split_pair(endpoints->first, endpoints->second, who, "Endpoints", sides);
    path.endpoint[0] = parse_ref(sides.a, endpoints->second, who + ": Endpoints", true);
    path.endpoint[1] = parse_ref(sides.b, endpoints->second, who + ": Endpoints", true);
    if (path.endpoint[0].unused() && path.endpoint[1].unused()) {
      fail_at(endpoints->second, who + ": Endpoints: at most one side may be '-'");
    }
    for (int side = 0; side < 2; ++side) {
      const char* name = side == 0 ? "InterconnectA" : "InterconnectB";
      if (!interconnect[side]) fail_at(path.line, who + ": missing '" + std::string(name) + ":'");
      const auto [text, line] = *interconnect[side];
      path.interconnect_line[side] = line;
      const bool unused = path.endpoint[side].unused();
      if (unused && text != "-") {
        fail_at(line, who + ": endpoint " + (side == 0 ? "A" : "B") + " is '-' so " + name + " must be '-'");
      }
      if (!unused && (text == "-" || text.empty())) {
        fail_at(line, who + ": " + name + " must be a provider string (endpoint " + (side == 0 ? "A" : "B") +
                          " is " + sides_text(sides, side) + ")");
      }
      if (text.size() >= TAKYON_MAX_INTERCONNECT_CHARS) {
        fail_at(line, who + ": " + name + " is longer than " +
                          std::to_string(TAKYON_MAX_INTERCONNECT_CHARS - 1) + " characters");
      }
      EndpointSpec& spec = path.spec[side];
      spec.used = !unused;
      if (unused) continue;
      spec.interconnect = std::string(text);
      apply_settings(settings, side, who, spec);
    }
    for (Key required :
         {Key::kNBufsAtoB, Key::kNBufsBtoA, Key::kSenderMaxBytesList, Key::kRecverMaxBytesList}) {
      if (!settings[static_cast<size_t>(required)].given) {
        fail_at(path.line, who + ": no " + std::string(kKeyNames[static_cast<size_t>(required)]) +
                               " (give it in the path or in a Defaults block before it)");
      }
    }
    for (size_t i = 0; i < kKeyCount; ++i)
      path.key_line[i] = settings[i].given ? settings[i].line : path.line;
    graph_.paths.push_back(std::move(path));
  }

  static std::string sides_text(const RawSetting& sides, int side) { return side == 0 ? sides.a : sides.b; }

  void parse_collective() {
    int line = 0;
    ItemKeys keys;
    std::string who;
    const std::string_view name =
        item("Collective", "Collectives", {"Type", "PathSrcIds"}, "collective", line, keys, who);
    if (!is_name(name))
      fail_at(line, "collective name " + quote(name) + " is not a name (letters, digits, '_', '.', '-')");
    check_count(graph_.collectives.size(), line, "collectives");
    CollectiveItem collective;
    collective.name = std::string(name);
    collective.line = line;
    const auto [type, type_line] = need(keys, "Type", who, line);
    collective.type_line = type_line;
    constexpr CollectiveKind kKinds[] = {
        CollectiveKind::kBarrier, CollectiveKind::kReduce, CollectiveKind::kOne2One, CollectiveKind::kScatter,
        CollectiveKind::kGather,  CollectiveKind::kBcast,  CollectiveKind::kAlltoall};
    bool known = false;
    for (CollectiveKind kind : kKinds) {
      if (type == kind_name(kind)) {
        collective.kind = kind;
        known = true;
      }
    }
    if (!known) {
      fail_at(type_line, who + ": unknown Type " + quote(type) +
                             " (expected BARRIER, REDUCE, ONE2ONE, SCATTER, GATHER, BCAST or ALLTOALL)");
    }
    const auto [ids, ids_line] = need(keys, "PathSrcIds", who, line);
    collective.ids_line = ids_line;
    parse_path_src_ids(ids, ids_line, who, collective);
    graph_.collectives.push_back(std::move(collective));
  }

  // "<id>:<A|B>" entries; trees nest a child's outgoing edges in parentheses right after it.
  static void parse_path_src_ids(std::string_view text, int line, const std::string& who,
                                 CollectiveItem& out) {
    std::vector<int> open;  // entries whose parenthesised lists are open
    int last_entry = -1;    // the entry just read, if the previous token was one
    bool just_opened = false;
    size_t i = 0;
    while (i < text.size()) {
      const char c = text[i];
      if (c == ' ' || c == '\t') {
        ++i;
        continue;
      }
      if (c == '(' || c == ')') {
        ++i;
        out.has_parentheses = true;
        if (!is_tree(out.kind)) {
          fail_at(line,
                  who + ": PathSrcIds: parentheses are only allowed in BARRIER, REDUCE and BCAST trees");
        }
        if (c == '(') {
          if (last_entry < 0)
            fail_at(line, who + ": PathSrcIds: '(' must follow an entry (the child whose edges it lists)");
          if (open.size() >= static_cast<size_t>(kMaxTreeDepth)) {
            fail_at(line, who + ": PathSrcIds: the tree is deeper than " + std::to_string(kMaxTreeDepth));
          }
          open.push_back(last_entry);
          just_opened = true;
        } else {
          if (open.empty()) fail_at(line, who + ": PathSrcIds: unbalanced parentheses: ')' without '('");
          if (just_opened) fail_at(line, who + ": PathSrcIds: empty parentheses");
          open.pop_back();
          just_opened = false;
        }
        last_entry = -1;
        continue;
      }
      size_t end = i;
      while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '(' &&
             text[end] != ')')
        ++end;
      const std::string_view token = text.substr(i, end - i);
      i = end;
      const size_t colon = token.find(':');
      const std::string_view side =
          colon == std::string_view::npos ? std::string_view() : token.substr(colon + 1);
      const auto id =
          colon == std::string_view::npos ? std::nullopt : parse_uint(token.substr(0, colon), INT32_MAX);
      if (!id || (side != "A" && side != "B")) {
        fail_at(line, who + ": PathSrcIds: " + quote(token) +
                          " is not an entry (expected <pathID>:A or <pathID>:B)");
      }
      if (out.entries.size() >= static_cast<size_t>(kMaxCollectiveEntries)) {
        fail_at(line, who + ": PathSrcIds: more than " + std::to_string(kMaxCollectiveEntries) + " entries");
      }
      CollectiveEntry entry;
      entry.path_id = static_cast<int>(*id);
      entry.src_is_a = side == "A";
      entry.parent = open.empty() ? -1 : open.back();
      out.entries.push_back(entry);
      last_entry = static_cast<int>(out.entries.size()) - 1;
      just_opened = false;
    }
    if (!open.empty()) {
      fail_at(line, who + ": PathSrcIds: unbalanced parentheses: " + std::to_string(open.size()) +
                        " '(' not closed");
    }
    if (out.entries.empty()) fail_at(line, who + ": PathSrcIds: expected one or more <pathID>:<A|B> entries");
  }

  std::vector<Line> lines_;
  Graph& graph_;
  size_t pos_ = 0;
  int last_line_ = 1;
  RawSettings defaults_;
};

}  // namespace

bool is_tree(CollectiveKind kind) {
  return kind == CollectiveKind::kBarrier || kind == CollectiveKind::kReduce ||
         kind == CollectiveKind::kBcast;
}

const char* kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kBarrier:
      return "BARRIER";
    case CollectiveKind::kReduce:
      return "REDUCE";
    case CollectiveKind::kOne2One:
      return "ONE2ONE";
    case CollectiveKind::kScatter:
      return "SCATTER";
    case CollectiveKind::kGather:
      return "GATHER";
    case CollectiveKind::kBcast:
      return "BCAST";
    case CollectiveKind::kAlltoall:
      return "ALLTOALL";
  }
  return "?";
}

bool parse_graph(std::string_view text, std::string_view file_name, Graph& out, std::string& error) {
  out = Graph();
  out.file_name = std::string(file_name);
  try {
    if (text.size() > kMaxFileBytes) fail_at(1, "the file is larger than 16 MiB");
    Parser parser(text, out);
    parser.run();
  } catch (const GraphError& e) {
    error = std::string(file_name) + ":" + std::to_string(e.line) + ": " + e.what;
    return false;
  }
  return true;
}

}  // namespace takyon::detail::graph
