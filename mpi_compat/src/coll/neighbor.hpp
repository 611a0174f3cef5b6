// SPDX-License-Identifier: MIT
// The neighbourhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*) on Cartesian, graph and
// distributed-graph communicators: the neighbour lists of a topology, the argument checks the blocking
// and nonblocking forms share (errors name `fn`), and their schedules: one round in which every
// receive from an in-neighbour is posted, then every send to an out-neighbour. The caller runs the
// schedule (blocking) or hands it to a request (nonblocking), as for the other collectives.
#pragma once

#include "coll/build.hpp"
#include "coll/schedule.hpp"
#include "comm/comm.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// This process's neighbours in the standard's order, which is also the order of the blocks in the
/// neighbourhood collectives' buffers: Cartesian, for each dimension the source then the destination
/// of MPI_Cart_shift(comm, d, 1) (so the -1 then the +1 neighbour; MPI_PROC_NULL off a non-periodic
/// edge, whose blocks are neither sent nor written); graph, MPI_Graph_neighbors both ways;
/// distributed graph, the sources and destinations of MPI_Dist_graph_neighbors.
///
/// A neighbour may appear more than once: then which block lands where is the pairing rule's. On a
/// Cartesian communicator the block sent in one direction of a dimension is received into the block
/// of the opposite direction (block s of the sender lands in block s^1 of the receiver; MPI-4.0's
/// erratum to MPI-3.1, which matters where a periodic dimension of extent 1 or 2 makes the -1 and +1
/// neighbours one process). On the graph topologies the k-th message from one process to another
/// lands in the k-th block the receiver keeps for it.
struct Neighbours {
  SmallVec<int, 16> sources;
  SmallVec<int, 16> destinations;
  bool cartesian = false;
};
/// `c`'s neighbours; MPI_ERR_TOPOLOGY naming `fn` for a communicator without a topology.
Neighbours neighbours_of(const CommInfo& c, const char* fn);

/// Neighbor_allgather (!vec: `recvcount` items from each source) and Neighbor_allgatherv.
SchedulePtr build_neighbor_allgather(const char* fn, const void* sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void* recvbuf, bool vec, const int* recvcounts,
                                     int recvcount, const int* displs, MPI_Datatype recvtype, MPI_Comm comm);
SchedulePtr build_neighbor_alltoall(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
/// Neighbor_alltoallv: displacements in items of sendtype / recvtype.
SchedulePtr build_neighbor_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts,
                                     const int* sdispls, MPI_Datatype sendtype, void* recvbuf,
                                     const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                                     MPI_Comm comm);
/// Neighbor_alltoallw: a datatype per block, displacements in bytes (MPI_Aint).
SchedulePtr build_neighbor_alltoallw(const char* fn, const void* sendbuf, const int* sendcounts,
                                     const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                                     const int* recvcounts, const MPI_Aint* rdispls,
                                     const MPI_Datatype* recvtypes, MPI_Comm comm);

}  // namespace takyon::mpi
