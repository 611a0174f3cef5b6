/* SPDX-License-Identifier: MIT */
/* Collectives on intercommunicators, blocking and nonblocking, over two kinds of split of
 * MPI_COMM_WORLD (parity; world rank 0 alone against the rest): Barrier, Bcast (MPI_ROOT /
 * MPI_PROC_NULL, a strided datatype, a rendezvous-sized buffer), Reduce, Allreduce, Gather(v),
 * Scatter(v), Allgather(v), Alltoall(v, w), Reduce_scatter(_block), reductions with a
 * non-commutative user op (rank order); each group's result comes from the other group and every
 * item is checked. Scan is MPI_ERR_COMM there. np 2-4. */
#include "test_util.h"

enum { kBig = 40000 };

static int g_n, g_m, g_r, g_a; /* local size, remote size, local rank, in group A */

/* Item i of the contribution of rank s of group `a` (1: A, the group of world rank 0). */
static int val(int a, int s, int i) {
  return (a ? 1000 : 2000) + s * 10 + i;
}

static void check_sum_from_remote(const int *got, int count, int first) {
  for (int i = 0; i < count; ++i) {
    int want = 0;
    for (int s = 0; s < g_m; ++s) want += val(!g_a, s, first + i);
    CHECK(got[i] == want);
  }
}

static void bcasts(MPI_Comm inter) {
  /* Root: A's rank 0, then B's last rank. */
  for (int t = 0; t < 2; ++t) {
    int root_in_a = t == 0;
    int root_rank = root_in_a ? 0 : (g_a ? g_m : g_n) - 1; /* as a rank of the root's group */
    int root = g_a == root_in_a ? (g_r == root_rank ? MPI_ROOT : MPI_PROC_NULL) : root_rank;
    int *buf = malloc(sizeof(int) * kBig);
    for (int i = 0; i < kBig; ++i) buf[i] = root == MPI_ROOT ? val(root_in_a, root_rank, i) : -1;
    CHECK_MPI(MPI_Bcast(buf, 5, MPI_INT, root, inter));
    CHECK_MPI(MPI_Bcast(buf + 5, kBig - 5, MPI_INT, root, inter));
    for (int i = 0; i < kBig; ++i)
      CHECK(buf[i] == (root == MPI_PROC_NULL ? -1 : val(root_in_a, root_rank, i)));
    /* Strided: every other int. */
    MPI_Datatype every_other;
    MPI_Type_vector(8, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < 16; ++i) buf[i] = root == MPI_ROOT ? 7 * i : -1;
    CHECK_MPI(MPI_Bcast(buf, 1, every_other, root, inter));
    for (int i = 0; i < 16; ++i) {
      int want = root == MPI_PROC_NULL || (root != MPI_ROOT && i % 2) ? -1 : 7 * i;
      CHECK(buf[i] == want);
    }
    MPI_Type_free(&every_other);
    free(buf);
  }
}

/* x op y = x: associative, not commutative; a reduction in rank order gives rank 0's vector. */
static void first_wins(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] = ((const int *)in)[i];
}

static void reductions(MPI_Comm inter) {
  int send[6], recv[6];
  for (int i = 0; i < 6; ++i) send[i] = val(g_a, g_r, i);
  /* Reduce to A's rank 0, then to B's rank 0. */
  for (int t = 0; t < 2; ++t) {
    int root_in_a = t == 0;
    int root = g_a == root_in_a ? (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    memset(recv, 0xff, sizeof recv);
    CHECK_MPI(MPI_Reduce(send, recv, 6, MPI_INT, MPI_SUM, root, inter));
    if (root == MPI_ROOT) check_sum_from_remote(recv, 6, 0);
  }
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Allreduce(send, recv, 6, MPI_INT, MPI_SUM, inter));
  check_sum_from_remote(recv, 6, 0);
  /* Non-commutative: the remote group's rank 0 wins, everywhere and at a root. */
  MPI_Op first_op;
  CHECK_MPI(MPI_Op_create(first_wins, 0, &first_op));
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Allreduce(send, recv, 6, MPI_INT, first_op, inter));
  for (int i = 0; i < 6; ++i) CHECK(recv[i] == val(!g_a, 0, i));
  memset(recv, 0xff, sizeof recv);
  int root = g_a ? 0 : (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL); /* B's rank 0 */
  CHECK_MPI(MPI_Reduce(send, recv, 6, MPI_INT, first_op, root, inter));
  if (root == MPI_ROOT)
    for (int i = 0; i < 6; ++i) CHECK(recv[i] == val(1, 0, i));
  MPI_Op_free(&first_op);
  /* Reduce_scatter_block: recvcount = remote size, so both groups' vectors have n * m items. */
  int total = g_n * g_m;
  int *vec = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)total);
  for (int k = 0; k < total; ++k) vec[k] = val(g_a, g_r, k);
  CHECK_MPI(MPI_Reduce_scatter_block(vec, out, g_m, MPI_INT, MPI_SUM, inter));
  check_sum_from_remote(out, g_m, g_r * g_m);
  /* Reduce_scatter: rank 0 takes two blocks, rank 1 none (n >= 2), the rest one each. */
  int counts[64], first = 0;
  for (int i = 0; i < g_n; ++i) counts[i] = g_n == 1 ? g_m : i == 0 ? 2 * g_m : i == 1 ? 0 : g_m;
  for (int i = 0; i < g_r; ++i) first += counts[i];
  memset(out, 0xff, sizeof(int) * (size_t)total);
  CHECK_MPI(MPI_Reduce_scatter(vec, out, counts, MPI_INT, MPI_SUM, inter));
  check_sum_from_remote(out, counts[g_r], first);
  free(vec);
  free(out);
}

