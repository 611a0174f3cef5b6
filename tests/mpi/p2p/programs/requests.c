/* SPDX-License-Identifier: MIT */
/* Nonblocking requests: Waitany / Waitsome / Testsome / Testany / Testall orderings, Request_free of
 * an active send, Cancel of a posted receive, Test_cancelled, Sendrecv_replace, Bsend. np 2-4
 * (ranks 0 and 1 exchange; the others only take part in the barriers). */
#define _DEFAULT_SOURCE
#include <unistd.h>

#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  MPI_Status st, sts[8];
  MPI_Request reqs[8];
  int vals[8], idx[8], index = -1, outcount = -1, flag = 0;

  /* Waitany: rank 1 sends tags 3,1,2,0 in that order; rank 0 posted 0..3, so completion follows arrival */
  if (rank == 0) {
    for (int t = 0; t < 4; ++t) CHECK_MPI(MPI_Irecv(&vals[t], 1, MPI_INT, 1, t, MPI_COMM_WORLD, &reqs[t]));
    MPI_Barrier(MPI_COMM_WORLD);
    int order[4];
    for (int k = 0; k < 4; ++k) {
      CHECK_MPI(MPI_Waitany(4, reqs, &index, &st));
      CHECK(index >= 0 && index < 4 && reqs[index] == MPI_REQUEST_NULL && st.MPI_TAG == index);
      CHECK(vals[index] == 10 + index);
      order[k] = index;
      CHECK_MPI(MPI_Send(&k, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Waitany(4, reqs, &index, &st));
    CHECK(index == MPI_UNDEFINED);
    printf("waitany order %d %d %d %d\n", order[0], order[1], order[2], order[3]);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      const int tags[4] = {3, 1, 2, 0};
      for (int k = 0; k < 4; ++k) {
        int v = 10 + tags[k];
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, tags[k], MPI_COMM_WORLD));
        /* wait for rank 0 to have consumed it, so the order is deterministic */
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  (void)sts;

  /* Waitsome / Testsome: all 6 complete eventually; the union of indices is every request once */
  if (rank < 2) {
    int peer = 1 - rank, seen = 0, total = 0;
    for (int i = 0; i < 3; ++i)
      CHECK_MPI(MPI_Irecv(&vals[i], 1, MPI_INT, peer, 20 + i, MPI_COMM_WORLD, &reqs[i]));
    int out[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2};
    for (int i = 0; i < 3; ++i)
      CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, peer, 20 + i, MPI_COMM_WORLD, &reqs[3 + i]));
    int use_test = 0;
    while (total < 6) {
      if (use_test) {
        CHECK_MPI(MPI_Testsome(6, reqs, &outcount, idx, sts));
      } else {
        CHECK_MPI(MPI_Waitsome(6, reqs, &outcount, idx, sts));
        CHECK(outcount >= 1);
      }
      use_test = !use_test;
      for (int k = 0; k < outcount; ++k) {
        CHECK(!(seen & (1 << idx[k])) && reqs[idx[k]] == MPI_REQUEST_NULL);
        seen |= 1 << idx[k];
        if (idx[k] < 3) CHECK(sts[k].MPI_TAG == 20 + idx[k] && sts[k].MPI_SOURCE == peer);
      }
      total += outcount;
    }
    CHECK(seen == 0x3f);
    for (int i = 0; i < 3; ++i) CHECK(vals[i] == peer * 10 + i);
    CHECK_MPI(MPI_Waitsome(6, reqs, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED);
    CHECK_MPI(MPI_Testsome(6, reqs, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("waitsome/testsome ok\n");

  /* Testall / Testany: nothing can complete before the peer sends */
  if (rank < 2) {
    int peer = 1 - rank;
    CHECK_MPI(MPI_Irecv(&vals[0], 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Irecv(&vals[1], 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(!flag && reqs[0] != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Testany(2, reqs, &index, &flag, &st));
    CHECK(!flag && index == MPI_UNDEFINED);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone has tested before anyone sends */
    int v = 30 + rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD));
    do {
      CHECK_MPI(MPI_Testany(2, reqs, &index, &flag, &st));
    } while (!flag);
    CHECK(index == 1 && vals[1] == 30 + peer && st.MPI_TAG == 31);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends tag 30 before both have seen tag 31 alone */
    v = 40 + rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 30, MPI_COMM_WORLD));
    do {
      CHECK_MPI(MPI_Testall(2, reqs, &flag, sts));
    } while (!flag);
    CHECK(vals[0] == 40 + peer && reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Testany(2, reqs, &index, &flag, &st));
    CHECK(flag && index == MPI_UNDEFINED);
    CHECK_MPI(MPI_Test(&reqs[0], &flag, &st));
    CHECK(flag);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("testall/testany ok\n");

  /* Cancel a receive nobody sends to; Request_free an active send (data must still arrive) */
  CHECK_MPI(MPI_Irecv(&vals[0], 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Cancel(&reqs[0]));
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag && reqs[0] == MPI_REQUEST_NULL);
  if (rank < 2) {
    static int big[100000];
    int peer = 1 - rank;
    for (int i = 0; i < 100000; ++i) big[i] = i + rank;
    CHECK_MPI(MPI_Isend(big, 100000, MPI_INT, peer, 40, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Request_free(&reqs[0]));
    CHECK(reqs[0] == MPI_REQUEST_NULL);
    static int in[100000];
    CHECK_MPI(MPI_Recv(in, 100000, MPI_INT, peer, 40, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag);
    for (int i = 0; i < 100000; ++i) CHECK(in[i] == i + peer);
    MPI_Barrier(MPI_COMM_WORLD); /* the freed send completed on both sides before big changes */
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  PRINT0("cancel and request_free ok\n");

  /* Sendrecv_replace around a ring, Bsend */
  int size = world_size();
  int ring[1000];
  for (int i = 0; i < 1000; ++i) ring[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Sendrecv_replace(ring, 1000, MPI_INT, (rank + 1) % size, 50, (rank + size - 1) % size, 50,
                                 MPI_COMM_WORLD, &st));
  for (int i = 0; i < 1000; ++i) CHECK(ring[i] == ((rank + size - 1) % size) * 1000 + i);
  int bsize = 100000 + MPI_BSEND_OVERHEAD;
  char *bbuf = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
  static char bmsg[50000];
  memset(bmsg, rank + 1, sizeof bmsg);
  CHECK_MPI(MPI_Bsend(bmsg, 50000, MPI_CHAR, (rank + 1) % size, 51, MPI_COMM_WORLD));
  memset(bmsg, 0, sizeof bmsg); /* the buffered send owns a copy */
  static char bin[50000];
  CHECK_MPI(MPI_Recv(bin, 50000, MPI_CHAR, (rank + size - 1) % size, 51, MPI_COMM_WORLD, &st));
  for (int i = 0; i < 50000; ++i) CHECK(bin[i] == (char)((rank + size - 1) % size + 1));
  void *det;
  int dsize;
  CHECK_MPI(MPI_Buffer_detach(&det, &dsize));
  CHECK(det == bbuf && dsize == bsize);
  free(bbuf);
  PRINT0("sendrecv_replace and bsend ok\n");
  MPI_Finalize();
  return 0;
}
