/* SPDX-License-Identifier: MIT */
/* Synchronous sends complete only once matched: an Issend stays incomplete while the receiver has
 * not posted (rank 1 posts it only after rank 0's 100 ms of MPI_Test and a go message), Ssend to
 * self completes after the receive; Rsend. np 2-4. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  MPI_Request req;
  MPI_Status st;
  int flag = 0, v = 0;
  for (int bytes = 4; bytes <= 400000; bytes *= 100) {
    char *buf = calloc((size_t)bytes, 1);
    if (rank == 0) {
      CHECK_MPI(MPI_Issend(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req));
      double t0 = MPI_Wtime();
      int early = 0;
      while (MPI_Wtime() - t0 < 0.1) {
        CHECK_MPI(MPI_Test(&req, &flag, &st));
        if (flag) early = 1;
      }
      CHECK(!early);
      /* only now may rank 1 post its receive: the order is causal, not a matter of timing */
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, 90, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&req, &st));
      printf("issend of %d bytes completed only after the match\n", bytes);
    } else if (rank == 1) {
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 90, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Ssend/Issend to self */
  CHECK_MPI(MPI_Issend(&rank, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Test(&req, &flag, &st));
  CHECK(!flag);
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(v == rank);
  /* blocking Ssend paired with a receive that is posted first */
  if (rank < 2) {
    int peer = 1 - rank;
    if (rank == 0) {
      CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &req));
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK(v == 1);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      v = 1;
      CHECK_MPI(MPI_Rsend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 4, &v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));
    if (rank == 0) {
      CHECK_MPI(MPI_Ssend(&rank, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &st));
    }
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("ssend semantics ok\n");
  MPI_Finalize();
  return 0;
}
