// SPDX-License-Identifier: MIT
// The collectives' entry points, blocking and nonblocking. Each checks its arguments and builds its
// schedule through coll/build.cpp; the blocking form runs the
// schedule (Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall: unless the flat shared-memory
// path, coll/flat_select.hpp, takes it), the nonblocking form returns a request that MPI_Wait/Test and the
// engine's progress advance. MPI_Barrier: the flat barrier where the communicator allows it, else
// the dissemination barrier (coll/barrier_dissemination.cpp) in the communicator's collective context.
#include "api/coll_entry.hpp"
#include "api/common.hpp"
#include "api/export.hpp"
#include "coll/algorithms.hpp"
#include "coll/build.hpp"
#include "coll/build_inter.hpp"
#include "coll/flat_select.hpp"

namespace takyon::mpi {

void barrier(CommInfo& c) {
  if (is_inter(c)) {
    build_inter_barrier("MPI_Barrier", c)->run();
    return;
  }
  if (flat_barrier(c)) return;
  Schedule s(c, "MPI_Barrier");
  barrier_dissemination(s);
  s.run();
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

namespace {

/// Blocking, with the flat shared-memory path (coll/flat_select.hpp) tried first.
template <class Flat, class Build>
int blocking_flat(const char* fn, MPI_Comm comm, const Flat& flat, const Build& build) {
  return guarded(fn, comm, [&] {
    if (!flat()) build()->run();
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Bcast";
  return blocking_flat(
      fn, comm, [&] { return flat_bcast(buffer, count, datatype, root, comm); },
      [&] { return build_bcast(fn, buffer, count, datatype, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Bcast)

extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  const char* fn = "MPI_Ibcast";
  return nonblocking(fn, comm, request, [&] { return build_bcast(fn, buffer, count, datatype, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Ibcast)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           int root, MPI_Comm comm) {
  const char* fn = "MPI_Reduce";
  return blocking_flat(
      fn, comm, [&] { return flat_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, false); },
      [&] { return build_reduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Reduce)

extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            int root, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Ireduce";
  return nonblocking(fn, comm, request,
                     [&] { return build_reduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Ireduce)

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  const char* fn = "MPI_Allreduce";
  return blocking_flat(
      fn, comm, [&] { return flat_reduce(sendbuf, recvbuf, count, datatype, op, 0, comm, true); },
      [&] { return build_allreduce(fn, sendbuf, recvbuf, count, datatype, op, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Allreduce)

extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iallreduce";
  return nonblocking(fn, comm, request,
                     [&] { return build_allreduce(fn, sendbuf, recvbuf, count, datatype, op, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Iallreduce)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* fn = "MPI_Reduce_scatter";
  return blocking_flat(
      fn, comm,
      [&] { return flat_reduce_scatter(sendbuf, recvbuf, true, recvcounts, 0, datatype, op, comm); },
      [&] { return build_reduce_scatter(fn, sendbuf, recvbuf, true, recvcounts, 0, datatype, op, comm); });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_scatter)

extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Ireduce_scatter";
  return nonblocking(fn, comm, request, [&] {
    return build_reduce_scatter(fn, sendbuf, recvbuf, true, recvcounts, 0, datatype, op, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ireduce_scatter)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* fn = "MPI_Reduce_scatter_block";
  return blocking_flat(
      fn, comm,
      [&] { return flat_reduce_scatter(sendbuf, recvbuf, false, nullptr, recvcount, datatype, op, comm); },
      [&] {
        return build_reduce_scatter(fn, sendbuf, recvbuf, false, nullptr, recvcount, datatype, op, comm);
      });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_scatter_block)

extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request* request) {
  const char* fn = "MPI_Ireduce_scatter_block";
  return nonblocking(fn, comm, request, [&] {
    return build_reduce_scatter(fn, sendbuf, recvbuf, false, nullptr, recvcount, datatype, op, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ireduce_scatter_block)

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  const char* fn = "MPI_Scan";
  return blocking(fn, comm,
                  [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, false); });
}
TAKYON_MPI_WEAK_ALIAS(Scan)

extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iscan";
  return nonblocking(fn, comm, request,
                     [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, false); });
}
TAKYON_MPI_WEAK_ALIAS(Iscan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm) {
  const char* fn = "MPI_Exscan";
  return blocking(fn, comm,
                  [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, true); });
}
TAKYON_MPI_WEAK_ALIAS(Exscan)

extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iexscan";
  return nonblocking(fn, comm, request,
                     [&] { return build_scan(fn, sendbuf, recvbuf, count, datatype, op, comm, true); });
}
TAKYON_MPI_WEAK_ALIAS(Iexscan)

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Gather";
  auto flat = [&] {
    return flat_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return blocking_flat(fn, comm, flat, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                        recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Gather)

extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request* request) {
  const char* fn = "MPI_Igather";
  return nonblocking(fn, comm, request, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                        recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Igather)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  const char* fn = "MPI_Gatherv";
  return blocking(fn, comm, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                        root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Gatherv)

extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Igatherv";
  return nonblocking(fn, comm, request, [&] {
    return build_gather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                        root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Igatherv)

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Scatter";
  auto flat = [&] {
    return flat_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return blocking_flat(fn, comm, flat, [&] {
    return build_scatter(fn, sendbuf, false, nullptr, sendcount, nullptr, sendtype, recvbuf, recvcount,
                         recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Scatter)

extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request* request) {
  const char* fn = "MPI_Iscatter";
  return nonblocking(fn, comm, request, [&] {
    return build_scatter(fn, sendbuf, false, nullptr, sendcount, nullptr, sendtype, recvbuf, recvcount,
                         recvtype, root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Iscatter)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             int root, MPI_Comm comm) {
  const char* fn = "MPI_Scatterv";
  return blocking(fn, comm, [&] {
    return build_scatter(fn, sendbuf, true, sendcounts, 0, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Scatterv)

extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                              int root, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iscatterv";
  return nonblocking(fn, comm, request, [&] {
    return build_scatter(fn, sendbuf, true, sendcounts, 0, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Iscatterv)

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Allgather";
  auto flat = [&] {
    return flat_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  return blocking_flat(fn, comm, flat, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                           recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Allgather)

extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iallgather";
  return nonblocking(fn, comm, request, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, recvcount, nullptr,
                           recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Iallgather)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                               MPI_Comm comm) {
  const char* fn = "MPI_Allgatherv";
  return blocking(fn, comm, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                           comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Allgatherv)

extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Iallgatherv";
  return nonblocking(fn, comm, request, [&] {
    return build_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, 0, displs, recvtype,
                           comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Iallgatherv)

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Alltoall";
  auto flat = [&] { return flat_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  return blocking_flat(fn, comm, flat, [&] {
    return build_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoall)

extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Ialltoall";
  return nonblocking(fn, comm, request, [&] {
    return build_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ialltoall)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Alltoallv";
  return blocking(fn, comm, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls,
                           nullptr, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoallv)

extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  const char* fn = "MPI_Ialltoallv";
  return nonblocking(fn, comm, request, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls,
                           nullptr, recvtype, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ialltoallv)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* fn = "MPI_Alltoallw";
  return blocking(fn, comm, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, recvbuf,
                           recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Alltoallw)

extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  const char* fn = "MPI_Ialltoallw";
  return nonblocking(fn, comm, request, [&] {
    return build_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, recvbuf,
                           recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, comm);
  });
}
TAKYON_MPI_WEAK_ALIAS(Ialltoallw)

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  return guarded("MPI_Barrier", comm, [&] {
    barrier(check_comm(comm, "MPI_Barrier"));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Barrier)

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return nonblocking("MPI_Ibarrier", comm, request, [&] { return build_barrier("MPI_Ibarrier", comm); });
}
TAKYON_MPI_WEAK_ALIAS(Ibarrier)
