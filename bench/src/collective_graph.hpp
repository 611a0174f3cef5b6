// SPDX-License-Identifier: MIT
// The graph file takyon-bench --collectives writes: N members, a tree for barrier/reduce/bcast and
// a full mesh for alltoall, over InterThreadMemcpy (threads) or InterProcessMemcpy (processes).
#pragma once

#include <cstdint>
#include <string>

namespace takyon::bench {

/// Buffers of every tree path (both directions): one per collective, so a collective never
/// finds another one's message waiting in its buffer.
inline constexpr int kBarrierBuffer = 0;  ///< takyonBarrierRun (the timed barrier and the sync).
inline constexpr int kReduceBuffer = 1;   ///< takyonReduceRoot/Child and takyonAllreduce.
inline constexpr int kBcastBuffer = 2;    ///< takyonBcastRoot/Child.
inline constexpr int kP2pBuffer = 3;      ///< The point-to-point ping-pong on path 0.
inline constexpr int kTreeBuffers = 4;
inline constexpr int kAlltoallBuffer = 0;  ///< The one buffer each way of a mesh path.

inline constexpr const char* kBarrierName = "tree_barrier";
inline constexpr const char* kReduceName = "tree_reduce";
inline constexpr const char* kBcastName = "tree_bcast";
inline constexpr const char* kAlltoallName = "mesh_alltoall";
inline constexpr const char* kGroupName = "member";

/// The shape: members 0..N-1 in heap order, member m's children are F*m+1 .. F*m+F. Tree path
/// m-1 joins member m (endpoint B) to its parent (endpoint A); path 0 (member 0 to member 1) also
/// carries the point-to-point baseline. Mesh paths follow, one per pair i < j (A = i, B = j).
struct CollectiveLayout {
  int members = 4;
  int fanout = 2;

  [[nodiscard]] int parent(int member) const { return member == 0 ? -1 : (member - 1) / fanout; }
  /// Edges from the root to the deepest member.
  [[nodiscard]] int depth() const;
  [[nodiscard]] int tree_paths() const { return members - 1; }
  [[nodiscard]] int mesh_paths() const { return members * (members - 1) / 2; }
  /// The mesh path between members i != j.
  [[nodiscard]] int mesh_path_id(int i, int j) const;
};

struct GraphSpec {
  CollectiveLayout layout;
  bool processes = false;       ///< InterProcessMemcpy, one process per member; else one process.
  bool polling = false;         ///< IsPolling of every endpoint.
  std::uint64_t max_bytes = 8;  ///< Largest message: reduce/bcast payload, alltoall block.
};

/// "InterThreadMemcpy" or "InterProcessMemcpy".
std::string collective_provider(bool processes);

/// The graph file's text; every path gets a -ID= from next_path_id() (unique per run and pid).
std::string collective_graph_text(const GraphSpec& spec);

/// Writes the text to a new file in the temp directory and returns its name. Throws on failure.
std::string write_collective_graph(const GraphSpec& spec);

}  // namespace takyon::bench
