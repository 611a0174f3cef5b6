/* SPDX-License-Identifier: MIT */
/* Bad input to collectives and ops under MPI_ERRORS_RETURN: each case prints the error class it
 * got (rank 0). Every rank makes the same calls, so no collective is left half done. Cases that
 * Open MPI does not check (or checks differently) run with libtakyon_mpi only and print the same
 * line under Open MPI, so the outputs stay comparable. */
#include "test_util.h"

static const char *class_name(int err) {
  int c = err;
  if (err != MPI_SUCCESS) MPI_Error_class(err, &c);
  switch (c) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS";
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT";
    case MPI_ERR_OP:
      return "MPI_ERR_OP";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST";
    default:
      return "other";
  }
}

static int rank_, size_;

static void expect(const char *what, int err, int want) {
  PRINT0("%-58s %s\n", what, class_name(err));
  CHECK(err == want || class_name(err) == class_name(want));
}

static void dummy_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)in;
  (void)inout;
  (void)len;
  (void)dt;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  PRINT0("coll_errors: %d ranks\n", size_);
  MPI_Comm w = MPI_COMM_WORLD;
  int a[8] = {0}, b[8] = {0};
  double d[2] = {1, 2}, e[2];

  expect("Bcast root = size", MPI_Bcast(a, 1, MPI_INT, size_, w), MPI_ERR_ROOT);
  expect("Bcast root = -1", MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
  expect("Bcast count = -1", MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
  expect("Bcast datatype MPI_DATATYPE_NULL", MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE);
  expect("Bcast on MPI_COMM_NULL", MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  expect("Reduce root = size", MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, size_, w), MPI_ERR_ROOT);
  expect("Gather root = size", MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, size_, w), MPI_ERR_ROOT);
  expect("Scatter root = -2", MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, -2, w), MPI_ERR_ROOT);
  expect("Allreduce op MPI_OP_NULL", MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
  expect("Allreduce MPI_MINLOC on MPI_INT", MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, w), MPI_ERR_OP);
  expect("Allreduce MPI_BAND on MPI_DOUBLE", MPI_Allreduce(d, e, 2, MPI_DOUBLE, MPI_BAND, w), MPI_ERR_OP);
  expect("Allreduce MPI_SUM on MPI_2INT", MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, w), MPI_ERR_OP);
  expect("Allreduce MPI_MAX on MPI_C_DOUBLE_COMPLEX",
         MPI_Allreduce(a, b, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, w), MPI_ERR_OP);
  expect("Reduce MPI_LOR on MPI_FLOAT", MPI_Reduce(d, e, 1, MPI_FLOAT, MPI_LOR, 0, w), MPI_ERR_OP);
  expect("Scan MPI_PROD on MPI_C_BOOL", MPI_Scan(a, b, 1, MPI_C_BOOL, MPI_PROD, w), MPI_ERR_OP);
  expect("Reduce_local MPI_MAXLOC on MPI_INT", MPI_Reduce_local(a, b, 1, MPI_INT, MPI_MAXLOC), MPI_ERR_OP);
  expect("Allreduce count = -1", MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  expect("Op_free(MPI_SUM)", MPI_Op_free(&(MPI_Op){MPI_SUM}), MPI_ERR_OP);
  {
    int counts[8], displs[8];
    for (int i = 0; i < 8; ++i) counts[i] = 1, displs[i] = i;
    counts[size_ - 1] = -1;
    expect("Alltoallv recvcounts[size-1] = -1",
           MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
  }
  expect("Allgather recvtype MPI_DATATYPE_NULL", MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, w),
         MPI_ERR_TYPE);
#ifdef TAKYON_MPI_H_
  int takyon = 1;
#else
  int takyon = 0;
#endif
  /* Checks Open MPI does not make (or makes with another class); libtakyon_mpi's answer. */
  {
    const char *what[] = {"Bcast buffer MPI_IN_PLACE",
                          "Reduce MPI_IN_PLACE at a non-root rank",
                          "Allreduce sendbuf == recvbuf",
                          "Allreduce with a freed user op",
                          "Ibcast request NULL",
                          "Bcast counts differ across ranks",
                          "Ibcast counts differ across ranks (Ibcast or Wait)",
                          "Request_free / Cancel of an Ibarrier's request"};
    int want[] = {MPI_ERR_BUFFER, MPI_ERR_BUFFER,   MPI_ERR_BUFFER,   MPI_ERR_OP,
                  MPI_ERR_ARG,    MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE, MPI_ERR_REQUEST};
    for (int k = 0; k < 8; ++k) {
      int err = want[k];
      if (takyon) {
        if (k == 0) err = MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w);
        if (k == 1) {
          /* rank 0 is the non-root (the root is size-1; with one rank, rank 0 is the root) */
          if (rank_ != size_ - 1) err = MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, size_ - 1, w);
        }
        if (k == 2) err = MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w);
        if (k == 3) {
          MPI_Op op, freed;
          CHECK_MPI(MPI_Op_create(dummy_op, 1, &op));
          freed = op;
          CHECK_MPI(MPI_Op_free(&op));
          err = MPI_Allreduce(a, b, 1, MPI_INT, freed, w);
        }
        if (k == 4) err = MPI_Ibcast(a, 1, MPI_INT, 0, w, NULL);
        if (k == 5) {
          /* the root (1) sends 4 ints, rank 0 (a leaf of the tree) expects 2 */
          if (size_ == 1) {
            err = MPI_ERR_TRUNCATE;
          } else {
            err = MPI_Bcast(a, rank_ == 0 ? 2 : 4, MPI_INT, 1, w);
            if (rank_ != 0) err = want[k]; /* only rank 0 receives too much */
          }
        }
        if (k == 7) {
          MPI_Request r = MPI_REQUEST_NULL;
          CHECK_MPI(MPI_Ibarrier(w, &r));
          err = MPI_Request_free(&r);
          CHECK(r != MPI_REQUEST_NULL);
          CHECK(MPI_Cancel(&r) == err);
          CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
          CHECK(r == MPI_REQUEST_NULL);
        }
        if (k == 6) {
          MPI_Request r = MPI_REQUEST_NULL;
          err = MPI_ERR_TRUNCATE;
          if (size_ > 1) {
            err = MPI_Ibcast(a, rank_ == 0 ? 1 : 3, MPI_INT, 1, w, &r);
            if (err == MPI_SUCCESS) err = MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (rank_ == 0) {
              char text[MPI_MAX_ERROR_STRING];
              int len = 0;
              MPI_Error_string(err, text, &len);
              CHECK(strstr(text, "MPI_Ibcast: rank ") != NULL &&
                    strstr(text, " sent 12 bytes where rank 0 expected 4") != NULL);
            } else {
              err = want[k];
            }
          }
        }
      }
      if (k == 1 && rank_ == size_ - 1 && size_ > 1) continue; /* the root did not take part */
      expect(what[k], err, want[k]);
    }
  }
  /* The communicator still works after all that. */
  int one = 1, all = 0;
  CHECK_MPI(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, w));
  CHECK(all == size_);
  PRINT0("Allreduce after the errors: %d\n", all);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
