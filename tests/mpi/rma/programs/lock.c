/* SPDX-License-Identifier: MIT */
/* Passive-target RMA: MPI_Win_lock/unlock (exclusive and shared), MPI_Win_lock_all/unlock_all, the
 * flushes (flush, flush_all, flush_local, flush_local_all), MPI_Win_sync for local reads; a mutual
 * exclusion test (read, add, write back under an exclusive lock on rank 0: the total is exact); the
 * request-based MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate with MPI_Wait/Waitall in
 * a lock_all epoch. Every case runs over windows of MPI_Win_create (the local arrays) and of
 * MPI_Win_allocate (the same contents copied in). np 1-4. */
#include "test_util.h"

#define N 32
#define ITERS 20
#define UNTOUCHED (-1)

static int rank_, size_, left_, right_;

/* Local reads of this rank's window memory after other ranks' passive-target updates (and a barrier
 * that orders them): a shared lock on self and MPI_Win_sync make them visible in either memory model. */
static void begin_local_read(MPI_Win win) {
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  CHECK_MPI(MPI_Win_sync(win));
}
static void end_local_read(MPI_Win win) {
  CHECK_MPI(MPI_Win_unlock(rank_, win));
}

/* Regions of N ints: 0 written by the left neighbour (exclusive lock), 1 by the right one, 2..5 by
 * lock_all puts, 6 by self. */
enum { R_LEFT = 0, R_RIGHT = N, R_ALL = 2 * N, R_SELF = 6 * N, WIN_INTS = 7 * N };

