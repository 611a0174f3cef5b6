/* SPDX-License-Identifier: MIT */
/* Intercommunicators made by Intercomm_create over two kinds of split of MPI_COMM_WORLD (parity;
 * world rank 0 alone against the rest): test_inter, sizes, local and remote groups, compare, names,
 * attributes and error handlers; point-to-point to the remote group (eager and rendezvous, probes,
 * MPI_ANY_SOURCE with the remote rank as MPI_SOURCE, sendrecv, persistent requests), isolated from
 * the local communicator and from a duplicate; Intercomm_merge in both orders; Comm_dup,
 * Comm_split and Comm_create of an intercommunicator. Bytes checked. np 2-4. */
#include "test_util.h"

enum { kSmall = 24, kLarge = 100000 };

/* The intercommunicator of `kind` (0: parity, 1: world rank 0 against the rest). */
static MPI_Comm make_inter(int kind, MPI_Comm *local, int *in_a) {
  int rank = world_rank(), size = world_size();
  int color = kind == 0 ? rank % 2 : rank != 0;
  *in_a = color == 0; /* group A holds world rank 0 */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, local));
  int remote_leader = color == 0 ? 1 : 0; /* the other group's first world rank */
  (void)size;
  MPI_Comm inter;
  CHECK_MPI(MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, remote_leader, 77 + kind, &inter));
  return inter;
}

/* The world ranks of group A and group B of `kind`, in rank order; returns how many. */
static int group_of(int kind, int a, int *ranks) {
  int n = 0;
  for (int w = 0; w < world_size(); ++w) {
    int in_a = kind == 0 ? w % 2 == 0 : w == 0;
    if (in_a == a) ranks[n++] = w;
  }
  return n;
}

/* The world ranks of `g`, checked against `expect`. */
static void check_group(MPI_Group g, const int *expect, int n) {
  int size = -1;
  CHECK_MPI(MPI_Group_size(g, &size));
  CHECK(size == n);
  MPI_Group wg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int idx[64], out[64];
  for (int i = 0; i < n; ++i) idx[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, wg, out));
  for (int i = 0; i < n; ++i) CHECK(out[i] == expect[i]);
  MPI_Group_free(&wg);
}

static void check_shape(MPI_Comm inter, int kind, int in_a) {
  int flag = 0, lsize = -1, rsize = -1, lrank = -1;
  int mine[64], other[64];
  int nmine = group_of(kind, in_a, mine), nother = group_of(kind, !in_a, other);
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Comm_size(inter, &lsize));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
  CHECK_MPI(MPI_Comm_rank(inter, &lrank));
  CHECK(lsize == nmine && rsize == nother);
  CHECK(mine[lrank] == world_rank());
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(inter, &g));
  check_group(g, mine, nmine);
  MPI_Group_free(&g);
  CHECK_MPI(MPI_Comm_remote_group(inter, &g));
  check_group(g, other, nother);
  MPI_Group_free(&g);
}

/* Local rank r sends an eager and a rendezvous message to every remote rank; every process receives
 * them from MPI_ANY_SOURCE (probed first) and checks source, tag and bytes. */
static void exchange(MPI_Comm inter, unsigned salt) {
  int r, m;
  MPI_Comm_rank(inter, &r);
  MPI_Comm_remote_size(inter, &m);
  size_t sizes[2] = {kSmall, kLarge};
  for (int k = 0; k < 2; ++k) {
    unsigned char *out = malloc(sizes[k]), *in = malloc(sizes[k]);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)m);
    fill_pattern(out, sizes[k], salt * 1000u + (unsigned)r);
    for (int j = 0; j < m; ++j) CHECK_MPI(MPI_Isend(out, (int)sizes[k], MPI_BYTE, j, 5 + k, inter, &rq[j]));
    int seen[64] = {0};
    for (int j = 0; j < m; ++j) { /* one from each remote rank */
      MPI_Status st;
      int count = -1;
      if (k == 0) {
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 5, inter, &flag, &st));
      } else {
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 6, inter, &st));
      }
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < m && st.MPI_TAG == 5 + k);
      int src = st.MPI_SOURCE;
      memset(in, 0, sizes[k]);
      CHECK_MPI(MPI_Recv(in, (int)sizes[k], MPI_BYTE, src, 5 + k, inter, &st));
      CHECK(st.MPI_SOURCE == src);
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)sizes[k]);
      CHECK(check_pattern(in, sizes[k], salt * 1000u + (unsigned)src) == -1);
      CHECK(!seen[src]);
      seen[src] = 1;
    }
    CHECK_MPI(MPI_Waitall(m, rq, MPI_STATUSES_IGNORE));
    free(rq);
    free(out);
    free(in);
  }
}

