/* SPDX-License-Identifier: MIT */
/* Collectives on derived communicators: WORLD split into even and odd ranks (ranks renumbered,
 * roots and ring neighbours translated), a duplicate of WORLD running nonblocking collectives
 * that overlap WORLD's own, and small collectives of every kind back to back on communicators
 * created and freed in turn (the flat shared-memory path and its context-slot reuse). Values are
 * checked against local computations. */
#define _DEFAULT_SOURCE
#include <unistd.h>

#include "test_util.h"

static int wrank, wsize;

static int val(int wr, int i) {
  return wr * 1000 + i;
}

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

/* Small blocking collectives (the flat shared-memory path by default) back to back on communicators
 * created and freed round after round, so that each context slot is reused by communicators with
 * other members and other sizes: WORLD split by a color that changes with the round (key reversed on
 * odd rounds), and a duplicate of WORLD, collectives of every kind interleaved on WORLD, the split and
 * the duplicate, with sizes on both sides of the inline (16 B) and flat (4096 B per rank) limits. */
static void churn(void) {
  static const int kSizes[] = {1, 3, 4, 5, 64, 1024, 1025, 0}; /* ints */
  enum { ROUNDS = 24, MAXN = 1025 };
  int *s = (int *)malloc((size_t)MAXN * 5 * sizeof(int));
  int *x = (int *)malloc((size_t)MAXN * 5 * sizeof(int));
  int *all = (int *)malloc((size_t)MAXN * (size_t)wsize * sizeof(int));
  int *out = (int *)malloc((size_t)MAXN * (size_t)wsize * sizeof(int));
  for (int round = 0; round < ROUNDS; ++round) {
    int color = (wrank / (1 + round % 3)) % 2;
    MPI_Comm sub, dup;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, (round & 1) ? -wrank : wrank, &sub));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int r, m;
    CHECK_MPI(MPI_Comm_rank(sub, &r));
    CHECK_MPI(MPI_Comm_size(sub, &m));
    int members[8]; /* world rank of each rank of sub, gathered on sub itself */
    CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, members, 1, MPI_INT, sub));
    for (int q = 0; q < m; ++q) {
      CHECK((members[q] / (1 + round % 3)) % 2 == color);
      if (q > 0) CHECK((round & 1) ? members[q] < members[q - 1] : members[q] > members[q - 1]);
    }
    CHECK(members[r] == wrank);
    int n = kSizes[round % 8];
    /* Allreduce on the split */
    for (int i = 0; i < n; ++i) s[i] = val(wrank, i) + round;
    CHECK_MPI(MPI_Allreduce(s, x, n, MPI_INT, MPI_SUM, sub));
    for (int i = 0; i < n; ++i) {
      int e = 0;
      for (int q = 0; q < m; ++q) e += val(members[q], i) + round;
      CHECK(x[i] == e);
    }
    /* Bcast on WORLD from a root that moves */
    int root = round % wsize;
    for (int i = 0; i < n; ++i) x[i] = wrank == root ? val(root, i) - round : -1;
    CHECK_MPI(MPI_Bcast(x, n, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) CHECK(x[i] == val(root, i) - round);
    CHECK_MPI(MPI_Barrier(sub));
    /* Allgather on the duplicate, in place on odd rounds */
    int k = n > 200 ? 200 : n;
    for (int q = 0; q < wsize; ++q)
      for (int i = 0; i < k; ++i) all[q * k + i] = q == wrank ? val(wrank, i) * 3 : -1;
    if (round & 1) {
      CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, k, MPI_INT, dup));
    } else {
      for (int i = 0; i < k; ++i) s[i] = val(wrank, i) * 3;
      CHECK_MPI(MPI_Allgather(s, k, MPI_INT, all, k, MPI_INT, dup));
    }
    for (int q = 0; q < wsize; ++q)
      for (int i = 0; i < k; ++i) CHECK(all[q * k + i] == val(q, i) * 3);
    /* Alltoall on WORLD (k ints per block), in place on rounds divisible by 3 */
    for (int q = 0; q < wsize; ++q)
      for (int i = 0; i < k; ++i) out[q * k + i] = val(wrank, i) + 7 * q + round;
    if (round % 3 == 0) {
      CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, k, MPI_INT, MPI_COMM_WORLD));
      memcpy(all, out, (size_t)wsize * (size_t)k * sizeof(int));
    } else {
      CHECK_MPI(MPI_Alltoall(out, k, MPI_INT, all, k, MPI_INT, MPI_COMM_WORLD));
    }
    for (int q = 0; q < wsize; ++q)
      for (int i = 0; i < k; ++i) CHECK(all[q * k + i] == val(q, i) + 7 * wrank + round);
    /* Reduce on the split to its last rank (in place there on even rounds) */
    for (int i = 0; i < n; ++i) s[i] = val(wrank, i) ^ round, x[i] = s[i];
    if (r == m - 1 && !(round & 1)) {
      CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, x, n, MPI_INT, MPI_MAX, m - 1, sub));
    } else {
      CHECK_MPI(MPI_Reduce(s, x, n, MPI_INT, MPI_MAX, m - 1, sub));
    }
    if (r == m - 1)
      for (int i = 0; i < n; ++i) {
        int e = val(members[0], i) ^ round;
        for (int q = 1; q < m; ++q) e = (val(members[q], i) ^ round) > e ? (val(members[q], i) ^ round) : e;
        CHECK(x[i] == e);
      }
    /* Gather on the duplicate, Scatter on the split */
    int groot = (round * 7) % wsize;
    for (int i = 0; i < k; ++i) s[i] = val(wrank, i) - 5;
    CHECK_MPI(MPI_Gather(s, k, MPI_INT, all, k, MPI_INT, groot, dup));
    if (wrank == groot)
      for (int q = 0; q < wsize; ++q)
        for (int i = 0; i < k; ++i) CHECK(all[q * k + i] == val(q, i) - 5);
    int kk = n > 100 ? 100 : n;
    for (int q = 0; q < m; ++q)
      for (int i = 0; i < kk; ++i) out[q * kk + i] = val(members[q], i) + round * 11;
    for (int i = 0; i < kk; ++i) x[i] = -1;
    CHECK_MPI(MPI_Scatter(out, kk, MPI_INT, x, kk, MPI_INT, 0, sub));
    for (int i = 0; i < kk; ++i) CHECK(x[i] == val(wrank, i) + round * 11);
    /* Free in an order that changes with the round, with a WORLD collective between */
    CHECK_MPI(MPI_Comm_free((round & 1) ? &sub : &dup));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK(n == kSizes[round % 8]);
    CHECK_MPI(MPI_Comm_free((round & 1) ? &dup : &sub));
  }
  /* Enough live communicators at once that the later ones sit beyond the flat path's context slots
   * (they run schedules): a collective on each, in creation order, then freed in reverse. */
  enum { LIVE = 40 };
  MPI_Comm live[LIVE];
  for (int c = 0; c < LIVE; ++c) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &live[c]));
  for (int c = 0; c < LIVE; ++c) {
    int v = val(wrank, c), sum = 0;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, live[c]));
    for (int q = 0; q < wsize; ++q) sum += val(q, c);
    CHECK(v == sum);
    CHECK_MPI(MPI_Barrier(live[LIVE - 1 - c]));
  }
  for (int c = LIVE - 1; c >= 0; --c) CHECK_MPI(MPI_Comm_free(&live[c]));
  free(s);
  free(x);
  free(all);
  free(out);
}

