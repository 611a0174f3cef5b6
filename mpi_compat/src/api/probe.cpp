// SPDX-License-Identifier: MIT
// MPI_Probe / MPI_Iprobe: look at the oldest matching unexpected message without receiving it.
#include "api/common.hpp"
#include "api/export.hpp"

namespace takyon::mpi {

void set_probe_status(MPI_Status* s, const CommInfo& c, int world_source, int tag, std::size_t bytes) {
  if (s == MPI_STATUS_IGNORE) return;
  s->MPI_SOURCE = from_world(c, world_source);
  s->MPI_TAG = tag;
  status_set_bytes(s, bytes);  // MPI_ERROR as it was: a probe returns one status
  s->MPI_internal[2] = 0;
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return guarded("MPI_Iprobe", comm, [&] {
    P2pArgs a = check_probe("MPI_Iprobe", source, tag, comm);
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL (argument flag)");
    if (a.null_proc) {
      *flag = 1;
      set_proc_null_status(status);
      return MPI_SUCCESS;
    }
    Engine& e = engine();
    ProbeResult p;
    bool found = e.probe(a.comm->ctx, a.world_peer, a.tag, p);
    if (!found) {
      e.progress();
      found = e.probe(a.comm->ctx, a.world_peer, a.tag, p);
    }
    *flag = found ? 1 : 0;
    if (found) set_probe_status(status, *a.comm, p.source, p.tag, p.bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Iprobe)

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Probe", comm, [&] {
    P2pArgs a = check_probe("MPI_Probe", source, tag, comm);
    if (a.null_proc) {
      set_proc_null_status(status);
      return MPI_SUCCESS;
    }
    Engine& e = engine();
    ProbeResult p;
    e.wait_until([&] { return e.probe(a.comm->ctx, a.world_peer, a.tag, p); });
    set_probe_status(status, *a.comm, p.source, p.tag, p.bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Probe)
