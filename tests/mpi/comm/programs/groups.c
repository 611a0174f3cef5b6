/* SPDX-License-Identifier: MIT */
/* Every group operation: Comm_group, size, rank, incl, excl, range_incl / range_excl with strides
 * (positive, negative, several triplets), union, intersection, difference, translate_ranks (with
 * MPI_PROC_NULL and ranks absent from the other group: MPI_UNDEFINED), compare (IDENT, SIMILAR,
 * UNEQUAL), MPI_GROUP_EMPTY, free. Each group is printed as its world ranks. np 1-5. */
#include "test_util.h"

static MPI_Group world_group;

static const char *rank_text(int r, char *buf) {
  if (r == MPI_UNDEFINED) return "UNDEFINED";
  if (r == MPI_PROC_NULL) return "PROC_NULL";
  sprintf(buf, "%d", r);
  return buf;
}

/* Prints `g` as the world ranks of its members, and this rank's rank in it (rank 0 prints). */
static void show(const char *name, MPI_Group g) {
  int n = -1, me = -2, ranks[16], world[16];
  char line[256] = "", buf[16];
  CHECK_MPI(MPI_Group_size(g, &n));
  CHECK(n >= 0 && n <= 16);
  CHECK_MPI(MPI_Group_rank(g, &me));
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world_group, world));
  for (int i = 0; i < n; ++i) {
    size_t len = strlen(line);
    snprintf(line + len, sizeof line - len, "%s%d", i ? " " : "", world[i]);
  }
  PRINT0("%s: size %d [%s] rank of 0: %s\n", name, n, line, rank_text(me, buf));
}

static const char *cmp_name(int r) {
  switch (r) {
    case MPI_IDENT:
      return "IDENT";
    case MPI_SIMILAR:
      return "SIMILAR";
    case MPI_UNEQUAL:
      return "UNEQUAL";
  }
  return "?";
}

