// SPDX-License-Identifier: MIT
// Runs N members as threads or forked processes over a list of edges, for the collective tests.
#include "collective_harness.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "support/path_ids.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::test {

std::vector<Edge> tree_edges(const std::vector<int>& parent) {
  std::vector<Edge> edges;
  for (size_t m = 1; m < parent.size(); m++) edges.push_back({parent[m], static_cast<int>(m)});
  return edges;
}

std::vector<Edge> mesh_edges(int nmembers) {
  std::vector<Edge> edges;
  for (int i = 0; i < nmembers; i++) {
    for (int j = i + 1; j < nmembers; j++) edges.push_back({i, j});
  }
  return edges;
}

std::vector<int> chain_tree(int n) {
  std::vector<int> parent(static_cast<size_t>(n));
  for (int m = 0; m < n; m++) parent[static_cast<size_t>(m)] = m - 1;
  return parent;
}

std::vector<int> star_tree(int n) {
  std::vector<int> parent(static_cast<size_t>(n), 0);
  parent[0] = -1;
  return parent;
}

std::vector<int> binary_tree(int n) {
  std::vector<int> parent(static_cast<size_t>(n));
  for (int m = 0; m < n; m++) parent[static_cast<size_t>(m)] = m == 0 ? -1 : (m - 1) / 2;
  return parent;
}

std::vector<int> uneven_tree11() {
  return {-1, 0, 0, 1, 1, 2, 2, 2, 4, 4, 5};
}

std::pair<TakyonPath*, std::vector<TakyonPath*>> tree_links(const MemberPaths& paths,
                                                            const std::vector<int>& parent, int member) {
  TakyonPath* up = member == 0 ? nullptr : paths.by_edge[static_cast<size_t>(member - 1)];
  std::vector<TakyonPath*> down;
  for (size_t m = 1; m < parent.size(); m++) {
    if (parent[m] == member) down.push_back(paths.by_edge[m - 1]);
  }
  return {up, down};
}

namespace {

// Creates this member's endpoints in ascending edge order (deadlock free: see graph_paths.cpp),
// runs fn, destroys them. Returns "" or what failed.
std::string run_one(int member, const std::vector<Edge>& edges, const std::vector<uint32_t>& ids,
                    const HarnessOptions& options, const MemberFn& fn) {
  MemberPaths paths;
  paths.member = member;
  paths.by_edge.assign(edges.size(), nullptr);
  std::string failure;
  const char* provider = options.processes ? "InterProcessMemcpy" : "InterThreadMemcpy";
  for (size_t e = 0; e < edges.size() && failure.empty(); e++) {
    if (edges[e].a != member && edges[e].b != member) continue;
    const bool is_a = edges[e].a == member;
    const std::string interconnect = std::string(provider) + " -ID=" + std::to_string(ids[e]);
    TakyonPathAttributes attrs = takyonAllocAttributes(is_a, options.polling, options.nbufs, options.nbufs,
                                                       options.bytes, options.timeout, interconnect.c_str());
    if (options.recv_start_timeout >= -1.0) attrs.recv_start_timeout = options.recv_start_timeout;
    paths.by_edge[e] = takyonCreate(&attrs);
    if (paths.by_edge[e] == nullptr) {
      failure = "member " + std::to_string(member) + ": creating edge " + std::to_string(e) +
                " failed: " + (attrs.error_message != nullptr ? attrs.error_message : "?");
      std::free(attrs.error_message);
    }
    takyonFreeAttributes(attrs);
  }
  if (failure.empty() && !fn(paths, edges)) {
    failure = "member " + std::to_string(member) + " failed: " + takyonExtensionError();
  }
  for (size_t e = 0; e < edges.size(); e++) {
    if (paths.by_edge[e] == nullptr) continue;
    char* error = takyonDestroy(&paths.by_edge[e]);
    std::free(error);  // after a failed collective the peer may be gone; the failure is already reported
  }
  return failure;
}

}  // namespace

std::string run_members(int nmembers, const std::vector<Edge>& edges, const HarnessOptions& options,
                        const MemberFn& fn) {
  std::vector<uint32_t> ids;
  for (size_t e = 0; e < edges.size(); e++) ids.push_back(unique_path_id());
  std::string failures;
  if (!options.processes) {
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int m = 1; m < nmembers; m++) {
      threads.emplace_back([&, m] {
        std::string f = run_one(m, edges, ids, options, fn);
        std::lock_guard<std::mutex> lock(mutex);
        if (!f.empty()) failures += f + "\n";
      });
    }
    std::string f = run_one(0, edges, ids, options, fn);
    for (std::thread& t : threads) t.join();
    if (!f.empty()) failures += f + "\n";
    return failures;
  }
  std::vector<pid_t> children;
  for (int m = 1; m < nmembers; m++) {
    const pid_t pid = fork();
    if (pid == 0) {
      const std::string f = run_one(m, edges, ids, options, fn);
      if (!f.empty()) std::fprintf(stderr, "%s\n", f.c_str());
      std::fflush(nullptr);
      _exit(f.empty() ? 0 : 1);
    }
    if (pid < 0) return "fork failed";
    children.push_back(pid);
  }
  std::string f = run_one(0, edges, ids, options, fn);
  if (!f.empty()) failures += f + "\n";
  for (size_t i = 0; i < children.size(); i++) {
    int status = 0;
    waitpid(children[i], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failures += "member " + std::to_string(i + 1) + " (process " + std::to_string(children[i]) +
                  ") failed (see its stderr)\n";
    }
  }
  return failures;
}

}  // namespace takyon::test
