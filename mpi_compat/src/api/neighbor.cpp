// SPDX-License-Identifier: MIT
// The neighbourhood collectives' entry points: MPI_Neighbor_allgather(v), Neighbor_alltoall(v, w) and
// their nonblocking forms MPI_Ineighbor_*. Each checks its arguments and builds its schedule through
// coll/neighbor.cpp; the blocking form runs it, the nonblocking form returns a request that
// MPI_Wait/Test and the engine's progress advance, as for the other collectives (api/coll.cpp).
#include "coll/neighbor.hpp"
#include "api/coll_entry.hpp"
#include "api/export.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Neighbor_allgather";
  return blocking(fn, comm, [&] {
    return build_neighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount,
                                    nullptr, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Neighbor_allgather)

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  const char* fn = "MPI_Ineighbor_allgather";
  return nonblocking(fn, comm, request, [&] {
    return build_neighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount,
                                    nullptr, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ineighbor_allgather)

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Neighbor_allgatherv";
  return blocking(fn, comm, [&] {
    return build_neighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs,
                                    recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Neighbor_allgatherv)

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void* recvbuf, const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Ineighbor_allgatherv";
  return nonblocking(fn, comm, request, [&] {
    return build_neighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs,
                                    recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ineighbor_allgatherv)

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Neighbor_alltoall";
  return blocking(fn, comm, [&] {
    return build_neighbor_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Neighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request* request) {
  const char* fn = "MPI_Ineighbor_alltoall";
  return nonblocking(fn, comm, request, [&] {
    return build_neighbor_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ineighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Neighbor_alltoallv";
  return blocking(fn, comm, [&] {
    return build_neighbor_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                    recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Neighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  const char* fn = "MPI_Ineighbor_alltoallv";
  return nonblocking(fn, comm, request, [&] {
    return build_neighbor_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                    recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ineighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm) {
  const char* fn = "MPI_Neighbor_alltoallw";
  return blocking(fn, comm, [&] {
    return build_neighbor_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                    recvtypes, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Neighbor_alltoallw)

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Ineighbor_alltoallw";
  return nonblocking(fn, comm, request, [&] {
    return build_neighbor_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                    recvtypes, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ineighbor_alltoallw)
