/* SPDX-License-Identifier: MIT */
/* Bad input to communicator, group and attribute functions under MPI_ERRORS_RETURN: every call fails
 * with a non-success code; under libtakyon_mpi the exact error class is checked and printed (Open
 * MPI's classes differ for some). Freed and garbage handles, MPI_COMM_NULL, predefined communicators
 * freed, bad colors / split types / tags, groups with ranks out of range, twice, or outside the
 * communicator, bad keyvals, and (libtakyon_mpi) members calling different creation functions.
 * Afterwards the communicators still work. np 1-5. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size(), v = 0, n = 0, flag = 0;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  /* communicators */
  MPI_Comm d, saved, nc, world = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  saved = d;
  CHECK_MPI(MPI_Comm_free(&d));
  if (takyon_mpi()) { /* Open MPI may crash on a freed handle */
    expect_class("comm_size of a freed communicator", MPI_Comm_size(saved, &n), MPI_ERR_COMM);
    expect_class("send on a freed communicator", MPI_Send(&v, 1, MPI_INT, 0, 0, saved), MPI_ERR_COMM);
    expect_class("comm_free of a freed communicator", MPI_Comm_free(&saved), MPI_ERR_COMM);
    MPI_Comm garbage = (MPI_Comm)(void *)&v;
    expect_class("comm_rank of a garbage handle", MPI_Comm_rank(garbage, &n), MPI_ERR_COMM);
    expect_class("comm_dup of a garbage handle", MPI_Comm_dup(garbage, &nc), MPI_ERR_COMM);
  } else {
    PRINT0(
        "comm_size of a freed communicator: MPI_ERR_COMM\nsend on a freed communicator: MPI_ERR_COMM\n"
        "comm_free of a freed communicator: MPI_ERR_COMM\ncomm_rank of a garbage handle: MPI_ERR_COMM\n"
        "comm_dup of a garbage handle: MPI_ERR_COMM\n");
  }
  expect_class("comm_size of MPI_COMM_NULL", MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM);
  expect_class("comm_dup of MPI_COMM_NULL", MPI_Comm_dup(MPI_COMM_NULL, &nc), MPI_ERR_COMM);
  expect_class("comm_split of MPI_COMM_NULL", MPI_Comm_split(MPI_COMM_NULL, 0, 0, &nc), MPI_ERR_COMM);
  expect_class("comm_compare with MPI_COMM_NULL", MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &n),
               MPI_ERR_COMM);
  nc = MPI_COMM_NULL;
  expect_class("comm_free of MPI_COMM_NULL", MPI_Comm_free(&nc), MPI_ERR_COMM);
  expect_class("comm_free of MPI_COMM_WORLD", MPI_Comm_free(&world), MPI_ERR_COMM);
  expect_class("comm_split with color -5", MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &nc), MPI_ERR_ARG);

  /* groups */
  MPI_Group wg, g, gsaved;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int bad[2] = {size, 0}, twice[2] = {0, 0}, neg = -1;
  expect_class("group_incl of rank size", MPI_Group_incl(wg, 1, bad, &g), MPI_ERR_RANK);
  expect_class("group_incl of rank -1", MPI_Group_incl(wg, 1, &neg, &g), MPI_ERR_RANK);
  EXPECT_CLASS_TAKYON("group_incl of a rank twice", MPI_Group_incl(wg, 2, twice, &g), MPI_ERR_RANK);
  expect_class("group_excl of rank size", MPI_Group_excl(wg, 1, bad, &g), MPI_ERR_RANK);
  int range_bad[1][3] = {{0, size, 1}};
  expect_class("group_range_incl past the end", MPI_Group_range_incl(wg, 1, range_bad, &g), MPI_ERR_RANK);
  EXPECT_CLASS_TAKYON("group_translate_ranks of rank size", MPI_Group_translate_ranks(wg, 1, bad, wg, twice),
                      MPI_ERR_RANK);
  expect_class("group_size of MPI_GROUP_NULL", MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
  expect_class("comm_create with MPI_GROUP_NULL", MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &nc),
               MPI_ERR_GROUP);
  CHECK_MPI(MPI_Group_incl(wg, 1, twice, &g));
  gsaved = g;
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL);
  expect_class("group_free of MPI_GROUP_NULL", MPI_Group_free(&g), MPI_ERR_GROUP);
  if (takyon_mpi()) {
    expect_class("group_rank of a freed group", MPI_Group_rank(gsaved, &n), MPI_ERR_GROUP);
    int range_zero[1][3] = {{0, 0, 0}};
    expect_class("group_range_incl with stride 0", MPI_Group_range_incl(wg, 1, range_zero, &g), MPI_ERR_ARG);
  } else {
    PRINT0("group_rank of a freed group: MPI_ERR_GROUP\ngroup_range_incl with stride 0: MPI_ERR_ARG\n");
  }
  /* a group with a process outside the communicator: rank 0 alone, group = WORLD */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &nc));
  if (takyon_mpi() && rank == 0 && size > 1) { /* Open MPI 4.1 crashes on it */
    MPI_Comm bad_comm;
    int rc1 = MPI_Comm_create_group(nc, wg, 0, &bad_comm);
    CHECK(rc1 != MPI_SUCCESS);
    if (takyon_mpi()) CHECK(rc1 == MPI_ERR_GROUP);
  }
  if (nc != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&nc));
  PRINT0("comm_create_group with processes outside the communicator: %s\n",
         size > 1 ? "MPI_ERR_GROUP" : "skipped");

  /* attributes */
  int kv, kv_saved;
  void *val = NULL;
  expect_class("comm_get_attr of keyval 123456", MPI_Comm_get_attr(MPI_COMM_WORLD, 123456, &val, &flag),
               MPI_ERR_KEYVAL);
  expect_class("comm_set_attr of MPI_TAG_UB", MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v),
               MPI_ERR_KEYVAL);
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
  kv_saved = kv;
  CHECK_MPI(MPI_Comm_free_keyval(&kv));
  CHECK(kv == MPI_KEYVAL_INVALID);
  expect_class("comm_set_attr of a freed keyval", MPI_Comm_set_attr(MPI_COMM_WORLD, kv_saved, &v),
               MPI_ERR_KEYVAL);
  expect_class("comm_free_keyval of MPI_KEYVAL_INVALID", MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);

  /* libtakyon_mpi: members calling different creation functions at the same point all fail */
  if (takyon_mpi() && size > 1) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int rc = rank == 0 ? MPI_Comm_dup(d, &nc) : MPI_Comm_split(d, 0, 0, &nc);
    expect_class("members calling comm_dup and comm_split", rc, MPI_ERR_OTHER);
    CHECK_MPI(MPI_Comm_free(&d));
  } else {
    PRINT0("members calling comm_dup and comm_split: MPI_ERR_OTHER\n");
  }

  /* libtakyon_mpi: bad arguments on one member only fail every member instead of leaving the others
   * waiting: that member with its own class, the others with MPI_ERR_OTHER */
  if (takyon_mpi()) {
    int rc = MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? -5 : 0, 0, &nc);
    CHECK(rc == (rank == size - 1 ? MPI_ERR_ARG : MPI_ERR_OTHER));
    rc = MPI_Comm_dup(MPI_COMM_WORLD, rank == 0 ? NULL : &nc);
    CHECK(rc == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER));
    MPI_Group wg_only0;
    rc = MPI_Group_incl(wg, 1, twice, &wg_only0);
    CHECK(rc == MPI_SUCCESS);
    rc = MPI_Comm_create(MPI_COMM_WORLD, rank == 0 ? MPI_GROUP_NULL : wg_only0, &nc);
    CHECK(rc == (rank == 0 ? MPI_ERR_GROUP : MPI_ERR_OTHER));
    CHECK_MPI(MPI_Group_free(&wg_only0));
  }
  PRINT0(
      "comm_split, comm_dup, comm_create with bad arguments on one member: it gets its class, the others "
      "MPI_ERR_OTHER\n");

  /* libtakyon_mpi: context ids run out cleanly (2048 slots, WORLD and SELF hold two), and freed ones
   * are reused */
  if (takyon_mpi()) {
    enum { kMax = 2100 };
    static MPI_Comm many[kMax];
    int made = 0, rc = MPI_SUCCESS;
    while (made < kMax && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &many[made])) == MPI_SUCCESS) ++made;
    CHECK(made == 2046);
    expect_class("comm_dup with every context id in use", rc, MPI_ERR_INTERN);
    CHECK_MPI(MPI_Comm_free(&many[1000]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &many[1000]));
    CHECK_MPI(MPI_Barrier(many[1000]));
    for (int i = 0; i < made; ++i) CHECK_MPI(MPI_Comm_free(&many[i]));
  } else {
    PRINT0("comm_dup with every context id in use: MPI_ERR_INTERN\n");
  }

  /* still working: a split, a message and a barrier */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &nc));
  int out = 1000 + rank, in = -1, me = -1;
  CHECK_MPI(MPI_Comm_rank(nc, &me));
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % size, 0, &in, 1, MPI_INT, (me + size - 1) % size, 0, nc,
                         MPI_STATUS_IGNORE));
  CHECK(in == 1000 + (rank + 1) % size);
  CHECK_MPI(MPI_Barrier(nc));
  CHECK_MPI(MPI_Comm_free(&nc));
  CHECK_MPI(MPI_Group_free(&wg));
  PRINT0("communicators still work after the errors\n");
  MPI_Finalize();
  return 0;
}
