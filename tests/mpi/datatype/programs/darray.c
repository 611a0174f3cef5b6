/* SPDX-License-Identifier: MIT */
/* MPI_Type_create_darray: block, cyclic (with and without a block size) and undistributed dimensions,
 * MPI_DISTRIBUTE_DFLT_DARG, C and Fortran order, 1 to 3 dimensions, a process grid bigger than the job
 * (the type is built for every rank of the grid here). For each rank of the grid: size, extent, true
 * extent, MPI_Type_get_envelope, and the elements it selects from an array of indices (packed, in
 * typemap order); the ranks' elements together are every element once. Bad arguments fail (their
 * classes checked under libtakyon_mpi). np 1-3 (every rank alike). */
#include "test_util.h"

struct Config {
  const char *what;
  int ndims;
  int gsizes[3];
  int distribs[3];
  int dargs[3];
  int psizes[3];
  int order;
};

static void run(const struct Config *c) {
  int total = 1, nprocs = 1;
  for (int d = 0; d < c->ndims; ++d) {
    total *= c->gsizes[d];
    nprocs *= c->psizes[d];
  }
  int *array = (int *)malloc(sizeof(int) * (size_t)total);
  int *seen = (int *)calloc((size_t)total, sizeof(int));
  int *packed = (int *)malloc(sizeof(int) * (size_t)total + 1);
  for (int i = 0; i < total; ++i) array[i] = i;
  PRINT0("%s:\n", c->what);
  for (int r = 0; r < nprocs; ++r) {
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_darray(nprocs, r, c->ndims, c->gsizes, c->distribs, c->dargs, c->psizes,
                                     c->order, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    int size = -1;
    MPI_Aint lb, extent, tlb, textent;
    CHECK_MPI(MPI_Type_size(t, &size));
    CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
    CHECK_MPI(MPI_Type_get_true_extent(t, &tlb, &textent));
    int ni, na, nd, combiner;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_DARRAY && ni == 4 * c->ndims + 4 && na == 0 && nd == 1);
    int n = size / (int)sizeof(int);
    int pos = 0;
    CHECK_MPI(MPI_Pack(array, 1, t, packed, (int)sizeof(int) * total + 1, &pos, MPI_COMM_WORLD));
    CHECK(pos == size);
    char line[4096];
    /* An empty type's true bounds are not the standard's business (Open MPI prints garbage). */
    int at =
        size > 0
            ? snprintf(line, sizeof line, "  rank %d: size %d, lb %ld extent %ld, true lb %ld extent %ld:", r,
                       size, (long)lb, (long)extent, (long)tlb, (long)textent)
            : snprintf(line, sizeof line, "  rank %d: size 0, lb %ld extent %ld:", r, (long)lb, (long)extent);
    for (int i = 0; i < n; ++i) {
      CHECK(packed[i] >= 0 && packed[i] < total);
      ++seen[packed[i]];
      if (at < (int)sizeof line - 16) at += snprintf(line + at, sizeof line - (size_t)at, " %d", packed[i]);
    }
    PRINT0("%s\n", line);
    CHECK_MPI(MPI_Type_free(&t));
  }
  for (int i = 0; i < total; ++i) CHECK(seen[i] == 1);
  free(array);
  free(seen);
  free(packed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
            D = MPI_DISTRIBUTE_DFLT_DARG;
  const struct Config configs[] = {
      {"1d block, default", 1, {10}, {B}, {D}, {3}, MPI_ORDER_C},
      {"1d block of 5 (last rank empty)", 1, {10}, {B}, {5}, {3}, MPI_ORDER_C},
      {"1d cyclic, default", 1, {10}, {C}, {D}, {3}, MPI_ORDER_C},
      {"1d cyclic of 2", 1, {11}, {C}, {2}, {3}, MPI_ORDER_FORTRAN},
      {"2d block x block, C", 2, {5, 7}, {B, B}, {D, D}, {2, 3}, MPI_ORDER_C},
      {"2d block x block, Fortran", 2, {5, 7}, {B, B}, {D, D}, {2, 3}, MPI_ORDER_FORTRAN},
      {"2d cyclic(2) x block, C", 2, {6, 5}, {C, B}, {2, D}, {2, 2}, MPI_ORDER_C},
      {"2d none x cyclic, Fortran", 2, {4, 6}, {N, C}, {D, D}, {1, 4}, MPI_ORDER_FORTRAN},
      {"3d block x none x cyclic(2), C", 3, {4, 3, 5}, {B, N, C}, {D, D, 2}, {2, 1, 2}, MPI_ORDER_C},
      {"3d cyclic x block x block, Fortran",
       3,
       {3, 4, 2},
       {C, B, B},
       {D, D, D},
       {3, 2, 1},
       MPI_ORDER_FORTRAN},
  };
  for (size_t i = 0; i < sizeof configs / sizeof configs[0]; ++i) run(&configs[i]);

  /* A darray of a derived type, sent to the next rank and received as plain ints. */
  {
    MPI_Datatype pair, t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_SHORT, &pair));
    int gs[2] = {4, 6}, ds[2] = {B, C}, da[2] = {D, 2}, ps[2] = {2, 1};
    CHECK_MPI(MPI_Type_create_darray(2, 1, 2, gs, ds, da, ps, MPI_ORDER_C, pair, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    short a[48], got[24];
    for (int i = 0; i < 48; ++i) a[i] = (short)(1000 + i);
    int rank = world_rank(), size = world_size();
    MPI_Request req;
    CHECK_MPI(MPI_Irecv(got, 24, MPI_SHORT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Send(a, 1, t, (rank + 1) % size, 0, MPI_COMM_WORLD));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&req, &st));
    int n = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_SHORT, &n));
    CHECK(n == 24);
    /* Rank 1 of a 2 x 1 grid owns rows 2 and 3 (of 6 pairs each) whole. */
    for (int i = 0; i < 24; ++i) CHECK(got[i] == 1000 + 24 + i);
    PRINT0("darray of pairs sent: %d shorts, first %d last %d\n", n, got[0], got[23]);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&pair));
  }

  if (takyon_mpi()) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int gs[2] = {10, 4}, bs[2] = {B, B}, dflt[2] = {D, D}, small[2] = {2, D}, ps[2] = {3, 1},
        none[2] = {N, B};
    expect_class("darray: a block too small",
                 MPI_Type_create_darray(3, 0, 2, gs, bs, small, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    expect_class("darray: NONE over 3 processes",
                 MPI_Type_create_darray(3, 0, 2, gs, none, dflt, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    expect_class("darray: grid of 3 for size 4",
                 MPI_Type_create_darray(4, 0, 2, gs, bs, dflt, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    expect_class("darray: rank 3 of 3",
                 MPI_Type_create_darray(3, 3, 2, gs, bs, dflt, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_RANK);
    expect_class("darray: bad order", MPI_Type_create_darray(3, 0, 2, gs, bs, dflt, ps, 99, MPI_INT, &t),
                 MPI_ERR_ARG);
    expect_class("darray: ndims 0",
                 MPI_Type_create_darray(3, 0, 0, gs, bs, dflt, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_DIMS);
  } else {
    PRINT0(
        "darray: a block too small: MPI_ERR_ARG\ndarray: NONE over 3 processes: MPI_ERR_ARG\n"
        "darray: grid of 3 for size 4: MPI_ERR_ARG\ndarray: rank 3 of 3: MPI_ERR_RANK\n"
        "darray: bad order: MPI_ERR_ARG\ndarray: ndims 0: MPI_ERR_DIMS\n");
  }
  MPI_Finalize();
  return 0;
}
