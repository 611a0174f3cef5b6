// SPDX-License-Identifier: MIT
// Distributed graph topologies: MPI_Dist_graph_create_adjacent, Dist_graph_create and the queries
// Dist_graph_neighbors_count and Dist_graph_neighbors. The new communicator has the old one's ranks
// in order (reorder is accepted and ignored, info hints too); it comes from the creation exchange
// every topology constructor runs (coll/comm_create.hpp), after which Dist_graph_create exchanges the
// edges so that each process learns its own (coll/dist_graph.hpp).
#include <algorithm>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "api/export.hpp"
#include "api/guard.hpp"
#include "api/info.hpp"
#include "api/topo_args.hpp"
#include "coll/comm_create.hpp"
#include "coll/dist_graph.hpp"
#include "comm/topo.hpp"

namespace takyon::mpi {
namespace {

/// One weights argument for `n` edges: MPI_UNWEIGHTED when `weighted` is false; otherwise n weights
/// >= 0 (MPI_WEIGHTS_EMPTY or NULL only with no edges). Returns the weights, 1 each when unweighted.
std::vector<int> edge_weights(const int* weights, int n, bool weighted, const char* fn, const char* arg) {
  if (!weighted || n == 0) return std::vector<int>(std::size_t(n), 1);
  const std::string name(arg);
  if (weights == MPI_UNWEIGHTED) {
    fail(MPI_ERR_ARG, fn,
         name + " is MPI_UNWEIGHTED but the other weights are not (argument " + name +
             ": MPI_UNWEIGHTED goes for both or neither)");
  }
  if (weights == MPI_WEIGHTS_EMPTY)
    fail(MPI_ERR_ARG, fn,
         name + " is MPI_WEIGHTS_EMPTY with " + std::to_string(n) + " edges (argument " + name + ")");
  check_out(weights, fn, arg);
  for (int i = 0; i < n; ++i) {
    if (weights[i] < 0) {
      fail(MPI_ERR_ARG, fn,
           "invalid weight " + name + "[" + std::to_string(i) + "] = " + std::to_string(weights[i]) +
               " (argument " + name + "; >= 0)");
    }
  }
  return {weights, weights + n};
}

/// `n` ranks of `c` at `ranks` (NULL only when n is 0), each in range (MPI_ERR_RANK).
std::vector<int> edge_ranks(const CommInfo& c, const int* ranks, int n, const char* fn, const char* arg) {
  if (n == 0) return {};
  check_out(ranks, fn, arg);
  for (int i = 0; i < n; ++i) {
    const std::string which = std::string(arg) + "[" + std::to_string(i) + "]";
    check_rank_arg(c, ranks[i], fn, which.c_str());
  }
  return {ranks, ranks + n};
}

/// What every distributed-graph constructor does with a member's checked edges: the communicator
/// of all members in order, with `topo` attached.
MPI_Comm create_dist_graph_comm(CommInfo& c, TopoRequest& req, const std::shared_ptr<Topology>& topo,
                                const char* fn) {
  req.color = 0;
  req.key = comm_rank(c);
  return create_topo_comm(c, req, topo, fn);
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                               const int* sourceweights, int outdegree,
                                               const int destinations[], const int* destweights,
                                               MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* fn = "MPI_Dist_graph_create_adjacent";
  (void)reorder;
  return guarded(fn, comm_old, [&] {
    CommInfo& c = check_comm(comm_old, fn);
    TopoRequest req;
    req.op = kTopoDistGraphAdjacent;
    auto topo = std::make_shared<Topology>();
    topo->kind = MPI_DIST_GRAPH;
    run_checks(req, [&] {
      check_out(comm_dist_graph, fn, "comm_dist_graph");
      check_info_arg(info, fn);
      check_topo_count(indegree, fn, "indegree");
      check_topo_count(outdegree, fn, "outdegree");
      // Weighted unless both are MPI_UNWEIGHTED (MPI_WEIGHTS_EMPTY and NULL with no edges say weighted).
      topo->weighted = !(sourceweights == MPI_UNWEIGHTED && destweights == MPI_UNWEIGHTED);
      topo->sources = edge_ranks(c, sources, indegree, fn, "sources");
      topo->source_weights = edge_weights(sourceweights, indegree, topo->weighted, fn, "sourceweights");
      topo->destinations = edge_ranks(c, destinations, outdegree, fn, "destinations");
      topo->dest_weights = edge_weights(destweights, outdegree, topo->weighted, fn, "destweights");
    });
    *comm_dist_graph = create_dist_graph_comm(c, req, topo, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Dist_graph_create_adjacent)

extern "C" int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int* weights, MPI_Info info,
                                      int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* fn = "MPI_Dist_graph_create";
  (void)reorder;
  return guarded(fn, comm_old, [&] {
    CommInfo& c = check_comm(comm_old, fn);
    TopoRequest req;
    req.op = kTopoDistGraph;
    auto topo = std::make_shared<Topology>();
    topo->kind = MPI_DIST_GRAPH;
    std::vector<DistEdge> edges;
    run_checks(req, [&] {
      check_out(comm_dist_graph, fn, "comm_dist_graph");
      check_info_arg(info, fn);
      check_topo_count(n, fn, "n");
      const std::vector<int> from = edge_ranks(c, sources, n, fn, "sources");
      if (n > 0) check_out(degrees, fn, "degrees");
      long long total = 0;
      for (int i = 0; i < n; ++i) {
        if (degrees[i] < 0) {
          fail(MPI_ERR_ARG, fn,
               "invalid degrees[" + std::to_string(i) + "] = " + std::to_string(degrees[i]) +
                   " (argument degrees; >= 0)");
        }
        total += degrees[i];
        if (total > INT_MAX)
          fail(MPI_ERR_ARG, fn, "the degrees add up to more than INT_MAX edges (argument degrees)");
      }
      const std::vector<int> to = edge_ranks(c, destinations, int(total), fn, "destinations");
      topo->weighted = weights != MPI_UNWEIGHTED;
      const std::vector<int> w = edge_weights(weights, int(total), topo->weighted, fn, "weights");
      // Node sources[i]'s edges go to the next degrees[i] destinations.
      std::size_t e = 0;
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < degrees[i]; ++k, ++e)
          edges.push_back(DistEdge{from[std::size_t(i)], to[e], w[e]});
      }
    });
    MPI_Comm h = create_dist_graph_comm(c, req, topo, fn);
    try {
      exchange_dist_graph_edges(h, edges, *topo, fn);
    } catch (...) {
      free_comm(*find_comm(h));  // no member keeps a communicator whose edges it does not know
      throw;
    }
    *comm_dist_graph = h;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  constexpr const char* fn = "MPI_Dist_graph_neighbors_count";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_DIST_GRAPH, fn);
    check_out(indegree, fn, "indegree");
    check_out(outdegree, fn, "outdegree");
    check_out(weighted, fn, "weighted");
    *indegree = int(t.sources.size());
    *outdegree = int(t.destinations.size());
    *weighted = t.weighted ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Dist_graph_neighbors_count)

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int* sourceweights,
                                         int maxoutdegree, int destinations[], int* destweights) {
  constexpr const char* fn = "MPI_Dist_graph_neighbors";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_DIST_GRAPH, fn);
    check_topo_count(maxindegree, fn, "maxindegree");
    check_topo_count(maxoutdegree, fn, "maxoutdegree");
    // At most maxindegree / maxoutdegree entries (the lengths of the caller's arrays). Weights are
    // written for a weighted graph, unless the caller passes MPI_UNWEIGHTED for them.
    auto copy = [&](const std::vector<int>& ranks, const std::vector<int>& w, int max, int* out, int* out_w,
                    const char* arg, const char* warg) {
      const auto n = std::min(std::size_t(max), ranks.size());
      if (n == 0) return;
      check_out(out, fn, arg);
      std::copy_n(ranks.begin(), n, out);
      if (!t.weighted || out_w == MPI_UNWEIGHTED) return;
      check_out(out_w, fn, warg);
      std::copy_n(w.begin(), n, out_w);
    };
    copy(t.sources, t.source_weights, maxindegree, sources, sourceweights, "sources", "sourceweights");
    copy(t.destinations, t.dest_weights, maxoutdegree, destinations, destweights, "destinations",
         "destweights");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Dist_graph_neighbors)
