/* SPDX-License-Identifier: MIT */
/* Communicators made by Comm_split (parity, reversed keys, key ties, MPI_UNDEFINED, nested),
 * Comm_split_type(SHARED), Comm_create and Comm_create_group: each one's size and ranks, then a ring
 * of eager (probed first) and rendezvous messages and a barrier inside it, bytes checked; messages with the
 * same tag on communicators over the same ranks never match each other. np 1-5. */
#include "test_util.h"

enum { kSmall = 24, kLarge = 100000 };

/* Rank r sends two messages (eager, rendezvous) to r+1 and receives from r-1 inside `comm`; `salt`
 * tells communicators apart in the payload. */
static void ring(MPI_Comm comm, unsigned salt) {
  int r, n;
  CHECK_MPI(MPI_Comm_rank(comm, &r));
  CHECK_MPI(MPI_Comm_size(comm, &n));
  int to = (r + 1) % n, from = (r + n - 1) % n;
  size_t sizes[2] = {kSmall, kLarge};
  for (int k = 0; k < 2; ++k) {
    unsigned char *out = malloc(sizes[k]), *in = malloc(sizes[k]);
    fill_pattern(out, sizes[k], salt * 100u + (unsigned)r);
    memset(in, 0, sizes[k]);
    MPI_Request rq;
    MPI_Status st;
    int count = -1;
    if (k == 0) { /* eager: probe it first (the source is a rank of `comm`) */
      CHECK_MPI(MPI_Isend(out, (int)sizes[k], MPI_BYTE, to, 7, comm, &rq));
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 7, comm, &st));
      CHECK(st.MPI_SOURCE == from);
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)sizes[k]);
      CHECK_MPI(MPI_Recv(in, (int)sizes[k], MPI_BYTE, MPI_ANY_SOURCE, 7, comm, &st));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Irecv(in, (int)sizes[k], MPI_BYTE, from, 7, comm, &rq));
      CHECK_MPI(MPI_Send(out, (int)sizes[k], MPI_BYTE, to, 7, comm));
      CHECK_MPI(MPI_Wait(&rq, &st));
    }
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 7);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == (int)sizes[k]);
    CHECK(check_pattern(in, sizes[k], salt * 100u + (unsigned)from) == -1);
    free(out);
    free(in);
  }
  CHECK_MPI(MPI_Barrier(comm));
}

