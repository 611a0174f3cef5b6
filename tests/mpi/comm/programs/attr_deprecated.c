/* SPDX-License-Identifier: MIT */
/* The deprecated MPI-1 attribute functions old codes still call: MPI_Keyval_create with
 * MPI_NULL_COPY_FN / MPI_DUP_FN / a user copy function and MPI_NULL_DELETE_FN / a user delete
 * function, MPI_Attr_put, MPI_Attr_get (user keyvals and MPI_TAG_UB), MPI_Attr_delete, MPI_Keyval_free;
 * what MPI_Comm_dup copies and when the delete callbacks run, mixed with the MPI-2 names on the
 * same keyvals. Rank 0 prints the callbacks in order. */
#include "test_util.h"

/* These functions are deprecated on purpose: old codes call them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static char log_[512];

static void note(const char *what, int value) {
  char item[64];
  snprintf(item, sizeof item, "%s(%d) ", what, value);
  strncat(log_, item, sizeof log_ - strlen(log_) - 1);
}

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval, (void)extra;
  note("copy", *(int *)in);
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  note("delete", *(int *)value);
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int k_null, k_dup, k_user;
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_null, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, delete_fn, &k_dup, NULL));
  CHECK_MPI(MPI_Keyval_create(copy_fn, delete_fn, &k_user, NULL));
  static int v1 = 1, v2 = 2, v3 = 3, v4 = 4;
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k_null, &v1));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k_dup, &v2));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k_user, &v3));
  int *got = NULL, flag = 0;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, k_user, &got, &flag));
  CHECK(flag == 1 && got == &v3);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, k_dup, &got, &flag)); /* the MPI-2 name, same keyval */
  CHECK(flag == 1 && got == &v2);
  int *tag_ub = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag == 1 && *tag_ub >= 32767);

  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  note("|", 0);
  CHECK_MPI(MPI_Attr_get(dup, k_null, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Attr_get(dup, k_dup, &got, &flag));
  CHECK(flag == 1 && got == &v2);
  CHECK_MPI(MPI_Attr_get(dup, k_user, &got, &flag));
  CHECK(flag == 1 && got == &v3);
  CHECK_MPI(MPI_Attr_put(dup, k_user, &v4)); /* replaces: the old value's delete runs */
  CHECK_MPI(MPI_Attr_delete(dup, k_dup));
  CHECK_MPI(MPI_Attr_get(dup, k_dup, &got, &flag));
  CHECK(flag == 0);
  note("|", 0);
  CHECK_MPI(MPI_Comm_free(&dup)); /* k_user's value 4 is deleted */
  note("|", 0);
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k_null));
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k_dup));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_user));
  CHECK_MPI(MPI_Keyval_free(&k_null));
  CHECK(k_null == MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Keyval_free(&k_dup));
  CHECK_MPI(MPI_Comm_free_keyval(&k_user));
  PRINT0("callbacks: %s\n", log_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_class("MPI_Attr_put with a freed keyval", MPI_Attr_put(MPI_COMM_WORLD, k_dup, &v1), MPI_ERR_KEYVAL);
  expect_class("MPI_Keyval_create with keyval NULL",
               MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG);
  MPI_Finalize();
  return 0;
}
