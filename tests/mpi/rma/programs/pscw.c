/* SPDX-License-Identifier: MIT */
/* General active-target synchronization: MPI_Win_post/start/complete/wait, and MPI_Win_test looped
 * until it says the exposure epoch ended, with groups of the ring neighbours (MPI_Comm_group and
 * MPI_Group_incl); puts and gets checked after the epochs; rank 0 alone accessing every other rank.
 * Every case runs over a window of MPI_Win_create (a local array) and one of MPI_Win_allocate. np 1-4. */
#include "test_util.h"

#define N 32
#define UNTOUCHED (-1)

static int rank_, size_, left_, right_;

/* The group of the left and right neighbours (one rank at np 2 and np 1, where it is this rank). */
static MPI_Group neighbours(void) {
  MPI_Group world, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int ranks[2] = {left_, right_};
  CHECK_MPI(MPI_Group_incl(world, left_ == right_ ? 1 : 2, ranks, &g));
  CHECK_MPI(MPI_Group_free(&world));
  int n = -1;
  CHECK_MPI(MPI_Group_size(g, &n));
  CHECK(n == (size_ <= 2 ? 1 : 2));
  return g;
}

/* One epoch: the neighbours put into regions 0 (from the left) and 1 (from the right) and get
 * region 2; `use_test`: the target loops on MPI_Win_test instead of MPI_Win_wait. */
static void ring_epoch(MPI_Win win, int *win_buf, MPI_Group group, int t, int use_test) {
  int out[N], in[2][N];
  for (int i = 0; i < 3 * N; ++i) win_buf[i] = i < 2 * N ? UNTOUCHED : value_of(t, rank_, i);
  for (int i = 0; i < N; ++i) out[i] = value_of(t, rank_, i);
  fill_pattern(in, sizeof in, 2);
  CHECK_MPI(MPI_Win_post(group, 0, win));
  CHECK_MPI(MPI_Win_start(group, 0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, left_, N, N, MPI_INT, win));
  CHECK_MPI(MPI_Get(in[0], N, MPI_INT, right_, 2 * N, N, MPI_INT, win));
  CHECK_MPI(MPI_Get(in[1], N / 2, MPI_INT, left_, 2 * N + 1, N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_complete(win));
  for (int i = 0; i < N; ++i) CHECK(in[0][i] == value_of(t, right_, 2 * N + i));
  for (int i = 0; i < N / 2; ++i) CHECK(in[1][i] == value_of(t, left_, 2 * N + 1 + i));
  if (use_test) {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
  } else {
    CHECK_MPI(MPI_Win_wait(win));
  }
  for (int i = 0; i < N; ++i) {
    CHECK(win_buf[i] == value_of(t, left_, i));
    CHECK(win_buf[N + i] == value_of(t, right_, i));
  }
}

/* Rank 0 accesses every other rank (which expose to rank 0 only); rank 0 exposes nothing. */
static void one_origin(MPI_Win win, int *win_buf) {
  MPI_Group world, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int zero = 0;
  if (rank_ == 0) {
    CHECK_MPI(MPI_Group_excl(world, 1, &zero, &g));
  } else {
    CHECK_MPI(MPI_Group_incl(world, 1, &zero, &g));
  }
  for (int i = 0; i < N; ++i) win_buf[i] = UNTOUCHED;
  if (rank_ == 0) {
    int *out = malloc(sizeof(int) * N * (size_t)size_); /* one buffer per target: free after complete */
    CHECK(out != NULL);
    CHECK_MPI(MPI_Win_start(g, 0, win));
    for (int t = 1; t < size_; ++t) {
      for (int i = 0; i < N; ++i) out[t * N + i] = value_of(5, t, i);
      CHECK_MPI(MPI_Put(out + t * N, N, MPI_INT, t, 0, N, MPI_INT, win));
    }
    CHECK_MPI(MPI_Win_complete(win));
    free(out);
  } else {
    CHECK_MPI(MPI_Win_post(g, 0, win));
    CHECK_MPI(MPI_Win_wait(win));
    for (int i = 0; i < N; ++i) CHECK(win_buf[i] == value_of(5, rank_, i));
  }
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_free(&world));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  left_ = left_rank();
  right_ = right_rank();
  for (int flavor = 0; flavor < FLAVORS; ++flavor) {
    int local[3 * N]; /* every epoch stores its own contents before it posts */
    for (int i = 0; i < 3 * N; ++i) local[i] = UNTOUCHED;
    MPI_Win win;
    int *win_buf = win_of(flavor, local, sizeof local, sizeof(int), &win);
    const char *name = flavor_name(flavor);
    MPI_Group group = neighbours();
    ring_epoch(win, win_buf, group, 1, 0);
    PRINT0("post/start/complete/wait (%s): puts and gets with the ring neighbours ok\n", name);
    for (int t = 2; t < 5; ++t) ring_epoch(win, win_buf, group, t, 1);
    PRINT0("post/start/complete/test (%s): 3 epochs, MPI_Win_test looped until flag\n", name);
    CHECK_MPI(MPI_Group_free(&group));
    if (size_ > 1) one_origin(win, win_buf);
    PRINT0("one origin (%s): rank 0 put to the %d other ranks in one epoch\n", name, size_ - 1);
    CHECK_MPI(MPI_Win_free(&win));
  }
  PRINT0("pscw: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