/* Checks `comm`'s size and this process's rank; runs the ring. */
static void expect_comm(MPI_Comm comm, int size, int rank, unsigned salt) {
  int s = -1, r = -1;
  CHECK(comm != MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_size(comm, &s));
  CHECK_MPI(MPI_Comm_rank(comm, &r));
  if (s != size || r != rank) {
    fprintf(stderr, "rank %d: salt %u: size %d rank %d, expected %d %d\n", world_rank(), salt, s, r, size,
            rank);
    MPI_Abort(MPI_COMM_WORLD, 5);
  }
  ring(comm, salt);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Comm c;

  /* parity, key = rank */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c));
  int nsame = (size - rank % 2 + 1) / 2;
  expect_comm(c, nsame, rank / 2, 1);
  /* nested: split the parity communicator in halves by its own rank (keys reversed) */
  {
    int pr;
    MPI_Comm half;
    MPI_Comm_rank(c, &pr);
    int lower = pr < (nsame + 1) / 2;
    CHECK_MPI(MPI_Comm_split(c, lower, -pr, &half));
    int hs = lower ? (nsame + 1) / 2 : nsame / 2;
    int hr = lower ? (nsame + 1) / 2 - 1 - pr : nsame - 1 - pr;
    expect_comm(half, hs, hr, 2);
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK(half == MPI_COMM_NULL);
  }
  CHECK_MPI(MPI_Comm_free(&c));
  PRINT0("split by parity: ok (nested halves ok)\n");

  /* reversed keys */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c));
  expect_comm(c, size, size - 1 - rank, 3);
  CHECK_MPI(MPI_Comm_free(&c));
  /* key ties broken by the old rank: key = rank / 2 keeps the order */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 5, rank / 2, &c));
  expect_comm(c, size, rank, 4);
  CHECK_MPI(MPI_Comm_free(&c));
  /* all keys equal, colors 3 and 9 (colors need not be small) */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 3 : 9, 0, &c));
  expect_comm(c, rank < size / 2 ? size / 2 : size - size / 2, rank < size / 2 ? rank : rank - size / 2, 5);
  CHECK_MPI(MPI_Comm_free(&c));
  PRINT0("split with reversed keys, key ties, large colors: ok\n");

  /* MPI_UNDEFINED: rank 0 stays out */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &c));
  if (rank == 0) {
    CHECK(c == MPI_COMM_NULL);
  } else {
    expect_comm(c, size - 1, rank - 1, 6);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  /* everyone MPI_UNDEFINED */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c));
  CHECK(c == MPI_COMM_NULL);
  PRINT0("split with MPI_UNDEFINED: ok\n");

  /* split_type SHARED: one host here (libtakyon_mpi with TAKYON_MPI_FAKE_HOST=rank: one per rank),
   * keys reversed; MPI_UNDEFINED gives MPI_COMM_NULL */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c));
  const char *fake = getenv("TAKYON_MPI_FAKE_HOST");
  if (fake != NULL && strcmp(fake, "rank") == 0) {
    expect_comm(c, 1, 0, 7);
  } else {
    expect_comm(c, size, size - 1 - rank, 7);
  }
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
  CHECK(c == MPI_COMM_NULL);
  PRINT0("split_type shared: ok\n");

  /* Comm_create: the even ranks in reverse order; odd ranks get MPI_COMM_NULL */
  {
    MPI_Group world_group, evens;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    int ne = (size + 1) / 2, ranks[8];
    for (int i = 0; i < ne; ++i) ranks[i] = 2 * (ne - 1 - i);
    CHECK_MPI(MPI_Group_incl(world_group, ne, ranks, &evens));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (rank % 2 == 0) {
      expect_comm(c, ne, ne - 1 - rank / 2, 8);
      CHECK_MPI(MPI_Comm_free(&c));
    } else {
      CHECK(c == MPI_COMM_NULL);
    }
    /* Comm_create_group: evens and odds each create theirs with the same tag, concurrently */
    MPI_Group mine;
    int nm = rank % 2 == 0 ? ne : size / 2;
    for (int i = 0; i < nm; ++i) ranks[i] = 2 * i + rank % 2;
    CHECK_MPI(MPI_Group_incl(world_group, nm, ranks, &mine));
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 42, &c));
    expect_comm(c, nm, rank / 2, 9);
    /* the new communicator can create its own: a group of its rank 0 only */
    MPI_Group cg, first;
    int zero = 0;
    CHECK_MPI(MPI_Comm_group(c, &cg));
    CHECK_MPI(MPI_Group_incl(cg, 1, &zero, &first));
    MPI_Comm solo;
    CHECK_MPI(MPI_Comm_create_group(c, first, 0, &solo));
    if (rank / 2 == 0) {
      expect_comm(solo, 1, 0, 10);
      CHECK_MPI(MPI_Comm_free(&solo));
    } else {
      CHECK(solo == MPI_COMM_NULL);
    }
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Group_free(&cg));
    CHECK_MPI(MPI_Group_free(&first));
    CHECK_MPI(MPI_Group_free(&mine));
    CHECK_MPI(MPI_Group_free(&evens));
    CHECK_MPI(MPI_Group_free(&world_group));
  }
  PRINT0("comm_create and comm_create_group: ok\n");

  /* No cross-matching: a dup of WORLD has the same ranks; each rank sends to the next on the dup
   * first, then on WORLD, same tag; wildcard receives posted on WORLD first must get WORLD's. */
  {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int to = (rank + 1) % size;
    int on_dup = 1000 + rank, on_world = 2000 + rank, got_world = -1, got_dup = -1;
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK_MPI(MPI_Irecv(&got_world, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Send(&on_dup, 1, MPI_INT, to, 3, d));
    CHECK_MPI(MPI_Send(&on_world, 1, MPI_INT, to, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Irecv(&got_dup, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, st));
    int from = (rank + size - 1) % size;
    CHECK(got_world == 2000 + from && got_dup == 1000 + from);
    CHECK(st[0].MPI_SOURCE == from && st[1].MPI_SOURCE == from);
    /* the same between two splits over the same ranks, and after freeing one, a new one */
    MPI_Comm a, b;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &a));
    CHECK_MPI(MPI_Comm_split(d, 0, rank, &b));
    int va = 10 + rank, vb = 20 + rank, ga = -1, gb = -1;
    CHECK_MPI(MPI_Irecv(&ga, 1, MPI_INT, MPI_ANY_SOURCE, 0, a, &rq[0]));
    CHECK_MPI(MPI_Send(&vb, 1, MPI_INT, to, 0, b));
    CHECK_MPI(MPI_Send(&va, 1, MPI_INT, to, 0, a));
    CHECK_MPI(MPI_Recv(&gb, 1, MPI_INT, from, 0, b, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(ga == 10 + from && gb == 20 + from);
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_dup(b, &a));
    expect_comm(a, size, rank, 11);
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free(&b));
    CHECK_MPI(MPI_Comm_free(&d));
  }
  PRINT0("messages on different communicators never match: ok\n");

  /* many communicators alive at once, freed in creation order; the last one stays alive through
   * MPI_Finalize */
  {
    MPI_Comm many[40];
    for (int i = 0; i < 40; ++i)
      CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, i % 3 == rank % 3 ? 0 : 1, rank, &many[i]));
    for (int i = 0; i < 40; i += 13) ring(many[i], 12);
    for (int i = 0; i < 39; ++i) CHECK_MPI(MPI_Comm_free(&many[i]));
    ring(many[39], 13);
  }
  PRINT0("40 communicators alive at once: ok\n");
  MPI_Finalize();
  return 0;
}