static void compare(const char *what, MPI_Group a, MPI_Group b) {
  int r = -1;
  CHECK_MPI(MPI_Group_compare(a, b, &r));
  PRINT0("compare(%s) = %s\n", what, cmp_name(r));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  int me = -1;
  CHECK_MPI(MPI_Group_rank(world_group, &me));
  CHECK(me == rank);
  show("world", world_group);

  int ranks[16];
  MPI_Group rev, evens, odds, no0, half, g;
  for (int i = 0; i < size; ++i) ranks[i] = size - 1 - i;
  CHECK_MPI(MPI_Group_incl(world_group, size, ranks, &rev));
  show("incl reversed", rev);
  CHECK_MPI(MPI_Group_rank(rev, &me));
  CHECK(me == size - 1 - rank);
  int r0 = 0;
  CHECK_MPI(MPI_Group_excl(world_group, 1, &r0, &no0));
  show("excl 0", no0);

  /* ranges */
  int r1[1][3] = {{0, size - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world_group, 1, r1, &evens));
  show("range_incl 0..size-1 stride 2", evens);
  int r2[1][3] = {{size - 1, 0, -2}};
  CHECK_MPI(MPI_Group_range_incl(world_group, 1, r2, &g));
  show("range_incl size-1..0 stride -2", g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL);
  int r3[2][3] = {{size - 1, size - 1, 1}, {0, size - 2 >= 0 ? size - 2 : 0, 3}};
  CHECK_MPI(MPI_Group_range_incl(world_group, size > 1 ? 2 : 1, r3, &g));
  show("range_incl {last}, 0..size-2 stride 3", g);
  CHECK_MPI(MPI_Group_free(&g));
  if (size > 1) {
    int r4[1][3] = {{1, size - 1, 2}};
    CHECK_MPI(MPI_Group_range_excl(world_group, 1, r4, &odds));
    compare("range_excl odds, evens", odds, evens);
    CHECK_MPI(MPI_Group_free(&odds));
    CHECK_MPI(MPI_Group_range_incl(world_group, 1, r4, &odds));
  } else {
    odds = MPI_GROUP_EMPTY;
    PRINT0("compare(range_excl odds, evens) = IDENT\n");
  }
  show("odds", odds);
  int r5[2][3] = {{0, 0, 1}, {size - 1, size - 1, -1}};
  CHECK_MPI(MPI_Group_range_excl(rev, size > 1 ? 2 : 1, r5, &g));
  show("range_excl of reversed: first and last", g);
  CHECK_MPI(MPI_Group_free(&g));

  /* set operations */
  for (int i = 0; i < (size + 1) / 2; ++i) ranks[i] = (size + 1) / 2 - 1 - i;
  CHECK_MPI(MPI_Group_incl(world_group, (size + 1) / 2, ranks, &half));
  show("first half, reversed", half);
  CHECK_MPI(MPI_Group_union(half, evens, &g));
  show("union(half, evens)", g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_union(evens, odds, &g));
  show("union(evens, odds)", g);
  compare("union(evens, odds), world", g, world_group);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(half, evens, &g));
  show("intersection(half, evens)", g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(evens, odds, &g));
  show("intersection(evens, odds)", g);
  compare("intersection(evens, odds), MPI_GROUP_EMPTY", g, MPI_GROUP_EMPTY);
  if (g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(world_group, half, &g));
  show("difference(world, half)", g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(evens, world_group, &g));
  show("difference(evens, world)", g);
  if (g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&g));

  /* translate_ranks: PROC_NULL stays, absent ranks are UNDEFINED */
  {
    int in[4] = {MPI_PROC_NULL, 0, size - 1, size / 2}, out[4], n = 4;
    char line[128] = "", buf[16];
    CHECK_MPI(MPI_Group_translate_ranks(world_group, n, in, evens, out));
    for (int i = 0; i < n; ++i) {
      size_t len = strlen(line);
      snprintf(line + len, sizeof line - len, "%s%s", i ? " " : "", rank_text(out[i], buf));
    }
    PRINT0("translate PROC_NULL, 0, size-1, size/2 from world to evens: %s\n", line);
    line[0] = '\0';
    CHECK_MPI(MPI_Group_translate_ranks(world_group, n, in, rev, out));
    for (int i = 0; i < n; ++i) {
      size_t len = strlen(line);
      snprintf(line + len, sizeof line - len, "%s%s", i ? " " : "", rank_text(out[i], buf));
    }
    PRINT0("translate them to reversed: %s\n", line);
    CHECK_MPI(MPI_Group_translate_ranks(world_group, 0, in, rev, out));
  }

  /* compare */
  MPI_Comm d;
  MPI_Group dg;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_group(d, &dg));
  compare("world, group of a dup", world_group, dg);
  compare("world, reversed", world_group, rev);
  compare("world, evens", world_group, evens);
  compare("evens, evens", evens, evens);
  CHECK_MPI(MPI_Group_free(&dg));
  CHECK_MPI(MPI_Comm_free(&d));

  /* the group of a split communicator, and of MPI_COMM_SELF */
  MPI_Comm s;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &s));
  CHECK_MPI(MPI_Comm_group(s, &g));
  show("group of split(parity, -rank) on rank 0", g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_free(&s));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &g));
  show("group of SELF on rank 0", g);
  CHECK_MPI(MPI_Group_free(&g));

  /* MPI_GROUP_EMPTY */
  int n = -1;
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &n));
  CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &me));
  CHECK(n == 0 && me == MPI_UNDEFINED);
  CHECK_MPI(MPI_Group_incl(world_group, 0, ranks, &g));
  compare("incl of none, MPI_GROUP_EMPTY", g, MPI_GROUP_EMPTY);
  if (g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&g));
  for (int i = 0; i < size; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_excl(world_group, size, ranks, &g));
  CHECK_MPI(MPI_Group_size(g, &n));
  PRINT0("excl of all: size %d\n", n);
  if (g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, world_group, &g));
  compare("union(MPI_GROUP_EMPTY, world), world", g, world_group);
  CHECK_MPI(MPI_Group_free(&g));

  CHECK_MPI(MPI_Group_free(&half));
  if (odds != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&odds));
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&no0));
  CHECK_MPI(MPI_Group_free(&rev));
  CHECK_MPI(MPI_Group_free(&world_group));
  MPI_Finalize();
  return 0;
}
