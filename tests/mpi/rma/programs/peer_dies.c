/* SPDX-License-Identifier: MIT */
/* A rank dies without MPI_Finalize (rank 1: _exit(9)) while the others use it through windows,
 * under MPI_ERRORS_RETURN on every window: each one-sided call that needs it must fail with error
 * class MPI_ERR_PROC_ABORTED and a message naming rank 1, never hang. Two windows: one made by
 * MPI_Win_create (operations and synchronization as messages to the target) and one by
 * MPI_Win_allocate (on one host: mapped memory, lock words and fence counters). Before dying,
 * rank 1 takes an exclusive lock on rank 0's part of the allocated window, so rank 0's own lock
 * then waits on a dead holder. The checked calls: a lock of the dead rank and a fence on the
 * message window; a fence on the allocated window; on rank 0, a shared lock of its own memory held
 * by the dead rank. The survivors report to rank 0 with MPI_Test loops (a blocking wait that idles
 * fails once any peer has died), which prints "peer_dies: every surviving rank saw its one-sided
 * calls fail with MPI_ERR_PROC_ABORTED"; anything else prints "peer_dies: FAILED". np 2-3. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <unistd.h>

#include "../../p2p/programs/peer_death.h"
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank();
  CHECK(world_size() >= 2);
  int mem[64] = {0};
  MPI_Win am, direct;
  int *base = NULL;
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &am));
  CHECK_MPI(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &direct));
  CHECK_MPI(MPI_Win_set_errhandler(am, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_set_errhandler(direct, MPI_ERRORS_RETURN));
  /* Everyone is alive: one checked epoch first. */
  CHECK_MPI(MPI_Win_fence(0, am));
  const int right = (rank + 1) % world_size();
  const int value = 1000 + rank;
  CHECK_MPI(MPI_Put(&value, 1, MPI_INT, right, 3, 1, MPI_INT, am));
  CHECK_MPI(MPI_Win_fence(0, am));
  CHECK(mem[3] == 1000 + (rank + world_size() - 1) % world_size());
  if (rank == 1) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, direct));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) {
    usleep(100000);
    _exit(9);
  }
  signal(SIGTERM, SIG_IGN);
  int checked = 0;
  checked += expect_peer_aborted("peer_dies", "MPI_Win_lock of the dead rank (message window)",
                                 MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, am));
  checked += expect_peer_aborted("peer_dies", "MPI_Win_fence with the dead rank (message window)",
                                 MPI_Win_fence(0, am));
  checked += expect_peer_aborted("peer_dies", "MPI_Win_fence with the dead rank (allocated window)",
                                 MPI_Win_fence(0, direct));
  if (rank == 0) {
    checked += expect_peer_aborted("peer_dies",
                                   "MPI_Win_lock of memory the dead rank holds locked (allocated window)",
                                   MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, direct));
  }
  MPI_Request req;
  if (rank == 0) {
    int total = checked;
    for (int r = 2; r < world_size(); ++r) {
      int n = 0;
      CHECK_MPI(MPI_Irecv(&n, 1, MPI_INT, r, 6, MPI_COMM_WORLD, &req));
      test_until_done("peer_dies", &req);
      total += n;
    }
    if (total == 4 + 3 * (world_size() - 2)) {
      printf("peer_dies: every surviving rank saw its one-sided calls fail with MPI_ERR_PROC_ABORTED\n");
    } else {
      printf("peer_dies: FAILED: %d calls checked\n", total);
    }
  } else {
    CHECK_MPI(MPI_Isend(&checked, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &req));
    test_until_done("peer_dies", &req);
  }
  fflush(stdout);
  fflush(stderr);
  _exit(0);
}
