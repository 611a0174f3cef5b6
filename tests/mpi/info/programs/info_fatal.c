/* SPDX-License-Identifier: MIT */
/* An added error code raised under MPI_ERRORS_ARE_FATAL (MPI_Comm_call_errhandler on rank 0, the others
 * waiting in a barrier): the job ends with exit status 1, not the code's low 8 bits (0x4000 would give
 * 0, a success). np 2, and alone. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int cls = -1;
  CHECK_MPI(MPI_Add_error_class(&cls)); /* the first: MPI_ERR_LASTCODE + 1 = 0x4000, low byte 0 */
  CHECK(cls == MPI_ERR_LASTCODE + 1);
  CHECK_MPI(MPI_Add_error_string(cls, "the program's own error"));
  if (world_rank() == 0) MPI_Comm_call_errhandler(MPI_COMM_WORLD, cls);
  MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 0 ends the job */
  fprintf(stderr, "rank %d: passed a barrier the failing rank never entered\n", world_rank());
  MPI_Finalize();
  return 0;
}