/* Sendrecv with remote rank r % m, persistent send/recv, and a message that must not reach the local
 * communicator (same tag, same ranks) or the intercommunicator's duplicate. */
static void pairs(MPI_Comm inter, MPI_Comm local, MPI_Comm dup, int in_a) {
  int r, n, m;
  MPI_Comm_rank(inter, &r);
  MPI_Comm_size(inter, &n);
  MPI_Comm_remote_size(inter, &m);
  /* Each process picks remote rank r % m, which picks r % m % n back: a pair where that is r. */
  int peer = r % m;
  (void)in_a;
  if (peer % n == r) {
    int out[4] = {world_rank(), r, 11, 12}, in[4] = {-1, -1, -1, -1};
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, 4, MPI_INT, peer, 9, in, 4, MPI_INT, peer, 9, inter, &st));
    CHECK(st.MPI_SOURCE == peer && in[1] == peer && in[2] == 11);
    /* Persistent: started twice. */
    MPI_Request rq[2];
    CHECK_MPI(MPI_Send_init(out, 4, MPI_INT, peer, 10, inter, &rq[0]));
    CHECK_MPI(MPI_Recv_init(in, 4, MPI_INT, peer, 10, inter, &rq[1]));
    for (int t = 0; t < 2; ++t) {
      out[3] = 100 + t;
      memset(in, 0xff, sizeof in);
      CHECK_MPI(MPI_Startall(2, rq));
      CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
      CHECK(in[1] == peer && in[3] == 100 + t);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
  }
  /* Isolation: tag 3 sent on the intercommunicator (to remote rank 0) and on the local communicator
   * (to local rank 0); each arrives only where it was sent, even with MPI_ANY_SOURCE. */
  int v_inter = 1000 + world_rank(), v_local = 2000 + world_rank(), v_dup = 3000 + world_rank();
  MPI_Request s[3];
  CHECK_MPI(MPI_Isend(&v_dup, 1, MPI_INT, 0, 3, dup, &s[2]));
  CHECK_MPI(MPI_Isend(&v_local, 1, MPI_INT, 0, 3, local, &s[1]));
  CHECK_MPI(MPI_Isend(&v_inter, 1, MPI_INT, 0, 3, inter, &s[0]));
  if (r == 0) {
    for (int j = 0; j < m; ++j) { /* one from each remote rank */
      int got = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st));
      CHECK(got >= 1000 && got < 2000);
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 3, dup, MPI_STATUS_IGNORE));
      CHECK(got >= 3000);
    }
    for (int j = 0; j < n; ++j) {
      int got = -1;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, local, MPI_STATUS_IGNORE));
      CHECK(got >= 2000 && got < 3000);
    }
  }
  CHECK_MPI(MPI_Waitall(3, s, MPI_STATUSES_IGNORE));
  /* Receiving from MPI_PROC_NULL, and bad ranks name the remote group's size. */
  MPI_Status st;
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, inter, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int rc = MPI_Send(&r, 1, MPI_INT, m, 0, inter);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
}

static int g_deleted;
static int delete_fn(MPI_Comm c, int key, void *val, void *extra) {
  (void)c;
  (void)key;
  (void)val;
  (void)extra;
  ++g_deleted;
  return MPI_SUCCESS;
}

