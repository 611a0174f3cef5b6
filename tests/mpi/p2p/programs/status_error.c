/* SPDX-License-Identifier: MIT */
/* The MPI_ERROR field of a status is left as it was by the calls that return one status and
 * succeed: Recv (eager and through a request), Wait, Probe, Iprobe, Mprobe, Mrecv, and each of them
 * with MPI_PROC_NULL (which sets source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0), as Open MPI does
 * and MPICH's pt2pt/mprobe checks; Waitall sets it in every status. np 2 (ranks beyond 1 idle). */
#include "test_util.h"

#define MARK 12345 /* no error class has this value */

static void fresh(MPI_Status *s) {
  memset(s, 0xab, sizeof *s);
  s->MPI_ERROR = MARK;
}

static void proc_null_fields(const MPI_Status *s) {
  int count = -1;
  CHECK(s->MPI_SOURCE == MPI_PROC_NULL && s->MPI_TAG == MPI_ANY_TAG && s->MPI_ERROR == MARK);
  CHECK_MPI(MPI_Get_count(s, MPI_INT, &count));
  CHECK(count == 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  MPI_Status s;
  int v = 7, got = 0, flag = 0;
  MPI_Message msg;
  MPI_Request req;
  if (rank == 0) {
    for (int tag = 1; tag <= 5; ++tag) CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD));
    MPI_Request two[2];
    CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &two[0]));
    CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &two[1]));
    CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  } else if (rank == 1) {
    fresh(&s);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &s));
    CHECK(got == 7 && s.MPI_SOURCE == 0 && s.MPI_TAG == 1 && s.MPI_ERROR == MARK);
    fresh(&s);
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &s));
    CHECK(s.MPI_TAG == 2 && s.MPI_ERROR == MARK);
    fresh(&s);
    CHECK_MPI(MPI_Probe(0, 3, MPI_COMM_WORLD, &s));
    CHECK(s.MPI_TAG == 3 && s.MPI_ERROR == MARK);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fresh(&s);
    while (!flag) CHECK_MPI(MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, &s));
    CHECK(s.MPI_TAG == 4 && s.MPI_ERROR == MARK);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fresh(&s);
    CHECK_MPI(MPI_Mprobe(0, 5, MPI_COMM_WORLD, &msg, &s));
    CHECK(s.MPI_TAG == 5 && s.MPI_ERROR == MARK);
    fresh(&s);
    CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &msg, &s));
    CHECK(got == 7 && s.MPI_TAG == 5 && s.MPI_ERROR == MARK);
    /* Waitall sets MPI_ERROR in each status. */
    MPI_Request two[2];
    MPI_Status sts[2];
    int in[2];
    fresh(&sts[0]);
    fresh(&sts[1]);
    CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &two[0]));
    CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &two[1]));
    CHECK_MPI(MPI_Waitall(2, two, sts));
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_SUCCESS);
  }
  /* MPI_PROC_NULL, on every rank. */
  fresh(&s);
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
  proc_null_fields(&s);
  fresh(&s);
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
  proc_null_fields(&s);
  fresh(&s);
  flag = 0;
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &s));
  CHECK(flag);
  proc_null_fields(&s);
  fresh(&s);
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &s));
  CHECK(msg == MPI_MESSAGE_NO_PROC);
  proc_null_fields(&s);
  fresh(&s);
  CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &msg, &s));
  CHECK(msg == MPI_MESSAGE_NULL);
  proc_null_fields(&s);
  PRINT0("ok: single-status calls leave MPI_ERROR alone\n");
  MPI_Finalize();
  return 0;
}
