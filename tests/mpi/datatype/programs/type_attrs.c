/* SPDX-License-Identifier: MIT */
/* Datatype attributes: MPI_Type_create_keyval / free_keyval, set_attr, get_attr, delete_attr on
 * derived and predefined types; copy callbacks on MPI_Type_dup (a user one that changes the value,
 * MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN, one that declines with flag 0), delete callbacks on
 * delete_attr, on overwriting, on MPI_Type_free (and not for MPI_TYPE_NULL_DELETE_FN), a keyval
 * freed while types still hold values, a failing copy callback failing MPI_Type_dup (and
 * MPI_Comm_dup, which then gives MPI_COMM_NULL), and, under
 * libtakyon_mpi, the error classes of bad keyvals. np 1-5 (every rank alike). */
#include "test_util.h"

static int copies, deletes, last_deleted;

static int copy_plus_one(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old;
  (void)keyval;
  CHECK(*(int *)extra == 42);
  ++copies;
  *(void **)out = (void *)((char *)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int copy_declines(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  ++copies;
  *flag = 0;
  return MPI_SUCCESS;
}

static int copy_fails(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  (void)flag;
  return MPI_ERR_OTHER;
}

static int copy_comm_fails(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  (void)flag;
  return MPI_ERR_OTHER;
}

static int count_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
  (void)type;
  (void)keyval;
  CHECK(*(int *)extra == 42);
  ++deletes;
  last_deleted = (int)(long)value;
  return MPI_SUCCESS;
}

static long get(MPI_Datatype t, int keyval, int *flag) {
  void *v = NULL;
  CHECK_MPI(MPI_Type_get_attr(t, keyval, &v, flag));
  return *flag ? (long)v : -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int extra = 42, flag = 0;
  int kv_user, kv_dup, kv_null, kv_decline;
  CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, count_delete, &kv_user, &extra));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_delete, &kv_dup, &extra));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv_null, &extra));
  CHECK_MPI(MPI_Type_create_keyval(copy_declines, count_delete, &kv_decline, &extra));
  CHECK(kv_user != kv_dup && kv_dup != kv_null && kv_null != kv_decline);

  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
  CHECK(get(vec, kv_user, &flag) == -1 && flag == 0);
  CHECK_MPI(MPI_Type_set_attr(vec, kv_user, (void *)100L));
  CHECK_MPI(MPI_Type_set_attr(vec, kv_dup, (void *)200L));
  CHECK_MPI(MPI_Type_set_attr(vec, kv_null, (void *)300L));
  CHECK_MPI(MPI_Type_set_attr(vec, kv_decline, (void *)400L));
  PRINT0("set: %ld %ld %ld %ld\n", get(vec, kv_user, &flag), get(vec, kv_dup, &flag),
         get(vec, kv_null, &flag), get(vec, kv_decline, &flag));

  /* Overwriting runs the old value's delete callback. */
  CHECK_MPI(MPI_Type_set_attr(vec, kv_user, (void *)101L));
  PRINT0("overwrite: deletes %d (value %d), now %ld\n", deletes, last_deleted, get(vec, kv_user, &flag));

  /* Dup (before and after commit): user copy adds one, DUP_FN copies, NULL_COPY_FN and a declining
   * callback leave nothing. */
  MPI_Datatype d1, d2;
  CHECK_MPI(MPI_Type_dup(vec, &d1));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Type_dup(vec, &d2));
  PRINT0("dup: copies %d; user %ld, dup_fn %ld, null %ld (flag %d), declined %ld\n", copies,
         get(d1, kv_user, &flag), get(d1, kv_dup, &flag), get(d1, kv_null, &flag), flag,
         get(d1, kv_decline, &flag));
  CHECK(get(d2, kv_user, &flag) == 102 && get(d2, kv_dup, &flag) == 200);
  /* A dup of a dup copies again. */
  MPI_Datatype d3;
  CHECK_MPI(MPI_Type_dup(d1, &d3));
  PRINT0("dup of dup: user %ld\n", get(d3, kv_user, &flag));

  /* Delete: the callback runs, the value is gone; deleting it again is an error. */
  deletes = 0;
  CHECK_MPI(MPI_Type_delete_attr(vec, kv_dup));
  PRINT0("delete: deletes %d (value %d), flag now %d\n", deletes, last_deleted,
         (get(vec, kv_dup, &flag), flag));

  /* Type_free runs the delete callbacks of what is left (not for MPI_TYPE_NULL_DELETE_FN). The dups go
   * first: Open MPI keeps a type that others were made from alive, and runs its callbacks only then. */
  MPI_Datatype *order[] = {&d3, &d1, &d2, &vec};
  const char *names[] = {"dup of dup", "dup", "committed dup", "original"};
  for (int i = 0; i < 4; ++i) {
    deletes = 0;
    CHECK_MPI(MPI_Type_free(order[i]));
    CHECK(*order[i] == MPI_DATATYPE_NULL);
    PRINT0("free %s: deletes %d\n", names[i], deletes);
  }

  /* Predefined types cache attributes too. */
  CHECK_MPI(MPI_Type_set_attr(MPI_DOUBLE, kv_user, (void *)7L));
  PRINT0("predefined: %ld, int has none: %d\n", get(MPI_DOUBLE, kv_user, &flag),
         (get(MPI_INT, kv_user, &flag), flag));
  deletes = 0;
  CHECK_MPI(MPI_Type_delete_attr(MPI_DOUBLE, kv_user));
  PRINT0("predefined delete: deletes %d (value %d)\n", deletes, last_deleted);

  /* A freed keyval stays usable on the types that hold a value until they go. */
  MPI_Datatype held;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_SHORT, &held));
  CHECK_MPI(MPI_Type_set_attr(held, kv_user, (void *)500L));
  int kv_gone = kv_user;
  CHECK_MPI(MPI_Type_free_keyval(&kv_user));
  CHECK(kv_user == MPI_KEYVAL_INVALID);
  PRINT0("freed keyval: the type still has %ld\n", get(held, kv_gone, &flag));
  deletes = 0;
  CHECK_MPI(MPI_Type_free(&held));
  PRINT0("free after keyval free: deletes %d (value %d)\n", deletes, last_deleted);

  /* A copy callback that fails makes MPI_Type_dup fail and return no type. */
  int kv_fail;
  CHECK_MPI(MPI_Type_create_keyval(copy_fails, MPI_TYPE_NULL_DELETE_FN, &kv_fail, NULL));
  MPI_Datatype c, bad = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &c));
  CHECK_MPI(MPI_Type_set_attr(c, kv_fail, (void *)1L));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Type_dup(c, &bad);
  PRINT0("failing copy: dup %s\n", rc == MPI_SUCCESS ? "succeeded" : "failed");
  CHECK(rc != MPI_SUCCESS);
  if (takyon_mpi()) CHECK(bad == MPI_DATATYPE_NULL); /* Open MPI 4.1 leaves it as it was */
  CHECK_MPI(MPI_Type_free(&c));
  CHECK_MPI(MPI_Type_free_keyval(&kv_fail));
  /* The same for communicators: the dup fails and gives MPI_COMM_NULL. */
  int kv_comm_fail;
  CHECK_MPI(MPI_Comm_create_keyval(copy_comm_fails, MPI_COMM_NULL_DELETE_FN, &kv_comm_fail, NULL));
  MPI_Comm world2, bad_comm = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world2));
  CHECK_MPI(MPI_Comm_set_attr(world2, kv_comm_fail, (void *)1L));
  rc = MPI_Comm_dup(world2, &bad_comm);
  CHECK(rc != MPI_SUCCESS && bad_comm == MPI_COMM_NULL);
  PRINT0("failing comm copy: dup failed, MPI_COMM_NULL\n");
  CHECK_MPI(MPI_Comm_free(&world2));
  CHECK_MPI(MPI_Comm_free_keyval(&kv_comm_fail));

  if (takyon_mpi()) {
    /* Bad keyvals: never created, freed, of the communicator kind, freed twice. */
    int kv_comm;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv_comm, NULL));
    expect_error("set_attr of an unknown keyval", MPI_Type_set_attr(MPI_INT, 99999, NULL), MPI_ERR_KEYVAL);
    expect_error("set_attr of a freed keyval", MPI_Type_set_attr(MPI_INT, kv_gone, NULL), MPI_ERR_KEYVAL);
    expect_error("set_attr of a communicator keyval", MPI_Type_set_attr(MPI_INT, kv_comm, NULL),
                 MPI_ERR_KEYVAL);
    expect_error("comm set_attr of a type keyval", MPI_Comm_set_attr(MPI_COMM_WORLD, kv_dup, NULL),
                 MPI_ERR_KEYVAL);
    expect_error("delete_attr without a value", MPI_Type_delete_attr(MPI_INT, kv_dup), MPI_ERR_KEYVAL);
    expect_error("set_attr on MPI_DATATYPE_NULL", MPI_Type_set_attr(MPI_DATATYPE_NULL, kv_dup, NULL),
                 MPI_ERR_TYPE);
    int kv_twice = kv_null;
    CHECK_MPI(MPI_Type_free_keyval(&kv_null));
    expect_error("free_keyval twice", MPI_Type_free_keyval(&kv_twice), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_free_keyval(&kv_comm));
  } else {
    CHECK_MPI(MPI_Type_free_keyval(&kv_null));
  }
  CHECK_MPI(MPI_Type_free_keyval(&kv_dup));
  CHECK_MPI(MPI_Type_free_keyval(&kv_decline));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