/* Merged: group A first when A passes high = 0 (B passes 1), B first the other way round, and
 * world rank 0's group first when both pass the same flag. */
static void check_merge(MPI_Comm inter, int kind, int in_a) {
  int a[64], b[64];
  int na = group_of(kind, 1, a), nb = group_of(kind, 0, b);
  for (int order = 0; order < 3; ++order) {
    int high = order == 0 ? !in_a : order == 1 ? in_a : 1;
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(inter, high, &merged));
    int size = -1, rank = -1, flag = 1;
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_test_inter(merged, &flag);
    CHECK(size == na + nb && flag == 0);
    int expect[128];
    const int *first = order == 1 ? b : a, *second = order == 1 ? a : b;
    int nfirst = order == 1 ? nb : na, nsecond = order == 1 ? na : nb;
    for (int i = 0; i < nfirst; ++i) expect[i] = first[i];
    for (int i = 0; i < nsecond; ++i) expect[nfirst + i] = second[i];
    CHECK(expect[rank] == world_rank());
    /* The merged communicator works: an allreduce of world ranks. */
    int sum = 0, me = world_rank();
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == size * (size - 1) / 2);
    MPI_Comm_free(&merged);
  }
}

/* Dup (congruent, attributes copied), split by local rank parity, create of the first local rank. */
static void check_constructors(MPI_Comm inter, int kind, int in_a) {
  int key;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &key, NULL));
  static int value = 42;
  CHECK_MPI(MPI_Comm_set_attr(inter, key, &value));
  CHECK_MPI(MPI_Comm_set_name(inter, "my intercomm"));
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  CHECK_MPI(MPI_Comm_get_name(inter, name, &len));
  CHECK(strcmp(name, "my intercomm") == 0 && len == 12);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(inter, &dup));
  int result = -1, flag = 0;
  void *got = NULL;
  CHECK_MPI(MPI_Comm_compare(inter, dup, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_compare(inter, inter, &result));
  CHECK(result == MPI_IDENT);
  CHECK_MPI(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL);
  CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Comm_get_attr(dup, key, &got, &flag));
  CHECK(flag == 1 && got == &value);
  exchange(dup, 7);
  g_deleted = 0;
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK(g_deleted == 1 && dup == MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_delete_attr(inter, key));
  CHECK_MPI(MPI_Comm_free_keyval(&key));

  /* Split: color = local rank % 2, key = -rank (reversed). */
  int r, n, m;
  MPI_Comm_rank(inter, &r);
  MPI_Comm_size(inter, &n);
  MPI_Comm_remote_size(inter, &m);
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_split(inter, r % 2, -r, &sub));
  int nlocal = (n - r % 2 + 1) / 2, nremote = (m - r % 2 + 1) / 2;
  if (nremote == 0) {
    CHECK(sub == MPI_COMM_NULL);
  } else {
    int s = -1, sr = -1, rs = -1;
    CHECK(sub != MPI_COMM_NULL);
    MPI_Comm_size(sub, &s);
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_remote_size(sub, &rs);
    CHECK(s == nlocal && rs == nremote && sr == nlocal - 1 - r / 2);
    exchange(sub, 8);
    MPI_Comm_free(&sub);
  }
  /* Undefined color: no communicator. */
  CHECK_MPI(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &sub));
  CHECK(sub == MPI_COMM_NULL);
  /* Create: the local group's rank 0 only, on both sides. */
  MPI_Group g, first;
  int zero = 0;
  MPI_Comm_group(inter, &g);
  MPI_Group_incl(g, 1, &zero, &first);
  CHECK_MPI(MPI_Comm_create(inter, first, &sub));
  if (r == 0) {
    int s = -1, rs = -1;
    CHECK(sub != MPI_COMM_NULL);
    MPI_Comm_size(sub, &s);
    MPI_Comm_remote_size(sub, &rs);
    CHECK(s == 1 && rs == 1);
    exchange(sub, 9);
    MPI_Comm_free(&sub);
  } else {
    CHECK(sub == MPI_COMM_NULL);
  }
  MPI_Group_free(&first);
  MPI_Group_free(&g);
  (void)kind;
  (void)in_a;
}

