// SPDX-License-Identifier: MIT
// Process topologies: MPI_Dims_create, Cart_create/_sub/_map and the Cartesian queries,
// Graph_create/_map and the graph queries, Topo_test (distributed graphs: api/dist_graph.cpp). A
// topology communicator is a split of the old one (ranks kept in order: reorder is allowed and
// ignored) with a Topology record attached (comm/topo.hpp).
#include <algorithm>
#include <memory>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/topo_args.hpp"
#include "coll/comm_create.hpp"
#include "comm/topo.hpp"

namespace takyon::mpi {
namespace {

/// Cart_create's and Cart_map's grid: checks ndims, dims and periods against `c` and records them in
/// `t`; returns the number of cells.
long cart_grid(const CommInfo& c, int ndims, const int* dims, const int* periods, Topology& t,
               const char* fn) {
  long cells = 1;
  if (ndims < 0) fail(MPI_ERR_DIMS, fn, "invalid ndims " + std::to_string(ndims) + " (argument ndims; >= 0)");
  if (ndims > 0) {
    check_out(dims, fn, "dims");
    check_out(periods, fn, "periods");
  }
  const int size = comm_size(c);
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) {
      fail(MPI_ERR_DIMS, fn,
           "invalid dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " (argument dims; >= 1)");
    }
    cells *= dims[i];
    if (cells > size) {
      fail(MPI_ERR_TOPOLOGY, fn,
           "the grid (argument dims) has more cells than the " + std::to_string(size) +
               " processes of the communicator");
    }
    t.dims.push_back(dims[i]);
    t.periods.push_back(periods[i] != 0 ? 1 : 0);
  }
  return cells;
}

/// Graph_create's and Graph_map's graph: checks nnodes, index and edges against `c` and records them
/// in `t`.
void graph_nodes(const CommInfo& c, int nnodes, const int* index, const int* edges, Topology& t,
                 const char* fn) {
  const int size = comm_size(c);
  if (nnodes < 0)
    fail(MPI_ERR_ARG, fn, "invalid nnodes " + std::to_string(nnodes) + " (argument nnodes; >= 0)");
  if (nnodes > size) {
    fail(MPI_ERR_TOPOLOGY, fn,
         "nnodes " + std::to_string(nnodes) + " is more than the " + std::to_string(size) +
             " processes of the communicator (argument nnodes)");
  }
  if (nnodes == 0) return;
  check_out(index, fn, "index");
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < (i == 0 ? 0 : index[i - 1])) {
      fail(MPI_ERR_ARG, fn,
           "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
               " is below the previous entry or negative (argument index must be non-decreasing, >= 0)");
    }
  }
  const int nedges = index[nnodes - 1];
  if (nedges > 0) check_out(edges, fn, "edges");
  for (int e = 0; e < nedges; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      fail(MPI_ERR_ARG, fn,
           "edges[" + std::to_string(e) + "] = " + std::to_string(edges[e]) +
               " is no node (argument edges; 0.." + std::to_string(nnodes - 1) + ")");
    }
  }
  t.index.assign(index, index + nnodes);
  t.edges.assign(edges, edges + nedges);
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  constexpr const char* fn = "MPI_Dims_create";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    dims_create(nnodes, ndims, dims, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Dims_create)

