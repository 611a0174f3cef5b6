/* SPDX-License-Identifier: MIT */
/* Flat (shared-memory) collectives out of step after an error on one rank only (libtakyon_mpi, under
 * MPI_ERRORS_RETURN): the root's gather fails on its bad receive buffer while the other ranks' part
 * succeeds, so every later collective on that communicator pairs different calls. They must report
 * an error (the readers check the epoch and collective of what they read), not hand one collective's
 * data to another. */
#include "test_util.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(takyon_mpi());
  CHECK(size >= 2);
  PRINT0("coll_out_of_step: %d ranks\n", size);
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int x = rank + 1, s = -1;
  CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c));
  CHECK(s == size * (size + 1) / 2);

  /* The root's receive buffer is NULL: only the root fails. */
  int v = 100 + rank;
  int rc = MPI_Gather(&v, 1, MPI_INT, rank == 0 ? NULL : &s, 1, MPI_INT, 0, c);
  CHECK((rank == 0) == (rc != MPI_SUCCESS));

  /* The root's allreduce meets the others' gather, theirs the root's next collective. */
  s = -1;
  rc = MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_OTHER) {
    fprintf(stderr,
            "rank %d: allreduce after the failed gather returned class %d (sum %d), not MPI_ERR_OTHER\n",
            rank, cls, s);
  }
  CHECK(cls == MPI_ERR_OTHER);
  if (rank == 0) CHECK_MPI(MPI_Barrier(c));

  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  PRINT0("out-of-step collectives reported: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
