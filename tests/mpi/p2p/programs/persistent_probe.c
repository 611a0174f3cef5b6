/* SPDX-License-Identifier: MIT */
/* Persistent requests (Send_init, Ssend_init, Recv_init, Start, Startall, reuse, Request_free) and
 * Probe / Iprobe followed by a receive of the probed size; Get_count / Get_elements. np 2-4. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Status st;

  /* persistent ring: 20 rounds, each with fresh data, eager and rendezvous sizes */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  enum { kN = 50000 };
  static int out[kN], in[kN], small_out, small_in;
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Send_init(out, kN, MPI_INT, next, 1, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Recv_init(in, kN, MPI_INT, prev, 1, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Ssend_init(&small_out, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Recv_init(&small_in, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &reqs[3]));
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < kN; i += 997) out[i] = round * 100 + rank;
    out[kN - 1] = round * 100 + rank;
    small_out = round * 1000 + rank;
    if (round % 2 == 0) {
      CHECK_MPI(MPI_Startall(4, reqs));
    } else {
      for (int i = 3; i >= 0; --i) CHECK_MPI(MPI_Start(&reqs[i]));
    }
    CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; ++i) CHECK(reqs[i] != MPI_REQUEST_NULL); /* persistent: still allocated */
    for (int i = 0; i < kN; i += 997) CHECK(in[i] == round * 100 + prev);
    CHECK(in[kN - 1] == round * 100 + prev && small_in == round * 1000 + prev);
  }
  /* Wait on an inactive persistent request returns at once with an empty status */
  CHECK_MPI(MPI_Wait(&reqs[1], &st));
  CHECK(reqs[1] != MPI_REQUEST_NULL);
  for (int i = 0; i < 4; ++i) {
    CHECK_MPI(MPI_Request_free(&reqs[i]));
    CHECK(reqs[i] == MPI_REQUEST_NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("persistent requests ok\n");

  /* Probe then receive exactly the probed size */
  if (rank != 0) {
    int n = 1000 * rank + 3;
    double *d = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) d[i] = i * 0.5 + rank;
    CHECK_MPI(MPI_Send(d, n, MPI_DOUBLE, 0, 60 + rank, MPI_COMM_WORLD));
    free(d);
  } else {
    for (int k = 1; k < size; ++k) {
      int count = -1, elements = -1;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK(st.MPI_TAG == 60 + src);
      CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
      CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE, &elements));
      CHECK(count == 1000 * src + 3 && elements == count);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 2 * (1000 * src + 3));
      double *d = malloc(sizeof(double) * (size_t)(1000 * src + 3));
      CHECK_MPI(MPI_Recv(d, 1000 * src + 3, MPI_DOUBLE, src, st.MPI_TAG, MPI_COMM_WORLD, &st));
      for (int i = 0; i < 1000 * src + 3; ++i) CHECK(d[i] == i * 0.5 + src);
      free(d);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("probe then recv ok\n");

  /* Iprobe: false before the send, true after; the message stays until received */
  int flag = 1;
  if (rank == 0) {
    CHECK_MPI(MPI_Iprobe(1, 70, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    short pair[3] = {1, 2, 3};
    CHECK_MPI(MPI_Send(pair, 3, MPI_SHORT, 0, 70, MPI_COMM_WORLD));
  } else if (rank == 0) {
    do {
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &flag, &st));
    } while (!flag);
    int count = -1;
    CHECK(st.MPI_SOURCE == 1);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == MPI_UNDEFINED); /* 6 bytes are no whole number of ints */
    CHECK_MPI(MPI_Iprobe(1, 70, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag);
    short got[3];
    CHECK_MPI(MPI_Recv(got, 3, MPI_SHORT, 1, 70, MPI_COMM_WORLD, &st));
    CHECK(got[0] == 1 && got[2] == 3);
    CHECK_MPI(MPI_Iprobe(1, 70, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag);
    /* pair types travel whole */
    int pairs[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
    CHECK_MPI(MPI_Sendrecv(pairs, 2, MPI_2INT, 0, 71, back, 2, MPI_2INT, 0, 71, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_2INT, &count));
    CHECK(count == 2 && back[0] == 1 && back[3] == 4);
  }
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("iprobe ok\n");
  MPI_Finalize();
  return 0;
}
