// SPDX-License-Identifier: MIT
// MPI_Dist_graph_create's exchange: every process may name any edges of the graph, and afterwards
// each process knows its own in- and out-edges. Built on the collectives (an alltoall of counts, then
// an alltoallv of the edges) over the new communicator.
#pragma once

#include <vector>

#include "comm/topo.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// An edge source -> dest of the graph, with its weight (1 in an unweighted graph).
struct DistEdge {
  int source;
  int dest;
  int weight;
};

/// Collective over `comm` (every member calls it, with the edges it names, ranks of `comm`): sends
/// each edge to its source and to its destination, and fills `t`'s sources, destinations and weights
/// with this process's edges, ordered by the rank that named them and then by their position in its
/// arguments. Both ends of an edge order the edges between them alike, so in a multigraph the k-th
/// message of a neighbourhood collective from one process to another lands in the k-th block the
/// receiver keeps for it. Errors name `fn`.
void exchange_dist_graph_edges(MPI_Comm comm, const std::vector<DistEdge>& edges, Topology& t,
                               const char* fn);

}  // namespace takyon::mpi
