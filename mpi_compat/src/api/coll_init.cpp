// SPDX-License-Identifier: MIT
// The persistent collectives' entry points (MPI-4 MPI_*_init): each builds the same schedule as its
// nonblocking form (coll/build.cpp) once, and MPI_Start runs it again each time with the buffers
// and algorithm fixed at init. The schedules never take the flat shared-memory path, whose epochs
// every member must enter in the order of its blocking calls.
#include "api/common.hpp"
#include "api/export.hpp"
#include "api/persistent_coll.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Barrier_init";
  return persistent_init(fn, comm, info, request, [&] { return build_barrier(fn, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Barrier_init)

extern "C" int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Bcast_init";
  return persistent_init(fn, comm, info, request,
                         [&] { return build_bcast(fn, buffer, count, datatype, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Bcast_init)

extern "C" int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  const char* fn = "MPI_Gather_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                        recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Gather_init)

extern "C" int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Gatherv_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                        root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Gatherv_init)

extern "C" int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  const char* fn = "MPI_Scatter_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_scatter(fn, sendbuf, false, nullptr, sendcount, nullptr, sendtype, recvbuf, recvcount,
                         recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Scatter_init)

extern "C" int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Scatterv_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_scatter(fn, sendbuf, true, sendcounts, 0, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Scatterv_init)

extern "C" int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  const char* fn = "MPI_Allgather_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                           recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Allgather_init)

extern "C" int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Allgatherv_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                           comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Allgatherv_init)

extern "C" int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const char* fn = "MPI_Alltoall_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoall_init)

extern "C" int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  const char* fn = "MPI_Alltoallv_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls,
                           nullptr, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoallv_init)

extern "C" int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Alltoallw_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, recvbuf,
                           recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoallw_init)

extern "C" int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Reduce_init";
  return persistent_init(fn, comm, info, request,
                         [&] { return build_reduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_init)

extern "C" int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Allreduce_init";
  return persistent_init(fn, comm, info, request,
                         [&] { return build_allreduce(fn, sendbuf, recvbuf, count, datatype, op, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Allreduce_init)

extern "C" int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* request) {
  const char* fn = "MPI_Reduce_scatter_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_reduce_scatter(fn, sendbuf, recvbuf, true, recvcounts, 0, datatype, op, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_scatter_init)

extern "C" int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  const char* fn = "MPI_Reduce_scatter_block_init";
  return persistent_init(fn, comm, info, request, [&] {
    return build_reduce_scatter(fn, sendbuf, recvbuf, false, nullptr, recvcount, datatype, op, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_scatter_block_init)

extern "C" int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Scan_init";
  return persistent_init(fn, comm, info, request,
                         [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, false); });
}
TAKYON_MPI_WEAK_ALIAS(Scan_init)

extern "C" int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* fn = "MPI_Exscan_init";
  return persistent_init(fn, comm, info, request,
                         [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, true); });
}
TAKYON_MPI_WEAK_ALIAS(Exscan_init)
