/* SPDX-License-Identifier: MIT */
/* MPI_Init and nothing else: run where /dev/shm cannot hold the inboxes, MPI_Init must report it
 * (the default error handler: the message, then the job ends with an error), never a signal. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "shm_init: MPI_Init returned an error\n");
    return 3;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("shm_init: ok\n");
  MPI_Finalize();
  return 0;
}
