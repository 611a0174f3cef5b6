/* SPDX-License-Identifier: MIT */
/* Comm_dup and what travels with it: Comm_compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL), attributes
 * with copy and delete callbacks (counted), MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN /
 * MPI_COMM_NULL_DELETE_FN, names, error handlers inherited by dup and split, Comm_free, and an
 * MPI_COMM_SELF attribute deleted at MPI_Finalize. np 1-5. */
#include "test_util.h"

static int copies, deletes, my_rank;
static long deleted_sum;

/* Copies the value plus one (a pointer-sized integer); declines to copy the value 99. */
static int copy_plus_one(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm;
  (void)keyval;
  CHECK(*(int *)extra == 77);
  ++copies;
  if ((long)(size_t)in == 99) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *(void **)out = (void *)(size_t)((long)(size_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  CHECK(*(int *)extra == 77);
  ++deletes;
  deleted_sum += (long)(size_t)value;
  return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval;
  (void)extra;
  CHECK(comm == MPI_COMM_SELF && (long)(size_t)value == 5);
  if (my_rank == 0) {
    printf("MPI_COMM_SELF attribute deleted at MPI_Finalize\n");
    fflush(stdout);
  }
  return MPI_SUCCESS;
}

static const char *cmp_name(int r) {
  switch (r) {
    case MPI_IDENT:
      return "IDENT";
    case MPI_CONGRUENT:
      return "CONGRUENT";
    case MPI_SIMILAR:
      return "SIMILAR";
    case MPI_UNEQUAL:
      return "UNEQUAL";
  }
  return "?";
}

static long get_long(MPI_Comm c, int keyval, int *flag) {
  void *v = NULL;
  CHECK_MPI(MPI_Comm_get_attr(c, keyval, &v, flag));
  return *flag ? (long)(size_t)v : -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size(), r;
  my_rank = rank;

  /* compare */
  MPI_Comm d, rev, par;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &par));
  CHECK_MPI(MPI_Comm_compare(d, d, &r));
  PRINT0("compare(dup, dup) = %s\n", cmp_name(r));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d, &r));
  PRINT0("compare(WORLD, dup) = %s\n", cmp_name(r));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, rev, &r));
  PRINT0("compare(WORLD, reversed split) = %s\n", cmp_name(r));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, par, &r));
  PRINT0("compare(WORLD, parity split) = %s\n", cmp_name(r));
  if (size > 1) {
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &r));
    PRINT0("compare(WORLD, SELF) = %s\n", cmp_name(r));
  }
  CHECK_MPI(MPI_Comm_free(&rev));
  CHECK_MPI(MPI_Comm_free(&par));

  /* a dup carries messages like its parent (bytes checked) */
  {
    unsigned char out[300], in[300];
    fill_pattern(out, sizeof out, (unsigned)rank);
    CHECK_MPI(MPI_Sendrecv(out, 300, MPI_BYTE, (rank + 1) % size, 1, in, 300, MPI_BYTE,
                           (rank + size - 1) % size, 1, d, MPI_STATUS_IGNORE));
    CHECK(check_pattern(in, sizeof in, (unsigned)((rank + size - 1) % size)) == -1);
  }

  /* attributes */
  int extra = 77, k_copy, k_nocopy, k_dup, k_plain;
  CHECK_MPI(MPI_Comm_create_keyval(copy_plus_one, count_delete, &k_copy, &extra));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &k_nocopy, &extra));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k_dup, &extra));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_plain, NULL));
  int flag = -1;
  CHECK(get_long(d, k_copy, &flag) == -1 && flag == 0);
  CHECK_MPI(MPI_Comm_set_attr(d, k_copy, (void *)(size_t)10));
  CHECK_MPI(MPI_Comm_set_attr(d, k_nocopy, (void *)(size_t)20));
  CHECK_MPI(MPI_Comm_set_attr(d, k_dup, (void *)(size_t)30));
  CHECK_MPI(MPI_Comm_set_attr(d, k_plain, (void *)(size_t)40));
  CHECK(get_long(d, k_copy, &flag) == 10 && flag == 1);
  CHECK(get_long(d, k_plain, &flag) == 40 && flag == 1);
  int *tag_ub = NULL;
  CHECK_MPI(MPI_Comm_get_attr(d, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag == 1 && *tag_ub >= 32767);
  PRINT0("attributes set: copy %ld nocopy %ld dup %ld plain %ld\n", get_long(d, k_copy, &flag),
         get_long(d, k_nocopy, &flag), get_long(d, k_dup, &flag), get_long(d, k_plain, &flag));

  MPI_Comm d2;
  CHECK_MPI(MPI_Comm_dup(d, &d2));
  {
    int f_copy, f_nocopy, f_dup, f_plain;
    long v_copy = get_long(d2, k_copy, &f_copy), v_dup = get_long(d2, k_dup, &f_dup);
    get_long(d2, k_nocopy, &f_nocopy);
    get_long(d2, k_plain, &f_plain);
    PRINT0(
        "after dup: %d copy callback(s); on the dup: copy %ld (flag %d) nocopy flag %d dup %ld (flag %d) "
        "plain flag %d\n",
        copies, v_copy, f_copy, f_nocopy, v_dup, f_dup, f_plain);
  }
  /* overwrite: the old value's delete callback runs */
  CHECK_MPI(MPI_Comm_set_attr(d2, k_copy, (void *)(size_t)99));
  PRINT0("overwrite: %d delete(s), sum %ld; value %ld\n", deletes, deleted_sum, get_long(d2, k_copy, &flag));
  /* a copy callback may decline (value 99): the dup of d2 lacks it */
  MPI_Comm d3;
  CHECK_MPI(MPI_Comm_dup(d2, &d3));
  {
    int f_copy, f_dup;
    get_long(d3, k_copy, &f_copy);
    long v_dup = get_long(d3, k_dup, &f_dup);
    PRINT0("declined copy: flag %d, dup value %ld, %d copy callback(s)\n", f_copy, v_dup, copies);
  }
  /* delete_attr */
  CHECK_MPI(MPI_Comm_delete_attr(d2, k_dup));
  CHECK(get_long(d2, k_dup, &flag) == -1 && flag == 0);
  PRINT0("delete_attr: %d delete(s), sum %ld\n", deletes, deleted_sum);
  /* free_keyval while values remain: they stay readable, and their delete callbacks still run */
  int k_copy_saved = k_copy;
  CHECK_MPI(MPI_Comm_free_keyval(&k_copy));
  CHECK(k_copy == MPI_KEYVAL_INVALID);
  CHECK(get_long(d, k_copy_saved, &flag) == 10 && flag == 1);
  /* ... and may still be deleted through the freed keyval */
  CHECK_MPI(MPI_Comm_delete_attr(d, k_copy_saved));
  CHECK(get_long(d, k_copy_saved, &flag) == -1 && flag == 0);
  PRINT0("delete through a freed keyval: %d delete(s), sum %ld\n", deletes, deleted_sum);
  CHECK_MPI(MPI_Comm_free(&d3));
  CHECK_MPI(MPI_Comm_free(&d2));
  CHECK(d2 == MPI_COMM_NULL);
  PRINT0("free dups: %d delete(s), sum %ld\n", deletes, deleted_sum);
  CHECK_MPI(MPI_Comm_free(&d));
  PRINT0("free original: %d delete(s), sum %ld\n", deletes, deleted_sum);
  CHECK_MPI(MPI_Comm_free_keyval(&k_nocopy));
  CHECK_MPI(MPI_Comm_free_keyval(&k_dup));
  CHECK_MPI(MPI_Comm_free_keyval(&k_plain));

  /* names */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK((int)strlen(name) == len);
  PRINT0("name of WORLD: %s\n", name);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  PRINT0("name of SELF: %s\n", name);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_set_name(d, "my dup"));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  PRINT0("name of the dup: %s (%d)\n", name, len);
  CHECK_MPI(MPI_Comm_set_name(d, "renamed"));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  PRINT0("renamed: %s (%d)\n", name, len);
  CHECK_MPI(MPI_Comm_set_name(MPI_COMM_WORLD, "world, renamed"));
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  PRINT0("WORLD renamed: %s\n", name);
  CHECK_MPI(MPI_Comm_free(&d));

  /* error handlers: set on a dup, inherited by its dup and split, WORLD unchanged */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_get_errhandler(d, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_dup(d, &d2));
  CHECK_MPI(MPI_Comm_split(d, 0, rank, &d3));
  CHECK_MPI(MPI_Comm_get_errhandler(d2, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Comm_get_errhandler(d3, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  int v = 0;
  CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, d2) != MPI_SUCCESS);
  CHECK(MPI_Send(&v, 1, MPI_INT, -9, 0, d3) != MPI_SUCCESS);
  CHECK(MPI_Comm_set_attr(d3, MPI_TAG_UB, NULL) != MPI_SUCCESS);
  PRINT0("errhandler inherited by dup and split: bad sends returned errors\n");
  CHECK_MPI(MPI_Comm_free(&d3));
  CHECK_MPI(MPI_Comm_free(&d2));
  CHECK_MPI(MPI_Comm_free(&d));
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  CHECK(flag == 0);

  /* an attribute on MPI_COMM_SELF: deleted first thing in MPI_Finalize */
  int k_self;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k_self, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k_self, (void *)(size_t)5));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