extern "C" int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm* comm_cart) {
  constexpr const char* fn = "MPI_Cart_create";
  (void)reorder;
  return guarded(fn, comm_old, [&] {
    CommInfo& c = check_comm(comm_old, fn);
    TopoRequest req;
    req.op = kTopoCart;
    auto topo = std::make_shared<Topology>();
    topo->kind = MPI_CART;
    long cells = 1;
    run_checks(req, [&] {
      check_out(comm_cart, fn, "comm_cart");
      cells = cart_grid(c, ndims, dims, periods, *topo, fn);
      req.args_hash = hash_ints(hash_ints(hash_ints(0, &ndims, 1), dims, ndims), topo->periods.data(), ndims);
    });
    const int rank = comm_rank(c);
    req.color = rank < cells ? 0 : MPI_UNDEFINED;  // processes beyond the grid get MPI_COMM_NULL
    req.key = rank;
    *comm_cart = create_topo_comm(c, req, std::move(topo), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_create)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Cart_sub";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    TopoRequest req;
    req.op = kTopoCartSub;
    req.color = 0;
    auto topo = std::make_shared<Topology>();
    topo->kind = MPI_CART;
    // Every member has the same topology: a communicator without one fails at once on all of them.
    const Topology& t = check_topology(c, MPI_CART, fn);
    run_checks(req, [&] {
      check_out(newcomm, fn, "newcomm");
      const int ndims = int(t.dims.size());
      if (ndims > 0) check_out(remain_dims, fn, "remain_dims");
      std::vector<int> coords(t.dims.size());
      cart_coords_of(t, comm_rank(c), coords.data());
      // color: the position along the dropped dimensions; key: the old rank (row-major order is kept).
      std::vector<int> remain(t.dims.size());
      for (int i = 0; i < ndims; ++i) {
        remain[std::size_t(i)] = remain_dims[i] != 0 ? 1 : 0;
        if (remain[std::size_t(i)] != 0) {
          topo->dims.push_back(t.dims[std::size_t(i)]);
          topo->periods.push_back(t.periods[std::size_t(i)]);
        } else {
          req.color = req.color * t.dims[std::size_t(i)] + coords[std::size_t(i)];
        }
      }
      req.args_hash = hash_ints(0, remain.data(), ndims);
    });
    req.key = comm_rank(c);
    *newcomm = create_topo_comm(c, req, std::move(topo), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_sub)

extern "C" int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                                 int reorder, MPI_Comm* comm_graph) {
  constexpr const char* fn = "MPI_Graph_create";
  (void)reorder;
  return guarded(fn, comm_old, [&] {
    CommInfo& c = check_comm(comm_old, fn);
    TopoRequest req;
    req.op = kTopoGraph;
    auto topo = std::make_shared<Topology>();
    topo->kind = MPI_GRAPH;
    run_checks(req, [&] {
      check_out(comm_graph, fn, "comm_graph");
      graph_nodes(c, nnodes, index, edges, *topo, fn);
      if (nnodes == 0) return;
      const int nedges = index[nnodes - 1];
      req.args_hash = hash_ints(hash_ints(hash_ints(0, &nnodes, 1), index, nnodes), edges, nedges);
    });
    const int rank = comm_rank(c);
    // nnodes 0 (or a failed check): no process joins, every member gets MPI_COMM_NULL
    req.color = rank < int(topo->index.size()) ? 0 : MPI_UNDEFINED;
    req.key = rank;
    *comm_graph = create_topo_comm(c, req, std::move(topo), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graph_create)

// The maps: where this process would sit in the topology. Ranks are kept in order (as the
// constructors keep them), so a process keeps its rank if the topology has room for it.
extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  constexpr const char* fn = "MPI_Cart_map";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_out(newrank, fn, "newrank");
    Topology grid;
    const long cells = cart_grid(c, ndims, dims, periods, grid, fn);
    const int rank = comm_rank(c);
    *newrank = rank < cells ? rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_map)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  constexpr const char* fn = "MPI_Graph_map";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_out(newrank, fn, "newrank");
    Topology graph;
    graph_nodes(c, nnodes, index, edges, graph, fn);
    const int rank = comm_rank(c);
    *newrank = rank < nnodes ? rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graph_map)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  constexpr const char* fn = "MPI_Topo_test";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_out(status, fn, "status");
    *status = c.topo ? c.topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Topo_test)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  constexpr const char* fn = "MPI_Cartdim_get";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_CART, fn);
    check_out(ndims, fn, "ndims");
    *ndims = int(t.dims.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  constexpr const char* fn = "MPI_Cart_get";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    const Topology& t = check_topology(c, MPI_CART, fn);
    const int ndims = int(t.dims.size());
    check_topo_count(maxdims, fn, "maxdims");
    if (maxdims < ndims) {
      fail(MPI_ERR_ARG, fn,
           "maxdims " + std::to_string(maxdims) + " is less than the topology's " + std::to_string(ndims) +
               " dimensions (argument maxdims)");
    }
    if (ndims > 0) {
      check_out(dims, fn, "dims");
      check_out(periods, fn, "periods");
      check_out(coords, fn, "coords");
    }
    std::copy(t.dims.begin(), t.dims.end(), dims);
    std::copy(t.periods.begin(), t.periods.end(), periods);
    if (ndims > 0) cart_coords_of(t, comm_rank(c), coords);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  constexpr const char* fn = "MPI_Cart_rank";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_CART, fn);
    const std::size_t ndims = t.dims.size();
    if (ndims > 0) check_out(coords, fn, "coords");
    check_out(rank, fn, "rank");
    std::vector<int> wrapped(ndims);
    for (std::size_t i = 0; i < ndims; ++i) {
      int x = coords[i];
      const int d = t.dims[i];
      if (t.periods[i] != 0) {
        x = int(((long(x) % d) + d) % d);
      } else if (x < 0 || x >= d) {
        fail(MPI_ERR_ARG, fn,
             "coords[" + std::to_string(i) + "] = " + std::to_string(x) +
                 " is outside the non-periodic dimension " + std::to_string(i) + " (0.." +
                 std::to_string(d - 1) + ") (argument coords)");
      }
      wrapped[i] = x;
    }
    *rank = cart_rank_of(t, wrapped.data());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  constexpr const char* fn = "MPI_Cart_coords";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    const Topology& t = check_topology(c, MPI_CART, fn);
    const int ndims = int(t.dims.size());
    check_rank_arg(c, rank, fn);
    check_topo_count(maxdims, fn, "maxdims");
    if (maxdims < ndims) {
      fail(MPI_ERR_ARG, fn,
           "maxdims " + std::to_string(maxdims) + " is less than the topology's " + std::to_string(ndims) +
               " dimensions (argument maxdims)");
    }
    if (ndims > 0) check_out(coords, fn, "coords");
    if (ndims > 0) cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  constexpr const char* fn = "MPI_Cart_shift";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    const Topology& t = check_topology(c, MPI_CART, fn);
    const int ndims = int(t.dims.size());
    if (direction < 0 || direction >= ndims) {
      fail(MPI_ERR_DIMS, fn,
           "invalid direction " + std::to_string(direction) + " (argument direction; 0.." +
               std::to_string(ndims - 1) + " for this " + std::to_string(ndims) + "-dimensional topology)");
    }
    check_out(rank_source, fn, "rank_source");
    check_out(rank_dest, fn, "rank_dest");
    cart_shift_of(t, comm_rank(c), direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cart_shift)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  constexpr const char* fn = "MPI_Graphdims_get";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_GRAPH, fn);
    check_out(nnodes, fn, "nnodes");
    check_out(nedges, fn, "nedges");
    *nnodes = int(t.index.size());
    *nedges = int(t.edges.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  constexpr const char* fn = "MPI_Graph_get";
  return guarded(fn, comm, [&] {
    const Topology& t = check_topology(check_comm(comm, fn), MPI_GRAPH, fn);
    check_topo_count(maxindex, fn, "maxindex");
    check_topo_count(maxedges, fn, "maxedges");
    // At most maxindex / maxedges entries (the lengths of the caller's arrays).
    const std::size_t ni = std::min(std::size_t(maxindex), t.index.size());
    const std::size_t ne = std::min(std::size_t(maxedges), t.edges.size());
    if (ni > 0) check_out(index, fn, "index");
    if (ne > 0) check_out(edges, fn, "edges");
    std::copy_n(t.index.begin(), ni, index);
    std::copy_n(t.edges.begin(), ne, edges);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  constexpr const char* fn = "MPI_Graph_neighbors_count";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    const Topology& t = check_topology(c, MPI_GRAPH, fn);
    check_rank_arg(c, rank, fn);
    check_out(nneighbors, fn, "nneighbors");
    auto [first, last] = graph_edges_of(t, rank);
    *nneighbors = last - first;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  constexpr const char* fn = "MPI_Graph_neighbors";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    const Topology& t = check_topology(c, MPI_GRAPH, fn);
    check_rank_arg(c, rank, fn);
    check_topo_count(maxneighbors, fn, "maxneighbors");
    auto [first, last] = graph_edges_of(t, rank);
    const int n = std::min(maxneighbors, last - first);  // at most maxneighbors (the array's length)
    if (n > 0) check_out(neighbors, fn, "neighbors");
    std::copy_n(t.edges.begin() + first, n, neighbors);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Graph_neighbors)
