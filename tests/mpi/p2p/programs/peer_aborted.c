/* SPDX-License-Identifier: MIT */
/* A rank dies without MPI_Finalize (rank 1: _exit(9), or kill -SIGNAL itself when PEER_ABORTED_SIGNAL
 * is set) while the others use it, under MPI_ERRORS_RETURN: every call that needs it must fail with
 * error class MPI_ERR_PROC_ABORTED and a message naming rank 1 -- a blocking and a nonblocking
 * receive, a rendezvous send, blocking collectives (rank 1 the root, and a reduction) and a
 * nonblocking one, each collective on a communicator of its own (made before the death, so that one
 * failed collective cannot put the next out of step). The survivors ignore SIGTERM, which the
 * launcher sends them once rank 1 is gone, so that they get to make their checks; the others report
 * to rank 0, which prints "peer_aborted: every surviving rank saw its 7 calls fail with
 * MPI_ERR_PROC_ABORTED"; a wrong class or message prints "peer_aborted: FAILED". Nobody calls
 * MPI_Finalize (its barrier would need the dead rank). The job ends with rank 1's status: the ctest
 * expects a failure and the line. np 2-4. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <unistd.h>

#include "peer_death.h"
#include "test_util.h"

enum { kCalls = 7, kBig = 4 << 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank();
  CHECK(world_size() >= 2);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm comms[3];
  for (int i = 0; i < 3; ++i) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
    CHECK_MPI(MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN));
  }
  unsigned char *big = malloc(kBig);
  CHECK(big != NULL);
  fill_pattern(big, kBig, (unsigned)rank);
  /* Everyone is alive here: one checked exchange with rank 1 first. */
  if (rank == 0 || rank == 1) {
    unsigned char got[64];
    CHECK_MPI(MPI_Sendrecv(big, 64, MPI_BYTE, 1 - rank, 1, got, 64, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(check_pattern(got, 64, (unsigned)(1 - rank)) < 0);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) {
    usleep(100000);
    const char *sig = getenv("PEER_ABORTED_SIGNAL");
    if (sig != NULL) kill(getpid(), atoi(sig));
    _exit(9);
  }
  signal(SIGTERM, SIG_IGN);

  int checked = 0, v = rank;
  MPI_Request req;
  checked += expect_peer_aborted("peer_aborted", "MPI_Recv from the dead rank",
                                 MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &req));
  checked += expect_peer_aborted("peer_aborted", "MPI_Wait on an MPI_Irecv from the dead rank",
                                 MPI_Wait(&req, MPI_STATUS_IGNORE));
  checked += expect_peer_aborted("peer_aborted", "MPI_Send of 4 MiB to the dead rank",
                                 MPI_Send(big, kBig, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
  checked += expect_peer_aborted("peer_aborted", "MPI_Ssend to the dead rank",
                                 MPI_Ssend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
  checked += expect_peer_aborted("peer_aborted", "MPI_Bcast from the dead root",
                                 MPI_Bcast(&v, 1, MPI_INT, 1, comms[0]));
  checked += expect_peer_aborted("peer_aborted", "MPI_Allreduce with the dead rank",
                                 MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, comms[1]));
  int rc = MPI_Ibarrier(comms[2], &req);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  checked += expect_peer_aborted("peer_aborted", "MPI_Ibarrier + MPI_Wait with the dead rank", rc);
  /* The survivors report to rank 0 with MPI_Test loops: a blocking wait that idles fails once any peer
   * has died (the engine's liveness check is not per operation). */
  if (rank == 0) {
    int total = checked;
    for (int r = 2; r < world_size(); ++r) {
      int n = 0;
      CHECK_MPI(MPI_Irecv(&n, 1, MPI_INT, r, 6, MPI_COMM_WORLD, &req));
      test_until_done("peer_aborted", &req);
      total += n;
    }
    if (total == kCalls * (world_size() - 1)) {
      printf("peer_aborted: every surviving rank saw its %d calls fail with MPI_ERR_PROC_ABORTED\n", kCalls);
    } else {
      printf("peer_aborted: FAILED: %d of %d calls checked\n", total, kCalls * (world_size() - 1));
    }
  } else {
    CHECK_MPI(MPI_Isend(&checked, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &req));
    test_until_done("peer_aborted", &req);
  }
  fflush(stdout);
  fflush(stderr);
  free(big);
  _exit(0);
}
