// SPDX-License-Identifier: MIT
// Intercommunicator entry points: Intercomm_create, Intercomm_merge, Comm_remote_size,
// Comm_remote_group. The model is coll/intercomm.hpp (creation) and comm/comm.hpp (CommInfo::remote).
#include <optional>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "coll/intercomm.hpp"
#include "comm/group.hpp"

using namespace takyon::mpi;

namespace {

/// `c`, which must be an intercommunicator (MPI_ERR_COMM naming `fn`).
CommInfo& check_intercomm(MPI_Comm comm, const char* fn, const char* arg) {
  CommInfo& c = check_comm(comm, fn);
  if (!is_inter(c)) {
    fail(MPI_ERR_COMM, fn,
         std::string("invalid communicator (argument ") + arg +
             "): an intracommunicator, not an intercommunicator");
  }
  return c;
}

/// What a member's own checks threw, kept until its group's exchange is over.
template <class Checks>
std::optional<MpiError> local_checks(const Checks& checks) {
  try {
    checks();
  } catch (const MpiError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  constexpr const char* fn = "MPI_Intercomm_create";
  return guarded(fn, local_comm, [&] {
    CommInfo& local = check_comm(local_comm, fn);
    if (is_inter(local)) {
      fail(MPI_ERR_COMM, fn, "invalid communicator (argument local_comm): an intercommunicator");
    }
    std::optional<MpiError> error = local_checks([&] {
      if (newintercomm == nullptr) fail(MPI_ERR_ARG, fn, "newintercomm is NULL (argument newintercomm)");
    });
    MPI_Comm h = create_intercomm(local, local_leader, peer_comm, remote_leader, tag, error, fn);
    *newintercomm = h;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  constexpr const char* fn = "MPI_Intercomm_merge";
  return guarded(fn, intercomm, [&] {
    CommInfo& c = check_intercomm(intercomm, fn, "intercomm");
    std::optional<MpiError> error = local_checks([&] {
      if (newintracomm == nullptr) fail(MPI_ERR_ARG, fn, "newintracomm is NULL (argument newintracomm)");
    });
    MPI_Comm h = merge_intercomm(c, high != 0, error, fn);
    *newintracomm = h;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Intercomm_merge)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  constexpr const char* fn = "MPI_Comm_remote_size";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_intercomm(comm, fn, "comm");
    if (size == nullptr) fail(MPI_ERR_ARG, fn, "size is NULL (argument size)");
    *size = int(c.remote.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  constexpr const char* fn = "MPI_Comm_remote_group";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_intercomm(comm, fn, "comm");
    if (group == nullptr) fail(MPI_ERR_ARG, fn, "group is NULL (argument group)");
    *group = new_group(c.remote);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_remote_group)