/* Errors, made alike on every member (so nobody waits), checked only under libtakyon_mpi (other
 * libraries differ or wait): bad arguments of the constructors and collectives, intracommunicator
 * calls on an intercommunicator and the reverse. */
static void check_errors(MPI_Comm inter, MPI_Comm local) {
  MPI_Comm nc = MPI_COMM_NULL;
  int rank = world_rank(), x = 1, y = 0, size = 0;
  MPI_Group g;
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_error("intercomm_merge of an intracommunicator", MPI_Intercomm_merge(local, 0, &nc), MPI_ERR_COMM);
  expect_error("comm_remote_group of an intracommunicator", MPI_Comm_remote_group(local, &g), MPI_ERR_COMM);
  expect_error("intercomm_create over an intercommunicator",
               MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &nc), MPI_ERR_COMM);
  expect_error("intercomm_create of MPI_COMM_NULL",
               MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &nc), MPI_ERR_COMM);
  expect_error("comm_split_type of an intercommunicator",
               MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc), MPI_ERR_COMM);
  MPI_Comm_group(inter, &g);
  expect_error("comm_create_group of an intercommunicator", MPI_Comm_create_group(inter, g, 0, &nc),
               MPI_ERR_COMM);
  MPI_Group_free(&g);
  expect_error("bcast with a root outside the remote group", MPI_Bcast(&x, 1, MPI_INT, 1000, inter),
               MPI_ERR_ROOT);
  expect_error("allreduce in place on an intercommunicator",
               MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
  expect_error("exscan on an intercommunicator", MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter),
               MPI_ERR_COMM);
  /* Every leader names a remote leader that does not exist: the leaders fail with MPI_ERR_RANK and
   * tell their groups (MPI_ERR_OTHER), nobody waits. */
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int lrank = -1;
  MPI_Comm_rank(local, &lrank);
  expect_error("intercomm_create with a bad remote_leader",
               MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, size, 1, &nc),
               lrank == 0 ? MPI_ERR_RANK : MPI_ERR_OTHER);
  /* World rank 0 passes no result pointer: it fails with MPI_ERR_ARG, everyone else in both groups with
   * MPI_ERR_OTHER naming it. */
  int remote_leader = rank % 2 == 0 ? 1 : 0;
  expect_error("intercomm_create with newintercomm NULL on world rank 0",
               MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 2, rank == 0 ? NULL : &nc),
               rank == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER);
  expect_error("intercomm_merge with newintracomm NULL on world rank 0",
               MPI_Intercomm_merge(inter, 0, rank == 0 ? NULL : &nc),
               rank == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(local, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (world_size() < 2) {
    PRINT0("intercomm: needs 2 or more ranks\n");
    MPI_Finalize();
    return 0;
  }
  for (int kind = 0; kind < 2; ++kind) {
    MPI_Comm local, inter, dup;
    int in_a;
    inter = make_inter(kind, &local, &in_a);
    check_shape(inter, kind, in_a);
    exchange(inter, 1 + (unsigned)kind);
    CHECK_MPI(MPI_Comm_dup(inter, &dup));
    pairs(inter, local, dup, in_a);
    MPI_Comm_free(&dup);
    check_merge(inter, kind, in_a);
    check_constructors(inter, kind, in_a);
    if (kind == 0 && takyon_mpi()) check_errors(inter, local);
    /* An intracommunicator has no remote group (Open MPI answers 0: checked here only). */
    if (takyon_mpi()) {
      int remote = -1, cls = -1;
      MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
      MPI_Error_class(MPI_Comm_remote_size(local, &remote), &cls);
      CHECK(cls == MPI_ERR_COMM);
    }
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
    PRINT0("kind %d: intercommunicators, point-to-point, merge and constructors ok\n", kind);
  }
  MPI_Finalize();
  return 0;
}
