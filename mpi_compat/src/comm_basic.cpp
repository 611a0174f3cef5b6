// SPDX-License-Identifier: MIT
// MPI_COMM_WORLD and MPI_COMM_SELF (see comm_basic.hpp).
#include "comm_basic.hpp"

#include "errors.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

CommInfo g_world{MPI_COMM_WORLD, 0, 1, false, MPI_ERRORS_ARE_FATAL};
CommInfo g_self{MPI_COMM_SELF, 2, 3, true, MPI_ERRORS_ARE_FATAL};

}  // namespace

CommInfo* find_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return &g_world;
  if (comm == MPI_COMM_SELF) return &g_self;
  return nullptr;
}

void check_initialized(const char* fn) {
  if (!runtime_active()) {
    fail(MPI_ERR_OTHER, fn, runtime_finalized() ? "called after MPI_Finalize" : "called before MPI_Init");
  }
}

CommInfo& check_comm(MPI_Comm comm, const char* fn) {
  check_initialized(fn);
  if (CommInfo* c = find_comm(comm)) return *c;
  if (comm == MPI_COMM_NULL) fail(MPI_ERR_COMM, fn, "invalid communicator MPI_COMM_NULL (argument comm)");
  fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm): not MPI_COMM_WORLD or MPI_COMM_SELF, the only "
                         "communicators this version provides");
}

int comm_size(const CommInfo& c) { return c.is_self ? 1 : engine().size(); }
int comm_rank(const CommInfo& c) { return c.is_self ? 0 : engine().rank(); }
int to_world(const CommInfo& c, int rank) { return c.is_self ? engine().rank() : rank; }
int from_world(const CommInfo& c, int world_rank) { return c.is_self ? 0 : world_rank; }

MPI_Errhandler errhandler_of(MPI_Comm comm) {
  CommInfo* c = find_comm(comm);
  return c != nullptr ? c->errhandler : g_world.errhandler;
}

}  // namespace takyon::mpi
