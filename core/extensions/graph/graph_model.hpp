// SPDX-License-Identifier: MIT
// The C++ model of a graph description file: what the parser produces and the checker resolves.
#ifndef TAKYON_EXTENSIONS_GRAPH_GRAPH_MODEL_HPP_
#define TAKYON_EXTENSIONS_GRAPH_GRAPH_MODEL_HPP_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "takyon/takyon.h"

namespace takyon::detail::graph {

// Limits that keep any input (a typo, a fuzzer) from allocating absurdly or overflowing. They are
// far above what a real application writes; a file beyond them is rejected with a clear error.
inline constexpr size_t kMaxFileBytes = size_t{16} << 20;
inline constexpr int kMaxGroupInstances = 1 << 16;  // all groups together
inline constexpr int kMaxItems = 1 << 16;           // processes, buffers, paths, collectives each
inline constexpr int kMaxNBufs = 1 << 12;           // per direction, and list lengths
inline constexpr int kMaxCollectiveEntries = 1 << 16;
inline constexpr int kMaxTreeDepth = 1 << 10;             // keeps the recursive tree code shallow
inline constexpr uint64_t kMaxBytes = uint64_t{1} << 40;  // buffer and message sizes: 1 TiB
inline constexpr double kMaxTimeoutSeconds = 1e9;

// The per-path keys; Defaults blocks and paths give them as "<A value>, <B value>".
enum class Key : int {
  kIsPolling,
  kAbortOnFailure,
  kVerbosity,
  kPathCreateTimeout,
  kSendStartTimeout,
  kSendFinishTimeout,
  kRecvStartTimeout,
  kRecvFinishTimeout,
  kPathDestroyTimeout,
  kSendCompletionMethod,
  kRecvCompletionMethod,
  kNBufsAtoB,
  kNBufsBtoA,
  kSenderMaxBytesList,
  kRecverMaxBytesList,
  kSenderAddrList,
  kRecverAddrList,
  kCount
};
inline constexpr size_t kKeyCount = static_cast<size_t>(Key::kCount);
inline constexpr size_t kTimeoutCount = 6;

// The file's spelling of each Key, indexed by Key.
extern const std::array<std::string_view, kKeyCount> kKeyNames;

// The raw text of one per-path key: kept unparsed until the path knows which side is unused
// (the guide says the unused side's values are ignored).
struct RawSetting {
  bool given = false;
  std::string a;
  std::string b;
  int line = 0;
};
using RawSettings = std::array<RawSetting, kKeyCount>;

// "<group>[<index>]", or the unused side "-" (group empty).
struct InstanceRef {
  std::string group;
  int instance = -1;
  int group_id = -1;  // resolved by the checker
  [[nodiscard]] bool unused() const { return group.empty(); }
};

// One SenderAddrList/RecverAddrList entry: NULL or <buffer>:<offset>.
struct AddrEntry {
  bool is_null = true;
  std::string buffer;
  uint64_t offset = 0;
  int buffer_index = -1;  // resolved by the checker
};

// One endpoint's effective attributes: the built-in defaults below, then every Defaults block
// before the path (each key replaces the earlier value), then the path's own keys. Built in:
// IsPolling false, AbortOnFailure false, Verbosity TAKYON_VERBOSITY_ERRORS, all six timeouts
// TAKYON_WAIT_FOREVER, both completion methods TAKYON_BLOCKING, every address NULL (an address
// list written '-' also means all NULL). NBufsAtoB, NBufsBtoA, SenderMaxBytesList and
// RecverMaxBytesList have no built-in value: a path must get them from itself or a Defaults block.
struct EndpointSpec {
  bool used = false;
  std::string interconnect;
  bool is_polling = false;
  bool abort_on_failure = false;
  uint64_t verbosity = TAKYON_VERBOSITY_ERRORS;
  std::array<double, kTimeoutCount> timeouts{TAKYON_WAIT_FOREVER, TAKYON_WAIT_FOREVER, TAKYON_WAIT_FOREVER,
                                             TAKYON_WAIT_FOREVER, TAKYON_WAIT_FOREVER, TAKYON_WAIT_FOREVER};
  TakyonCompletionMethod send_completion = TAKYON_BLOCKING;
  TakyonCompletionMethod recv_completion = TAKYON_BLOCKING;
  int nbufs_AtoB = 0;
  int nbufs_BtoA = 0;
  std::vector<uint64_t> sender_max_bytes;
  std::vector<uint64_t> recver_max_bytes;
  std::vector<AddrEntry> sender_addrs;  // empty: every address NULL
  std::vector<AddrEntry> recver_addrs;
};

struct GroupItem {
  std::string name;
  int instances = 0;
  int line = 0;
  int starting_group_id = 0;  // resolved by the checker
};

struct ProcessItem {
  int id = 0;
  int line = 0;
  int group_ids_line = 0;
  std::vector<InstanceRef> instances;
};

struct BufferItem {
  std::string name;
  int process_id = 0;
  std::string where;
  uint64_t bytes = 0;
  int line = 0;
};

struct PathItem {
  int id = 0;
  int line = 0;
  int endpoints_line = 0;
  int interconnect_line[2] = {0, 0};
  std::array<int, kKeyCount> key_line{};  // where each effective value was written (0: built in)
  InstanceRef endpoint[2];                // [0] = A, [1] = B
  EndpointSpec spec[2];
};

enum class CollectiveKind { kBarrier, kReduce, kOne2One, kScatter, kGather, kBcast, kAlltoall };

// One PathSrcIds entry; parent is the index of the entry whose child this entry's source is
// (trees only), -1 at the top level.
struct CollectiveEntry {
  int path_id = 0;
  bool src_is_a = true;
  int parent = -1;
  int path_index = -1;  // index into Graph::paths, resolved by the checker
};

struct CollectiveItem {
  std::string name;
  CollectiveKind kind = CollectiveKind::kBarrier;
  int line = 0;
  int type_line = 0;
  int ids_line = 0;
  bool has_parentheses = false;
  std::vector<CollectiveEntry> entries;
};

struct Graph {
  std::string file_name;
  std::vector<GroupItem> groups;
  std::vector<ProcessItem> processes;  // sorted by ID after checking (index == ID)
  std::vector<BufferItem> buffers;
  std::vector<PathItem> paths;  // file order
  std::vector<CollectiveItem> collectives;
  // Resolved by the checker: per global group ID, its group index, instance and process ID.
  std::vector<int> group_of_id;
  std::vector<int> instance_of_id;
  std::vector<int> process_of_id;
};

// What the checker asks of the provider table. The library answers from its table; the fuzzer, which
// links the parser alone, passes a stand-in.
struct ProviderQueries {
  // "" when the provider string is acceptable, else why not (none: every string is).
  std::function<std::string(std::string_view interconnect)> validate;
  // Whether provider `name` (a string's first word) joins only threads of one process (none: no).
  std::function<bool(std::string_view name)> threads_only;
};

[[nodiscard]] bool is_tree(CollectiveKind kind);
[[nodiscard]] const char* kind_name(CollectiveKind kind);

// Parses the text; on error fills `error` with "<file>:<line>: <what>" and returns false.
[[nodiscard]] bool parse_graph(std::string_view text, std::string_view file_name, Graph& out,
                               std::string& error);

// Checks and resolves a parsed graph (names, IDs, instances, lists, buffers, collectives).
[[nodiscard]] bool check_graph(Graph& graph, const ProviderQueries& providers, std::string& error);

}  // namespace takyon::detail::graph

#endif  // TAKYON_EXTENSIONS_GRAPH_GRAPH_MODEL_HPP_
