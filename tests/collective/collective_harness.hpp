// SPDX-License-Identifier: MIT
// Runs N members as threads or forked processes over a list of edges (one path per edge), each
// member creating its endpoints in ascending edge order, for the collective tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "takyon/takyon.h"

namespace takyon::test {

/// An edge: a path from member `a` (endpoint A) to member `b` (endpoint B).
struct Edge {
  int a;
  int b;
};

/// A tree given as the parent of every member (-1 for the root, which must be member 0).
/// Edge i of tree_edges() leads from parent[i+1] to member i+1.
std::vector<Edge> tree_edges(const std::vector<int>& parent);
/// One edge between every pair of members (i < j), in (0,1), (0,2) ... (n-2,n-1) order.
std::vector<Edge> mesh_edges(int nmembers);

/// The chain 0-1-2-..., the star with root 0, the complete binary tree, and the guide's uneven
/// 11-member tree (graph-format-notes: 0->{1,2}, 1->{3,4}, 2->{5,6,7}, 4->{8,9}, 5->{10}).
std::vector<int> chain_tree(int n);
std::vector<int> star_tree(int n);
std::vector<int> binary_tree(int n);
std::vector<int> uneven_tree11();

struct MemberPaths {
  int member = 0;
  std::vector<TakyonPath*> by_edge;  ///< This member's endpoint of each edge, NULL if not on it.
};

struct HarnessOptions {
  bool processes = false;  ///< fork() a process per member (InterProcessMemcpy) instead of threads.
  bool polling = false;
  int nbufs = 2;
  uint64_t bytes = 1024;
  double timeout = 20.0;             ///< Every path timeout (a bug fails the test instead of hanging it).
  double recv_start_timeout = -2.0;  ///< Overrides recv_start_timeout when >= -1.
};

/// The member's work: returns true on success; prints what went wrong otherwise.
using MemberFn = std::function<bool(const MemberPaths& paths, const std::vector<Edge>& edges)>;

/// Runs every member (member 0 in the calling thread/process), creating, using and destroying the
/// paths. Returns "" if every member succeeded, else one line per failure.
std::string run_members(int nmembers, const std::vector<Edge>& edges, const HarnessOptions& options,
                        const MemberFn& fn);

/// The tree neighbours of `member` from tree_edges(parent): its parent path and child paths.
std::pair<TakyonPath*, std::vector<TakyonPath*>> tree_links(const MemberPaths& paths,
                                                            const std::vector<int>& parent, int member);

}  // namespace takyon::test
