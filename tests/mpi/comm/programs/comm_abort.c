/* SPDX-License-Identifier: MIT */
/* MPI_Abort on a derived communicator, with other derived communicators alive and the other ranks
 * waiting in a barrier on one: the whole job ends with the code (9). np 2-3. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Comm d, s;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_split(d, 0, -rank, &s));
  CHECK_MPI(MPI_Barrier(s));
  if (rank == size - 1) MPI_Abort(s, 9);
  MPI_Barrier(d); /* never completes: the last rank aborts */
  fprintf(stderr, "rank %d: passed a barrier the aborting rank never entered\n", rank);
  MPI_Finalize();
  return 0;
}
