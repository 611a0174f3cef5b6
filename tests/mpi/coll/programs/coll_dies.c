/* SPDX-License-Identifier: MIT */
/* A rank dies (exits without MPI_Finalize) while the others wait for it in small blocking
 * collectives (the flat shared-memory path by default): they must get an error (MPI_ERRORS_RETURN:
 * MPI_ERR_PROC_ABORTED naming the rank) or the job must be ended; never a hang. Expected to end with a
 * non-zero status. np 2-4. */
#define _DEFAULT_SOURCE
#include <unistd.h>

#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int v = rank;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) {
    usleep(100000);
    _exit(9);
  }
  /* Rank 1 is the root: everyone else waits for its data. */
  int rc = MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  fprintf(stderr, "rank %d: MPI_Bcast from the dead rank returned error class %d\n", rank, cls);
  return rc == MPI_SUCCESS ? 0 : 2;
}
