/* SPDX-License-Identifier: MIT */
/* MPI_Abort on one rank ends the whole job with its error code (7) while the others block. np 1-4. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
  int v;
  MPI_Recv(&v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return 0;
}
