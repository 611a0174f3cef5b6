/* SPDX-License-Identifier: MIT */
/* Floods: 10,000 small messages (and 40 large ones) to rank 0 before it posts a receive, then
 * received in reverse tag order for the large ones; two ranks flooding each other at once must not
 * deadlock. np 2-4. */
#include "test_util.h"

#define SMALL 10000
#define LARGE 40
#define LARGE_BYTES 300000

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Status st;
  unsigned char *buf = malloc(LARGE_BYTES);
  CHECK(buf != NULL);

  if (rank == 1) {
    for (int i = 0; i < SMALL; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
    MPI_Request reqs[LARGE];
    unsigned char *lb = malloc((size_t)LARGE * LARGE_BYTES);
    for (int i = 0; i < LARGE; ++i) {
      fill_pattern(lb + (size_t)i * LARGE_BYTES, LARGE_BYTES, (unsigned)i);
      CHECK_MPI(MPI_Isend(lb + (size_t)i * LARGE_BYTES, LARGE_BYTES, MPI_BYTE, 0, 1000 + i, MPI_COMM_WORLD,
                          &reqs[i]));
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 posts nothing before this */
    CHECK_MPI(MPI_Waitall(LARGE, reqs, MPI_STATUSES_IGNORE));
    free(lb);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) {
    for (int i = 0; i < SMALL; ++i) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &st));
      CHECK(v == i);
    }
    for (int i = LARGE - 1; i >= 0; --i) {
      memset(buf, 0, LARGE_BYTES);
      CHECK_MPI(MPI_Recv(buf, LARGE_BYTES, MPI_BYTE, 1, 1000 + i, MPI_COMM_WORLD, &st));
      CHECK(check_pattern(buf, LARGE_BYTES, (unsigned)i) == -1);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("unexpected flood ok\n");

  /* everyone floods everyone with nonblocking sends before receiving */
  int n = 2000;
  int *out = malloc(sizeof(int) * (size_t)n * (size_t)size);
  int *in = malloc(sizeof(int) * (size_t)n * (size_t)size);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)n * (size_t)size * 2);
  int k = 0;
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < n; ++i) {
      out[p * n + i] = rank * 100000 + i;
      CHECK_MPI(MPI_Isend(&out[p * n + i], 1, MPI_INT, p, 5, MPI_COMM_WORLD, &reqs[k++]));
    }
  }
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < n; ++i)
      CHECK_MPI(MPI_Irecv(&in[p * n + i], 1, MPI_INT, p, 5, MPI_COMM_WORLD, &reqs[k++]));
  }
  CHECK_MPI(MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE));
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < n; ++i) CHECK(in[p * n + i] == p * 100000 + i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("all-to-all flood ok\n");

  /* blocking sends in both directions at once (eager): flow control must drain, not deadlock */
  if (rank < 2) {
    int peer = 1 - rank;
    for (int i = 0; i < 5000; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
    for (int i = 0; i < 5000; ++i) {
      int v;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &st));
      CHECK(v == i);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("two-way blocking flood ok\n");
  free(out);
  free(in);
  free(reqs);
  free(buf);
  MPI_Finalize();
  return 0;
}
