// SPDX-License-Identifier: MIT
// Process topologies: the Cartesian, graph or distributed-graph record a communicator carries
// (CommInfo::topo) and the balanced factorisation of MPI_Dims_create. Creating a topology communicator is a
// creation exchange like Comm_split's (create_topo_comm, coll/comm_create.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "comm/comm.hpp"
#include "errors.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// What MPI_Cart_create / MPI_Graph_create / MPI_Dist_graph_create(_adjacent) attached to a
/// communicator. Immutable once built, so MPI_Comm_dup shares it (shared_ptr) and the last
/// communicator freed releases it.
struct Topology {
  int kind = MPI_UNDEFINED;  ///< MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  // MPI_CART: extent and periodicity (0/1) of each dimension; the ranks are row-major (last dimension
  // fastest), as the standard orders them.
  std::vector<int> dims;
  std::vector<int> periods;
  // MPI_GRAPH: the arguments of MPI_Graph_create (index[i] is the end of node i's edges).
  std::vector<int> index;
  std::vector<int> edges;
  // MPI_DIST_GRAPH: this process's own edges only (the graph is distributed): the ranks its messages
  // come from and go to, in the order MPI_Dist_graph_neighbors returns them and the neighbourhood
  // collectives use, and their weights (1 each when the graph is unweighted).
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> dest_weights;
  bool weighted = false;  ///< this process did not pass MPI_UNWEIGHTED
};

/// `c`'s topology if it is of `kind` (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH; MPI_UNDEFINED: any of
/// them), else throws MPI_ERR_TOPOLOGY naming `fn`.
const Topology& check_topology(const CommInfo& c, int kind, const char* fn);

/// Cartesian helpers (`t` is MPI_CART). The rank of `coords` (each already in range), the
/// coordinates of `rank` (0..size-1).
int cart_rank_of(const Topology& t, const int* coords);
void cart_coords_of(const Topology& t, int rank, int* coords);
/// MPI_Cart_shift of `rank` (direction already in range): the ranks `disp` steps down and up along
/// `direction`, MPI_PROC_NULL off a non-periodic edge. Allocates nothing (stencil loops call it).
void cart_shift_of(const Topology& t, int rank, int direction, int disp, int* source, int* dest);

/// Graph helper (`t` is MPI_GRAPH): node `rank`'s edges are t.edges[first, last).
std::pair<int, int> graph_edges_of(const Topology& t, int rank);

/// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the product is nnodes, the
/// free extents as close to each other as possible, in non-increasing order. Throws MPI_ERR_DIMS /
/// MPI_ERR_ARG naming `fn` for impossible requests.
void dims_create(int nnodes, int ndims, int* dims, const char* fn);

/// FNV-1a over ints (the arguments that must agree among members).
std::uint64_t hash_ints(std::uint64_t h, const int* v, int n);

}  // namespace takyon::mpi
