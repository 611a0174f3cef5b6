/* SPDX-License-Identifier: MIT */
/* A small MPI program the wrapper tests compile (-c) and, once libtakyon_mpi exists, link. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0;
  int size = 0;
  int len = 0;
  int token = 0;
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &len);
  if (size > 1) {
    if (rank == 0) {
      token = 42;
      MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  if (MPI_Wtime() < 0.0) token = -1; /* links MPI_Wtime; never true */
  printf("hello from rank %d of %d on %s (token %d)\n", rank, size, name, token);
  MPI_Finalize();
  return 0;
}
