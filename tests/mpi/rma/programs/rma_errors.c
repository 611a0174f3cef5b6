/* SPDX-License-Identifier: MIT */
/* Errors and epoch rules that Takyon checks beyond what Open MPI's osc components do (so no
 * comparison with Open MPI): under MPI_ERRORS_RETURN on each window, a put whose negative-extent
 * target datatype would reach below the window and a displacement whose product with the unit
 * overflows are MPI_ERR_RMA_RANGE; a NULL origin, result or compare buffer with data of a predefined
 * type is MPI_ERR_BUFFER; a request-based operation with a NULL request is MPI_ERR_ARG; a dynamic
 * window's miss at the target fails the very fence that closes its epoch. And a fence's epoch ends
 * where a PSCW epoch begins: after MPI_Win_fence(0), a put inside start/complete waits for the
 * target's post, so it lands after the target's store before MPI_Win_post (checked on a window of
 * mapped memory and one of messages). np 2-4; rank 0 prints one line per case. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <unistd.h>

#include "test_util.h"

static int rank_, size_;

static void argument_errors(void) {
  int *base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int buf[4] = {1, 2, 3, 4}, got = 0, cmp = 0;
  MPI_Datatype down; /* MPI_INT items 4 bytes apart, running downward */
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down));
  CHECK_MPI(MPI_Type_commit(&down));
  const int t = (rank_ + 1) % size_;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  expect_class("put with a negative extent below the window", MPI_Put(buf, 4, MPI_INT, t, 1, 4, down, win),
               MPI_ERR_RMA_RANGE);
  expect_class("put whose displacement overflows",
               MPI_Put(buf, 1, MPI_INT, t, (MPI_Aint)(INT64_MAX / 2), 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  expect_class("put from NULL", MPI_Put(NULL, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_BUFFER);
  expect_class("get into NULL", MPI_Get(NULL, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_BUFFER);
  expect_class("compare-and-swap with a NULL compare",
               MPI_Compare_and_swap(buf, NULL, &got, MPI_INT, t, 0, win), MPI_ERR_BUFFER);
  expect_class("fetch-and-op into NULL", MPI_Fetch_and_op(buf, NULL, MPI_INT, t, 0, MPI_SUM, win),
               MPI_ERR_BUFFER);
  expect_class("rput with a NULL request", MPI_Rput(buf, 1, MPI_INT, t, 0, 1, MPI_INT, win, NULL),
               MPI_ERR_ARG);
  (void)cmp;
  /* The window still works, and the negative extent within bounds too: items 3, 2, 1, 0. */
  CHECK_MPI(MPI_Put(buf, 4, MPI_INT, t, 3, 4, down, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  CHECK(base[3] == 1 && base[2] == 2 && base[1] == 3 && base[0] == 4);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  if (rank_ == 0) printf("put with a negative extent inside the window: items 3, 2, 1, 0 ok\n");
  CHECK_MPI(MPI_Type_free(&down));
  CHECK_MPI(MPI_Win_free(&win));
}

/* fence(0), then a PSCW epoch from rank 0 to rank 1: rank 1 stores 5 late, then posts; rank 0's put
 * of 7, issued at once, must land after that store. */
static void fence_then_pscw(int allocate) {
  int local[4] = {0, 0, 0, 0};
  int *mem = local;
  MPI_Win win;
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate(sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    mem[0] = 0;
    CHECK_MPI(MPI_Win_unlock(rank_, win));
  } else {
    CHECK_MPI(MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  MPI_Group world, peer;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  const int other = 1 - rank_;
  if (rank_ <= 1) CHECK_MPI(MPI_Group_incl(world, 1, &other, &peer));
  if (rank_ == 0) {
    const int seven = 7;
    CHECK_MPI(MPI_Win_start(peer, 0, win));
    CHECK_MPI(MPI_Put(&seven, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
  } else if (rank_ == 1) {
    usleep(50000); /* the store below comes well after rank 0 issued its put */
    CHECK_MPI(MPI_Win_sync(win));
    mem[0] = 5;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Win_post(peer, 0, win));
    CHECK_MPI(MPI_Win_wait(win));
    CHECK_MPI(MPI_Win_sync(win));
    if (mem[0] != 7) {
      fprintf(stderr, "rank 1: the put of the PSCW epoch landed before the post (found %d)\n", mem[0]);
      MPI_Abort(MPI_COMM_WORLD, 5);
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank_ == 0)
    printf("fence(0) then PSCW (%s): the put waited for the post\n", allocate ? "allocate" : "create");
  if (rank_ <= 1) CHECK_MPI(MPI_Group_free(&peer));
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Win_free(&win));
}

/* A put to an address the target never attached fails the fence that closes its epoch. */
static void dynamic_miss(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int attached[4] = {0, 0, 0, 0};
  CHECK_MPI(MPI_Win_attach(win, attached, sizeof attached));
  MPI_Aint mine = 0;
  CHECK_MPI(MPI_Get_address(attached, &mine));
  MPI_Aint *all = malloc(sizeof(MPI_Aint) * (size_t)size_);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_fence(0, win));
  const int value = 3, t = (rank_ + 1) % size_;
  if (rank_ == 0) CHECK_MPI(MPI_Put(&value, 1, MPI_INT, t, all[t] + 4096, 1, MPI_INT, win));
  const int rc = MPI_Win_fence(0, win);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) CHECK_MPI(MPI_Error_class(rc, &cls));
  if (rank_ == 0) {
    if (cls != MPI_ERR_RMA_RANGE) {
      fprintf(stderr, "rank 0: the fence after a put outside the attached memory returned class %d\n", cls);
      MPI_Abort(MPI_COMM_WORLD, 6);
    }
    printf("dynamic window: the fence after a put outside the attached memory: MPI_ERR_RMA_RANGE\n");
  } else {
    CHECK(rc == MPI_SUCCESS);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_detach(win, attached));
  CHECK_MPI(MPI_Win_free(&win));
  free(all);
}

static int failing_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  (void)value;
  (void)extra;
  return MPI_ERR_OTHER;
}

/* A freed window's handle stays invalid after another window is made (MPI_ERR_WIN, raised on
 * MPI_COMM_WORLD's handler), and a failing delete callback at MPI_Win_free goes to the window's
 * handler (MPI_ERRORS_RETURN here, while WORLD's is fatal). */
static void handles(void) {
  int mem[4];
  MPI_Win first, second;
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &first));
  const MPI_Win stale = first;
  CHECK_MPI(MPI_Win_free(&first));
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &second));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  expect_class("fence on a freed window's handle", MPI_Win_fence(0, stale), MPI_ERR_WIN);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  int keyval = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, failing_delete, &keyval, NULL));
  CHECK_MPI(MPI_Win_set_attr(second, keyval, mem));
  CHECK_MPI(MPI_Win_set_errhandler(second, MPI_ERRORS_RETURN));
  expect_class("MPI_Win_free with a failing delete callback", MPI_Win_free(&second), MPI_ERR_OTHER);
  CHECK(second == MPI_WIN_NULL);
  CHECK_MPI(MPI_Win_free_keyval(&keyval));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  argument_errors();
  fence_then_pscw(1);
  fence_then_pscw(0);
  dynamic_miss();
  handles();
  if (rank_ == 0) printf("rma_errors: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