static void exclusive_and_shared(MPI_Win win, const int *win_buf, int flavor) {
  int out[N];
  for (int i = 0; i < N; ++i) out[i] = value_of(1, rank_, i);
  /* exclusive: to the right and the left, one epoch each; to self */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right_, 0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, R_LEFT, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(right_, win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left_, 0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, left_, R_RIGHT, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(left_, win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, rank_, R_SELF, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  MPI_Barrier(MPI_COMM_WORLD);
  begin_local_read(win);
  for (int i = 0; i < N; ++i) {
    CHECK(win_buf[R_LEFT + i] == value_of(1, left_, i));
    CHECK(win_buf[R_RIGHT + i] == value_of(1, right_, i));
    CHECK(win_buf[R_SELF + i] == value_of(1, rank_, i));
  }
  end_local_read(win);
  /* shared: every rank reads every rank's self region, holding shared locks on all of them at once
   * (MPI-3 allows concurrent lock epochs to different targets; Open MPI 4.1's osc pt2pt, off in
   * Debian's configuration, hangs in MPI_Win_unlock here at np 3 and 4) */
  int *all = malloc(sizeof(int) * N * (size_t)size_);
  CHECK(all != NULL);
  fill_pattern(all, sizeof(int) * N * (size_t)size_, 0);
  for (int t = 0; t < size_; ++t) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  for (int t = 0; t < size_; ++t) CHECK_MPI(MPI_Get(all + t * N, N, MPI_INT, t, R_SELF, N, MPI_INT, win));
  for (int t = size_ - 1; t >= 0; --t) CHECK_MPI(MPI_Win_unlock(t, win));
  for (int t = 0; t < size_; ++t)
    for (int i = 0; i < N; ++i) CHECK(all[t * N + i] == value_of(1, t, i));
  free(all);
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("lock exclusive and shared (%s): %d ints to each neighbour and self, every self region read back\n",
         flavor_name(flavor), N);
}

/* lock_all: a put to every target, each completed a different way (flush, flush_all, flush_local
 * and reuse of the origin buffer, flush_local_all); gets checked after flush. */
static void lock_all(MPI_Win win, const int *win_buf, int flavor) {
  int out[4][N], in[N];
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < N; ++i) out[k][i] = value_of(2 + k, rank_, i);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  /* region R_ALL + k*N on the right: put k */
  CHECK_MPI(MPI_Put(out[0], N, MPI_INT, right_, R_ALL, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(right_, win));
  CHECK_MPI(MPI_Put(out[1], N, MPI_INT, right_, R_ALL + N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_all(win));
  /* flush_local: the origin buffer may be reused at once; the target gets what was put */
  int reused[N];
  for (int i = 0; i < N; ++i) reused[i] = value_of(4, rank_, i);
  CHECK_MPI(MPI_Put(reused, N, MPI_INT, right_, R_ALL + 2 * N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_local(right_, win));
  for (int i = 0; i < N; ++i) reused[i] = value_of(5, rank_, i);
  CHECK_MPI(MPI_Put(reused, N, MPI_INT, right_, R_ALL + 3 * N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_local_all(win));
  for (int i = 0; i < N; ++i) reused[i] = 0;
  CHECK_MPI(MPI_Win_flush(right_, win));
  /* what the flushes made visible at the target: read it back */
  for (int k = 0; k < 4; ++k) {
    fill_pattern(in, sizeof in, 1);
    CHECK_MPI(MPI_Get(in, N, MPI_INT, right_, R_ALL + k * N, N, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(right_, win));
    for (int i = 0; i < N; ++i) CHECK(in[i] == value_of(2 + k, rank_, i));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  /* MPI_Win_sync in a lock_all epoch of its own makes the left's puts visible here */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Win_sync(win));
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < N; ++i) CHECK(win_buf[R_ALL + k * N + i] == value_of(2 + k, left_, i));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("lock_all (%s): flush, flush_all, flush_local, flush_local_all and win_sync ok\n",
         flavor_name(flavor));
}

/* Mutual exclusion: every rank ITERS times reads rank 0's counter, adds rank+1 and writes it back,
 * under an exclusive lock; no update may be lost. */
static void mutual_exclusion(int flavor) {
  int local = 0;
  MPI_Win win;
  const int *counter = win_of(flavor, &local, sizeof local, sizeof(int), &win);
  for (int k = 0; k < ITERS; ++k) {
    int v = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(v >= 0);
    v += rank_ + 1;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int want = ITERS * size_ * (size_ + 1) / 2;
  if (rank_ == 0) {
    begin_local_read(win);
    CHECK(*counter == want);
    end_local_read(win);
  }
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("mutual exclusion (%s): %d read-add-write updates, counter %d\n", flavor_name(flavor), ITERS * size_,
         want);
}

/* Request-based operations in a lock_all epoch: Rput to the right, Rget from the left (complete at
 * MPI_Wait), Raccumulate and Rget_accumulate on rank 0's counters (MPI_Waitall). */
static void requests(int flavor) {
  int local[2 * N + 2];
  for (int i = 0; i < 2 * N; ++i) local[i] = value_of(7, rank_, i);
  local[2 * N] = local[2 * N + 1] = 0;
  MPI_Win win;
  const int *win_buf = win_of(flavor, local, sizeof local, sizeof(int), &win);
  int out[N], in[N], add = rank_ + 1, before = -1;
  for (int i = 0; i < N; ++i) out[i] = value_of(8, rank_, i);
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  /* the left's second half, untouched by anyone */
  CHECK_MPI(MPI_Rget(in, N, MPI_INT, left_, N, N, MPI_INT, win, &reqs[0]));
  CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  CHECK(reqs[0] == MPI_REQUEST_NULL);
  for (int i = 0; i < N; ++i) CHECK(in[i] == value_of(7, left_, N + i));
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has read the second halves: the puts below may go */
  CHECK_MPI(MPI_Rput(out, N, MPI_INT, right_, N, N, MPI_INT, win, &reqs[0]));
  CHECK_MPI(MPI_Raccumulate(&add, 1, MPI_INT, 0, 2 * N, 1, MPI_INT, MPI_SUM, win, &reqs[1]));
  CHECK_MPI(MPI_Rget_accumulate(&add, 1, MPI_INT, &before, 1, MPI_INT, 0, 2 * N + 1, 1, MPI_INT, MPI_SUM, win,
                                &reqs[2]));
  CHECK_MPI(MPI_Rget(in, N / 2, MPI_INT, rank_, 0, N / 2, MPI_INT, win, &reqs[3]));
  CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  for (int k = 0; k < 4; ++k) CHECK(reqs[k] == MPI_REQUEST_NULL);
  CHECK(before >= 0 && before + add <= size_ * (size_ + 1) / 2);
  for (int i = 0; i < N / 2; ++i) CHECK(in[i] == value_of(7, rank_, i));
  CHECK_MPI(MPI_Win_flush_all(win)); /* MPI_Wait on an Rput completes it at the origin only */
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  begin_local_read(win);
  for (int i = 0; i < N; ++i)
    CHECK(win_buf[i] == value_of(7, rank_, i) && win_buf[N + i] == value_of(8, left_, i));
  const int total = size_ * (size_ + 1) / 2;
  if (rank_ == 0) CHECK(win_buf[2 * N] == total && win_buf[2 * N + 1] == total);
  end_local_read(win);
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("request-based (%s): rput, rget, raccumulate (total %d), rget_accumulate ok\n", flavor_name(flavor),
         total);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  left_ = left_rank();
  right_ = right_rank();
  for (int flavor = 0; flavor < FLAVORS; ++flavor) {
    int local[WIN_INTS];
    for (int i = 0; i < WIN_INTS; ++i) local[i] = UNTOUCHED;
    MPI_Win win;
    const int *win_buf = win_of(flavor, local, sizeof local, sizeof(int), &win);
    exclusive_and_shared(win, win_buf, flavor);
    lock_all(win, win_buf, flavor);
    CHECK_MPI(MPI_Win_free(&win));
    mutual_exclusion(flavor);
    requests(flavor);
  }
  PRINT0("lock: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
