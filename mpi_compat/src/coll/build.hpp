// SPDX-License-Identifier: MIT
// The collectives' argument checks and schedules: each build_* checks the arguments of one MPI
// collective exactly as its blocking and nonblocking entry points share them (errors name `fn`),
// lays the buffers out as packed bytes (datatype/datatype.hpp) and appends the selected algorithm.
// The caller runs the schedule (blocking) or hands it to a request (nonblocking).
#pragma once

#include <memory>

#include "coll/schedule.hpp"
#include "mpi.h"

namespace takyon::mpi {

using SchedulePtr = std::unique_ptr<Schedule>;

SchedulePtr build_barrier(const char* fn, MPI_Comm comm);
SchedulePtr build_bcast(const char* fn, void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
SchedulePtr build_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                         MPI_Op op, int root, MPI_Comm comm);
SchedulePtr build_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                            MPI_Op op, MPI_Comm comm);
/// !vec: Reduce_scatter_block with `recvcount` each.
SchedulePtr build_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, bool vec,
                                 const int* recvcounts, int recvcount, MPI_Datatype dt, MPI_Op op,
                                 MPI_Comm comm);
SchedulePtr build_scan(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm, bool exclusive);
/// !vec: Gather with `recvcount` each (recvcounts, displs ignored).
SchedulePtr build_gather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, bool vec, const int* recvcounts, int recvcount, const int* displs,
                         MPI_Datatype recvtype, int root, MPI_Comm comm);
/// !vec: Scatter with `sendcount` each.
SchedulePtr build_scatter(const char* fn, const void* sendbuf, bool vec, const int* sendcounts, int sendcount,
                          const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm);
/// !vec: Allgather with `recvcount` each.
SchedulePtr build_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, bool vec, const int* recvcounts, int recvcount, const int* displs,
                            MPI_Datatype recvtype, MPI_Comm comm);
SchedulePtr build_alltoall(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
/// Alltoallv (types == nullptr: sendtype/recvtype, displacements in items) and Alltoallw
/// (per-rank types, displacements in bytes).
SchedulePtr build_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts, const int* sdispls,
                            const MPI_Datatype* sendtypes, MPI_Datatype sendtype, void* recvbuf,
                            const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes,
                            MPI_Datatype recvtype, MPI_Comm comm);

}  // namespace takyon::mpi