static void gathers(MPI_Comm inter) {
  enum { kBlock = 3 };
  int send[kBlock * 64], recv[kBlock * 64], counts[64], displs[64];
  for (int i = 0; i < kBlock; ++i) send[i] = val(g_a, g_r, i);
  int root = g_a ? (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0; /* A's rank 0 */
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Gather(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, root, inter));
  if (root == MPI_ROOT) {
    for (int s = 0; s < g_m; ++s)
      for (int i = 0; i < kBlock; ++i) CHECK(recv[s * kBlock + i] == val(0, s, i));
  }
  /* Gatherv: rank s sends s % 3 + 1 items, placed in reverse order with a gap. */
  int pos = 0;
  for (int s = g_m - 1; s >= 0; --s) {
    counts[s] = s % 3 + 1;
    displs[s] = pos;
    pos += counts[s] + 1;
  }
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Gatherv(send, g_r % 3 + 1, MPI_INT, recv, counts, displs, MPI_INT, root, inter));
  if (root == MPI_ROOT) {
    for (int s = 0; s < g_m; ++s)
      for (int i = 0; i < counts[s]; ++i) CHECK(recv[displs[s] + i] == val(0, s, i));
  }
  /* Scatter from B's rank 0: block j to A's rank j. */
  root = g_a ? 0 : (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL);
  for (int k = 0; k < kBlock * 64; ++k) send[k] = root == MPI_ROOT ? val(0, 0, k) : -1;
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Scatter(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, root, inter));
  if (g_a) {
    for (int i = 0; i < kBlock; ++i) CHECK(recv[i] == val(0, 0, g_r * kBlock + i));
  }
  /* Scatterv: rank j gets j % 2 + 1 items from offset 5 * j. */
  for (int j = 0; j < g_m; ++j) {
    counts[j] = j % 2 + 1;
    displs[j] = 5 * j;
  }
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Scatterv(send, counts, displs, MPI_INT, recv, g_r % 2 + 1, MPI_INT, root, inter));
  if (g_a) {
    for (int i = 0; i < g_r % 2 + 1; ++i) CHECK(recv[i] == val(0, 0, 5 * g_r + i));
  }
  /* Allgather and Allgatherv: every remote rank's block. */
  for (int i = 0; i < kBlock; ++i) send[i] = val(g_a, g_r, i);
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Allgather(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, inter));
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < kBlock; ++i) CHECK(recv[s * kBlock + i] == val(!g_a, s, i));
  pos = 0;
  for (int s = 0; s < g_m; ++s) {
    counts[s] = s % 3 + 1;
    displs[s] = pos;
    pos += counts[s];
  }
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Allgatherv(send, g_r % 3 + 1, MPI_INT, recv, counts, displs, MPI_INT, inter));
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < counts[s]; ++i) CHECK(recv[displs[s] + i] == val(!g_a, s, i));
}

/* Item i of what rank s of group `a` sends to remote rank j in the all-to-alls. */
static int a2a(int a, int s, int j, int i) {
  return (a ? 10000 : 20000) + s * 100 + j * 10 + i;
}

