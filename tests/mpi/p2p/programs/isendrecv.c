/* SPDX-License-Identifier: MIT */
/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4): round a ring at eager and rendezvous sizes, with a
 * derived datatype, MPI_PROC_NULL and ANY_SOURCE; one request each, complete only once both its send
 * and its receive are; the status is the receive's; every byte checked. Open MPI 4.1 lacks them: not
 * compared, checked here. */
#include "test_util.h"

static const int kSizes[] = {0, 4, 3000, 9000, 100000, 1500000};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int most = kSizes[NSIZES - 1];
  char *out = (char *)malloc((size_t)most), *in = (char *)malloc((size_t)most);
  CHECK(out != NULL && in != NULL);
  for (int k = 0; k < NSIZES; ++k) {
    int n = kSizes[k];
    for (int replace = 0; replace < 2; ++replace) {
      MPI_Request r;
      MPI_Status st;
      fill_pattern(out, (size_t)n, (unsigned)(rank * 100 + k));
      memset(in, 0, (size_t)n);
      if (replace) {
        CHECK_MPI(MPI_Isendrecv_replace(out, n, MPI_BYTE, right, 3, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r));
      } else {
        CHECK_MPI(MPI_Isendrecv(out, n, MPI_BYTE, right, 3, in, n, MPI_BYTE, left, 3, MPI_COMM_WORLD, &r));
      }
      int flag = 0;
      CHECK_MPI(MPI_Test(&r, &flag, &st)); /* maybe done already; else Wait */
      if (!flag) CHECK_MPI(MPI_Wait(&r, &st));
      CHECK(r == MPI_REQUEST_NULL);
      int count = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == n && st.MPI_SOURCE == left && st.MPI_TAG == 3);
      CHECK(check_pattern(replace ? out : in, (size_t)n, (unsigned)(left * 100 + k)) < 0);
      if (!replace) CHECK(check_pattern(out, (size_t)n, (unsigned)(rank * 100 + k)) < 0); /* left alone */
    }
    PRINT0("isendrecv %d bytes: ok\n", n);
  }
  /* A strided type: every second int of 2 * 1000, sent and replaced in place. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(1000, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int *v = (int *)calloc(2000, sizeof(int));
  CHECK(v != NULL);
  for (int i = 0; i < 1000; ++i) v[2 * i] = rank * 10000 + i, v[2 * i + 1] = -1;
  MPI_Request r;
  CHECK_MPI(MPI_Isendrecv_replace(v, 1, strided, right, 4, left, 4, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < 1000; ++i) CHECK(v[2 * i] == left * 10000 + i && v[2 * i + 1] == -1);
  CHECK_MPI(MPI_Type_free(&strided));
  free(v);
  /* MPI_PROC_NULL both ways: completes at once with the empty receive's status. */
  MPI_Status st;
  CHECK_MPI(MPI_Isendrecv(out, 4, MPI_BYTE, MPI_PROC_NULL, 1, in, 4, MPI_BYTE, MPI_PROC_NULL, 1,
                          MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  /* Many at once, completed in any order. */
  enum { kMany = 16 };
  MPI_Request many[kMany];
  int sendv[kMany], recvv[kMany];
  for (int i = 0; i < kMany; ++i) {
    sendv[i] = rank * 100 + i;
    recvv[i] = -1;
    CHECK_MPI(MPI_Isendrecv(&sendv[i], 1, MPI_INT, right, 20 + i, &recvv[i], 1, MPI_INT, left, 20 + i,
                            MPI_COMM_WORLD, &many[i]));
  }
  CHECK_MPI(MPI_Waitall(kMany, many, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kMany; ++i) CHECK(recvv[i] == left * 100 + i);
  /* Bad arguments. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_class("MPI_Isendrecv with dest = size",
               MPI_Isendrecv(out, 1, MPI_BYTE, size, 0, in, 1, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r),
               MPI_ERR_RANK);
  expect_class("MPI_Isendrecv_replace with request NULL",
               MPI_Isendrecv_replace(out, 1, MPI_BYTE, right, 0, left, 0, MPI_COMM_WORLD, NULL),
               MPI_ERR_REQUEST);
  PRINT0("isendrecv: datatypes, MPI_PROC_NULL, many at once, errors: ok\n");
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
