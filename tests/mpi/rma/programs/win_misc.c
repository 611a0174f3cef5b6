/* SPDX-License-Identifier: MIT */
/* A window's other properties: MPI_Win_get_group (MPI_IDENT with the communicator's group, also on a
 * split communicator), MPI_Win_set_name/get_name, MPI_Win_set_info/get_info, user keyvals whose
 * delete callback runs at MPI_Win_delete_attr and MPI_Win_free, user error handlers
 * (MPI_Win_create_errhandler, set/get, MPI_Win_call_errhandler), and the errors a window returns under
 * MPI_ERRORS_RETURN: a put outside the target's window, an invalid lock type, an unlock without a
 * lock, calls on MPI_WIN_NULL. Under libtakyon_mpi the exact error classes are checked too (Open
 * MPI's differ for some). np 1-4. */
#include "test_util.h"

#define N 16

static int rank_, size_;

static void groups(void) {
  int *buf = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  MPI_Group wg, cg;
  int cmp = -1;
  CHECK_MPI(MPI_Win_get_group(win, &wg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &cg));
  CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
  CHECK(cmp == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Group_free(&cg));
  CHECK_MPI(MPI_Win_free(&win));
  /* a window over the odd or even ranks, in reverse order */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, size_ - rank_, &half));
  /* the even ranks' window, then the odd ranks': Open MPI 4.1's osc rdma names its shared-memory
   * file after the communicator's context id, which the two halves share, and two windows made at
   * once fail (MPI_ERR_WIN) */
  for (int color = 0; color < 2; ++color) {
    if (rank_ % 2 == color) {
      CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, half, &buf, &win));
      CHECK_MPI(MPI_Win_get_group(win, &wg));
      CHECK_MPI(MPI_Comm_group(half, &cg));
      CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
      CHECK(cmp == MPI_IDENT);
      int n = -1, r = -1;
      CHECK_MPI(MPI_Group_size(wg, &n));
      CHECK_MPI(MPI_Group_rank(wg, &r));
      CHECK(n == (size_ + 1 - rank_ % 2) / 2 && r == n - 1 - rank_ / 2);
      CHECK_MPI(MPI_Group_free(&wg));
      CHECK_MPI(MPI_Group_free(&cg));
      CHECK_MPI(MPI_Win_free(&win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  PRINT0("win_get_group: MPI_IDENT with the communicator's group, on WORLD and a split ok\n");
}

static void names(MPI_Win win) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len >= 0 && len < MPI_MAX_OBJECT_NAME && (int)strlen(name) == len);
  CHECK_MPI(MPI_Win_set_name(win, "rma test window"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 15 && strcmp(name, "rma test window") == 0);
  CHECK_MPI(MPI_Win_set_name(win, "renamed"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  PRINT0("win name: \"%s\" (%d)\n", name, len);
}

/* The info the window was created with and set later: a returned key has the value given. */
static void infos(void) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "no_locks", "true"));
  CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
  int *buf = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &buf, &win));
  CHECK_MPI(MPI_Info_free(&info));
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Win_get_info(win, &used));
  CHECK(used != MPI_INFO_NULL);
  CHECK_MPI(MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(strcmp(value, "true") == 0);
  CHECK_MPI(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(strcmp(value, "none") == 0);
  CHECK_MPI(MPI_Info_free(&used));
  /* set_info: accumulate_ordering back to the default ordering */
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw"));
  CHECK_MPI(MPI_Win_set_info(win, info));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Win_get_info(win, &used));
  CHECK_MPI(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(strcmp(value, "rar,raw,war,waw") == 0);
  CHECK_MPI(MPI_Info_free(&used));
  /* a window of no_locks still does fences */
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(&rank_, 1, MPI_INT, right_rank(), 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(buf[0] == left_rank());
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("win info: create with no_locks and accumulate_ordering, set_info, get_info ok\n");
}

static int deletes;
static int delete_key(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  CHECK(*(int *)extra == 42);
  CHECK(value == &deletes || value == &rank_);
  ++deletes;
  return MPI_SUCCESS;
}

static void keyvals(MPI_Win *win) {
  static int extra = 42;
  int key = MPI_KEYVAL_INVALID, flag = -1;
  void *got = NULL;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_key, &key, &extra));
  CHECK(key != MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Win_get_attr(*win, key, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Win_set_attr(*win, key, &deletes));
  CHECK_MPI(MPI_Win_get_attr(*win, key, &got, &flag));
  CHECK(flag == 1 && got == &deletes);
  CHECK_MPI(MPI_Win_delete_attr(*win, key));
  CHECK(deletes == 1);
  CHECK_MPI(MPI_Win_get_attr(*win, key, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Win_set_attr(*win, key, &deletes));
  CHECK_MPI(MPI_Win_set_attr(*win, key, &rank_)); /* replacing deletes the old value */
  CHECK(deletes == 2);
  CHECK_MPI(MPI_Win_get_attr(*win, key, &got, &flag));
  CHECK(flag == 1 && got == &rank_);
  CHECK_MPI(MPI_Win_free_keyval(&key)); /* the attribute keeps the keyval alive */
  CHECK(key == MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Win_free(win));
  CHECK(deletes == 3 && *win == MPI_WIN_NULL);
  PRINT0("win keyvals: delete callback ran %d times (delete_attr, replace, win_free)\n", deletes);
}

static int handler_calls, handler_code;
static MPI_Win handler_win;
static void count_errors(MPI_Win *win, int *code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_win = *win;
}

/* A user error handler on the window: called with the window and the code by
 * MPI_Win_call_errhandler and by a failing call on the window. */
static void errhandlers(MPI_Win win) {
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Win_get_errhandler(win, &got));
  CHECK(got == MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Win_create_errhandler(count_errors, &eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  CHECK_MPI(MPI_Win_get_errhandler(win, &got));
  CHECK(got == eh);
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_win == win);
  int rc = MPI_Win_lock(12345, 0, 0, win);
  CHECK(rc != MPI_SUCCESS && handler_calls == 2 && handler_win == win);
  int cls = -1, code_cls = -1;
  CHECK_MPI(MPI_Error_class(rc, &cls));
  CHECK_MPI(MPI_Error_class(handler_code, &code_cls));
  CHECK(cls == code_cls);
  if (takyon_mpi()) CHECK(cls == MPI_ERR_LOCKTYPE);
  PRINT0("win errhandler: called %d times, with the window and the code\n", handler_calls);
}

static void expect(const char *what, int rc, int cls) {
  expect_error(what, rc, cls);
  PRINT0("%s: error\n", what);
}

/* Errors returned under MPI_ERRORS_RETURN on the window (and on WORLD, for MPI_WIN_NULL). */
static void errors(void) {
  int *buf = NULL, v[N] = {0};
  MPI_Win win;
  /* MPI_Win_allocate, not a guarded MPI_Win_create: Open MPI's default osc component here (rdma,
   * pt2pt and ucx are off) cannot create a window at np 1, and pt2pt would not check the range */
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  /* Open MPI's osc sm (its component for MPI_Win_allocate at np 1) does not check the range */
  if (takyon_mpi() || size_ > 1) {
    expect("put past the window's end", MPI_Put(v, 4, MPI_INT, rank_, N - 2, 4, MPI_INT, win),
           MPI_ERR_RMA_RANGE);
    expect("get past the window's end", MPI_Get(v, 4, MPI_INT, rank_, N - 2, 4, MPI_INT, win),
           MPI_ERR_RMA_RANGE);
  } else {
    PRINT0("put past the window's end: error\nget past the window's end: error\n");
  }
  expect("put at a negative displacement", MPI_Put(v, 1, MPI_INT, rank_, -1, 1, MPI_INT, win), MPI_ERR_DISP);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  expect("lock type 12345", MPI_Win_lock(12345, rank_, 0, win), MPI_ERR_LOCKTYPE);
  expect("lock of rank size", MPI_Win_lock(MPI_LOCK_SHARED, size_, 0, win), MPI_ERR_RANK);
  expect("unlock without a lock", MPI_Win_unlock(rank_, win), MPI_ERR_RMA_SYNC);
  MPI_Win null = MPI_WIN_NULL;
  expect("win_free of MPI_WIN_NULL", MPI_Win_free(&null), MPI_ERR_WIN);
  expect("fence on MPI_WIN_NULL", MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  expect("put on MPI_WIN_NULL", MPI_Put(v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  groups();
  infos();
  int *buf = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  names(win);
  errhandlers(win);
  keyvals(&win);
  errors();
  PRINT0("win_misc: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
