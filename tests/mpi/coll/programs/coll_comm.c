/* SPDX-License-Identifier: MIT */
/* Collectives on derived communicators: WORLD split into even and odd ranks (ranks renumbered,
 * roots and ring neighbours translated), and a duplicate of WORLD running nonblocking collectives
 * that overlap WORLD's own. Values are checked against local computations. */
#include "test_util.h"

static int wrank, wsize;

static int val(int wr, int i) { return wr * 1000 + i; }

static void on_split(MPI_Comm sub) {
  int r, n;
  CHECK_MPI(MPI_Comm_rank(sub, &r));
  CHECK_MPI(MPI_Comm_size(sub, &n));
  int color = wrank % 2;
  /* sub rank q is world rank 2q + color */
  enum { N = 300 };
  int s[N], x[N];
  for (int i = 0; i < N; ++i) s[i] = val(wrank, i);
  CHECK_MPI(MPI_Allreduce(s, x, N, MPI_INT, MPI_SUM, sub));
  for (int i = 0; i < N; ++i) {
    int e = 0;
    for (int q = 0; q < n; ++q) e += val(2 * q + color, i);
    CHECK(x[i] == e);
  }
  for (int i = 0; i < N; ++i) x[i] = r == n - 1 ? val(wrank, i) : -1;
  CHECK_MPI(MPI_Bcast(x, N, MPI_INT, n - 1, sub));
  for (int i = 0; i < N; ++i) CHECK(x[i] == val(2 * (n - 1) + color, i));
  CHECK_MPI(MPI_Scan(s, x, N, MPI_INT, MPI_SUM, sub));
  for (int i = 0; i < N; ++i) {
    int e = 0;
    for (int q = 0; q <= r; ++q) e += val(2 * q + color, i);
    CHECK(x[i] == e);
  }
  int *all = (int *)malloc((size_t)n * N * sizeof(int));
  int *out = (int *)malloc((size_t)n * N * sizeof(int));
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < N; ++i) out[q * N + i] = val(wrank, i) + q;
  CHECK_MPI(MPI_Alltoall(out, N, MPI_INT, all, N, MPI_INT, sub));
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < N; ++i) CHECK(all[q * N + i] == val(2 * q + color, i) + r);
  CHECK_MPI(MPI_Gather(s, N, MPI_INT, all, N, MPI_INT, 0, sub));
  if (r == 0)
    for (int q = 0; q < n; ++q)
      for (int i = 0; i < N; ++i) CHECK(all[q * N + i] == val(2 * q + color, i));
  free(all);
  free(out);
  CHECK_MPI(MPI_Barrier(sub));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  PRINT0("coll_comm: %d ranks\n", wsize);
  MPI_Comm sub = MPI_COMM_NULL, dup = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &sub));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  on_split(sub);
  PRINT0("split even/odd: Allreduce, Bcast, Scan, Alltoall, Gather, Barrier ok\n");
  {
    /* Nonblocking collectives on WORLD and its duplicate, started in opposite orders on even and
     * odd ranks of the same communicator pair: each communicator's own sequence keeps them apart. */
    enum { N = 2000 };
    int *a = (int *)malloc(N * sizeof(int)), *b = (int *)malloc(N * sizeof(int));
    int *ra = (int *)malloc(N * sizeof(int)), *rb = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) a[i] = val(wrank, i), b[i] = 2 * val(wrank, i);
    MPI_Request r[3];
    CHECK_MPI(MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Iallreduce(b, rb, N, MPI_INT, MPI_MAX, dup, &r[1]));
    CHECK_MPI(MPI_Ibarrier(sub, &r[2]));
    if (wrank % 2) {
      CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < N; ++i) {
      int sum = 0;
      for (int q = 0; q < wsize; ++q) sum += val(q, i);
      CHECK(ra[i] == sum);
      CHECK(rb[i] == 2 * val(wsize - 1, i));
    }
    free(a);
    free(b);
    free(ra);
    free(rb);
    CHECK_MPI(MPI_Comm_free(&sub));
    CHECK_MPI(MPI_Comm_free(&dup));
  }
  PRINT0("WORLD, its duplicate and the split overlapping ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
