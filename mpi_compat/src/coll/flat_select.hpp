// SPDX-License-Identifier: MIT
// The flat shared-memory path of the blocking collectives (coll/flat.hpp), tried before a schedule is
// built: each flat_* returns false, having done nothing, when the schedule must run: a communicator
// that cannot run flat, a size or rank count the selection (coll/select.cpp) leaves to schedules, a
// forced schedule algorithm, or an argument that coll/build.cpp rejects with its own error. The
// choice depends only on the communicator and the bytes, the same on every rank of a correct program.
#pragma once

#include "comm/comm.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// `c`: a valid communicator (check_comm), MPI initialized.
bool flat_barrier(CommInfo& c);
bool flat_bcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
/// MPI_Reduce (all: false) and MPI_Allreduce (all: true; root ignored).
bool flat_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, bool all);
bool flat_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm);
bool flat_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm);
bool flat_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm);
bool flat_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm);
/// MPI_Reduce_scatter (counted: `recvcounts`) and MPI_Reduce_scatter_block (`block` items each).
bool flat_reduce_scatter(const void* sendbuf, void* recvbuf, bool counted, const int* recvcounts, int block,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

}  // namespace takyon::mpi
