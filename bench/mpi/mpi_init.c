/* SPDX-License-Identifier: MIT */
/* MPI_Init + MPI_Finalize and nothing else: takyon-bench-mpi times it from outside to measure
 * launch + init (+ finalize and teardown) per job. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