/* A communicator freed while one member has not yet read its last broadcast (np 3 and more): ranks 0
 * and 1 form A, ranks 0 and 2 form B; rank 1 sleeps before its last broadcast on A while rank 0, the
 * root, frees A and broadcasts twice on a duplicate of B, which takes A's freed context slot. Rank 1
 * must still get A's data. */
static void free_while_read(void) {
  if (wsize < 3) return;
  enum { N = 100 };
  MPI_Comm a, b, b2 = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank < 2 ? 0 : 1, wrank, &a));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank == 0 || wrank == 2 ? 0 : MPI_UNDEFINED, wrank, &b));
  int x[N];
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < N; ++i) x[i] = wrank == 0 ? val(k, i) : -1;
    if (wrank == 1 && k == 2) usleep(50000);
    if (wrank < 2) {
      CHECK_MPI(MPI_Bcast(x, N, MPI_INT, 0, a));
      for (int i = 0; i < N; ++i) CHECK(x[i] == val(k, i));
    }
  }
  CHECK_MPI(MPI_Comm_free(&a));
  if (b != MPI_COMM_NULL) {
    CHECK_MPI(MPI_Comm_dup(b, &b2));
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < N; ++i) x[i] = wrank == 0 ? -val(k, i) : -1;
      CHECK_MPI(MPI_Bcast(x, N, MPI_INT, 0, b2));
      for (int i = 0; i < N; ++i) CHECK(x[i] == -val(k, i));
    }
    CHECK_MPI(MPI_Comm_free(&b2));
    CHECK_MPI(MPI_Comm_free(&b));
  }
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
  churn();
  PRINT0("small collectives on communicators created and freed round after round, and on 40 at once ok\n");
  free_while_read();
  PRINT0("a communicator freed while a member still reads its last broadcast ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