static void alltoalls(MPI_Comm inter) {
  enum { kBlock = 2 };
  int send[kBlock * 64], recv[kBlock * 64];
  int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
  MPI_Datatype st[64], rt[64];
  for (int j = 0; j < g_m; ++j)
    for (int i = 0; i < kBlock; ++i) send[j * kBlock + i] = a2a(g_a, g_r, j, i);
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Alltoall(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, inter));
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < kBlock; ++i) CHECK(recv[s * kBlock + i] == a2a(!g_a, s, g_r, i));
  /* v: remote rank j gets j % 2 + 1 items; from remote s this rank gets g_r % 2 + 1. */
  int pos = 0;
  for (int j = 0; j < g_m; ++j) {
    sc[j] = j % 2 + 1;
    sd[j] = j * kBlock;
    rc[j] = g_r % 2 + 1;
    rd[j] = pos;
    pos += rc[j];
    st[j] = rt[j] = MPI_INT;
    sdb[j] = sd[j] * (int)sizeof(int);
    rdb[j] = rd[j] * (int)sizeof(int);
  }
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, inter));
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < rc[s]; ++i) CHECK(recv[rd[s] + i] == a2a(!g_a, s, g_r, i));
  memset(recv, 0xff, sizeof recv);
  CHECK_MPI(MPI_Alltoallw(send, sc, sdb, st, recv, rc, rdb, rt, inter));
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < rc[s]; ++i) CHECK(recv[rd[s] + i] == a2a(!g_a, s, g_r, i));
}

static void nonblocking(MPI_Comm inter) {
  MPI_Request rq[5];
  int b[4], red_in[3], red_out[3], ag_in[2], ag_out[128], a2a_in[64], a2a_out[64];
  int root = g_a ? (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  for (int i = 0; i < 4; ++i) b[i] = root == MPI_ROOT ? val(1, 0, i) : -1;
  for (int i = 0; i < 3; ++i) red_in[i] = val(g_a, g_r, i);
  for (int i = 0; i < 2; ++i) ag_in[i] = val(g_a, g_r, i);
  for (int j = 0; j < g_m; ++j) a2a_in[j] = a2a(g_a, g_r, j, 0);
  CHECK_MPI(MPI_Ibcast(b, 4, MPI_INT, root, inter, &rq[0]));
  CHECK_MPI(MPI_Iallreduce(red_in, red_out, 3, MPI_INT, MPI_SUM, inter, &rq[1]));
  CHECK_MPI(MPI_Iallgather(ag_in, 2, MPI_INT, ag_out, 2, MPI_INT, inter, &rq[2]));
  CHECK_MPI(MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, inter, &rq[3]));
  CHECK_MPI(MPI_Ibarrier(inter, &rq[4]));
  CHECK_MPI(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
  if (!g_a)
    for (int i = 0; i < 4; ++i) CHECK(b[i] == val(1, 0, i));
  check_sum_from_remote(red_out, 3, 0);
  for (int s = 0; s < g_m; ++s)
    for (int i = 0; i < 2; ++i) CHECK(ag_out[s * 2 + i] == val(!g_a, s, i));
  for (int s = 0; s < g_m; ++s) CHECK(a2a_out[s] == a2a(!g_a, s, g_r, 0));
  int total = g_n * g_m, vec[64], out[64];
  for (int k = 0; k < total; ++k) vec[k] = val(g_a, g_r, k);
  CHECK_MPI(MPI_Ireduce_scatter_block(vec, out, g_m, MPI_INT, MPI_SUM, inter, &rq[0]));
  CHECK_MPI(MPI_Ireduce(red_in, red_out, 3, MPI_INT, MPI_SUM, g_a ? 0 : (g_r == 0 ? MPI_ROOT : MPI_PROC_NULL),
                        inter, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  check_sum_from_remote(out, g_m, g_r * g_m);
  if (!g_a && g_r == 0) check_sum_from_remote(red_out, 3, 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (world_size() < 2) {
    PRINT0("coll_inter: needs 2 or more ranks\n");
    MPI_Finalize();
    return 0;
  }
  int rank = world_rank();
  for (int kind = 0; kind < 2; ++kind) {
    int color = kind == 0 ? rank % 2 : rank != 0;
    MPI_Comm local, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 5, &inter));
    g_a = color == 0;
    MPI_Comm_size(inter, &g_n);
    MPI_Comm_remote_size(inter, &g_m);
    MPI_Comm_rank(inter, &g_r);
    CHECK_MPI(MPI_Barrier(inter));
    bcasts(inter);
    reductions(inter);
    gathers(inter);
    alltoalls(inter);
    nonblocking(inter);
    /* Scans are not defined on intercommunicators. */
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int x = 1, y = 0, cls = -1;
    MPI_Error_class(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), &cls);
    CHECK(cls == MPI_ERR_COMM);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    PRINT0("kind %d: intercommunicator collectives ok\n", kind);
  }
  MPI_Finalize();
  return 0;
}
