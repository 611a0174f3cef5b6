// SPDX-License-Identifier: MIT
// The collectives on intercommunicators (coll/build.cpp's build_* hand an intercommunicator here):
// each group's result comes from the other group. Rooted collectives take root = MPI_ROOT at the
// root, MPI_PROC_NULL at the rest of its group, and the root's rank in the remote group at the
// other group. Every schedule is one round of messages between the two groups (each process sends
// what a remote process needs straight to it), followed by local reductions in rank order: simple
// and correct, not tuned. Scan and Exscan are not defined on intercommunicators (MPI_ERR_COMM).
#pragma once

#include "coll/build.hpp"
#include "comm/comm.hpp"

namespace takyon::mpi {

SchedulePtr build_inter_barrier(const char* fn, CommInfo& c);
SchedulePtr build_inter_bcast(const char* fn, void* buf, int count, MPI_Datatype dt, int root, CommInfo& c);
SchedulePtr build_inter_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                               MPI_Op op, int root, CommInfo& c);
SchedulePtr build_inter_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype dt, MPI_Op op, CommInfo& c);
SchedulePtr build_inter_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, bool vec,
                                       const int* recvcounts, int recvcount, MPI_Datatype dt, MPI_Op op,
                                       CommInfo& c);
SchedulePtr build_inter_gather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, bool vec, const int* recvcounts, int recvcount,
                               const int* displs, MPI_Datatype recvtype, int root, CommInfo& c);
SchedulePtr build_inter_scatter(const char* fn, const void* sendbuf, bool vec, const int* sendcounts,
                                int sendcount, const int* displs, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, CommInfo& c);
SchedulePtr build_inter_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, bool vec, const int* recvcounts, int recvcount,
                                  const int* displs, MPI_Datatype recvtype, CommInfo& c);
SchedulePtr build_inter_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts,
                                  const int* sdispls, const MPI_Datatype* sendtypes, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* rdispls,
                                  const MPI_Datatype* recvtypes, MPI_Datatype recvtype, bool byte_displs,
                                  CommInfo& c);

}  // namespace takyon::mpi
