/* SPDX-License-Identifier: MIT */
/* Accumulate operations: MPI_Accumulate (MPI_SUM, MPI_MAX, MPI_REPLACE, ints and doubles, a target
 * vector) from every rank to every rank under fences, MPI_Get_accumulate (fetching sums, MPI_NO_OP as
 * an atomic read), MPI_Fetch_and_op on one shared counter under MPI_Win_lock_all/flush (every fetched
 * value distinct, the total exact), MPI_Compare_and_swap ("first one wins" and a token passed round
 * the ring); MPI_MIN, MPI_PROD, MPI_BXOR, a 256 KiB MPI_SUM, swaps with MPI_REPLACE, 64-bit
 * compare-and-swap. Every case runs over windows of MPI_Win_create (the local arrays) and of
 * MPI_Win_allocate (the same contents copied in). np 1-4. */
#include "test_util.h"

#define M 8
#define ITERS 100
#define ROUNDS 5
#define BIGN (1 << 16)

static int rank_, size_;

/* Every rank adds, maxes and replaces into every rank's window; each target checks its totals. */
static void accumulate(int flavor) {
  /* [0, M): sum of (r+1)*(i+1); [M, 2M): max of r*10+i; [2M, 2M+size): element r replaced by rank r;
   * [2M+4, 2M+4+2M): a target vector (stride 2) of sums; then M doubles summed */
  enum { SUM = 0, MAX = M, REP = 2 * M, VEC = 2 * M + 4, INTS = 4 * M + 4 };
  int local_ints[INTS];
  double local_dbl[M];
  for (int i = 0; i < INTS; ++i) local_ints[i] = (i >= MAX && i < VEC) ? -1 : 0;
  for (int i = 0; i < M; ++i) local_dbl[i] = 0.5;
  MPI_Win win, dwin;
  const int *win_buf = win_of(flavor, local_ints, sizeof local_ints, sizeof(int), &win);
  const double *dbl = win_of(flavor, local_dbl, sizeof local_dbl, sizeof(double), &dwin);
  MPI_Datatype stride2;
  CHECK_MPI(MPI_Type_vector(M, 1, 2, MPI_INT, &stride2));
  CHECK_MPI(MPI_Type_commit(&stride2));
  int sum[M], max[M], rep, vec[M];
  double d[M];
  for (int i = 0; i < M; ++i) {
    sum[i] = (rank_ + 1) * (i + 1);
    max[i] = rank_ * 10 + i;
    vec[i] = rank_ + i;
    d[i] = (rank_ + 1) * 0.25;
  }
  rep = value_of(1, rank_, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_fence(0, dwin));
  for (int t = 0; t < size_; ++t) {
    CHECK_MPI(MPI_Accumulate(sum, M, MPI_INT, t, SUM, M, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(max, M, MPI_INT, t, MAX, M, MPI_INT, MPI_MAX, win));
    CHECK_MPI(MPI_Accumulate(&rep, 1, MPI_INT, t, REP + rank_, 1, MPI_INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Accumulate(vec, M, MPI_INT, t, VEC, 1, stride2, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(d, M, MPI_DOUBLE, t, 0, M, MPI_DOUBLE, MPI_SUM, dwin));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_fence(0, dwin));
  const int ranks_sum = size_ * (size_ + 1) / 2; /* sum of r+1 */
  for (int i = 0; i < M; ++i) {
    CHECK(win_buf[SUM + i] == ranks_sum * (i + 1));
    CHECK(win_buf[MAX + i] == (size_ - 1) * 10 + i);
    CHECK(win_buf[VEC + 2 * i] == ranks_sum - size_ + size_ * i && win_buf[VEC + 2 * i + 1] == 0);
    CHECK(dbl[i] == 0.5 + ranks_sum * 0.25);
  }
  for (int r = 0; r < 4; ++r) CHECK(win_buf[REP + r] == (r < size_ ? value_of(1, r, 0) : -1));
  CHECK_MPI(MPI_Type_free(&stride2));
  CHECK_MPI(MPI_Win_free(&dwin));
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("accumulate (%s): sum %d, max %d, replace, target vector and double sums ok\n", flavor_name(flavor),
         ranks_sum * M, (size_ - 1) * 10 + M - 1);
}

/* MPI_Get_accumulate: every rank adds its rank+1 to a counter on every rank and gets the value
 * before; the fetched values on one target are distinct partial sums. MPI_NO_OP reads the totals. */
static void get_accumulate(int flavor) {
  int local[2] = {0, 0};
  MPI_Win win;
  const int *counter = win_of(flavor, local, sizeof local, sizeof(int), &win);
  int add[2] = {rank_ + 1, 1}, *before = malloc(sizeof(int) * 2 * (size_t)size_);
  CHECK(before != NULL);
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size_; ++t)
    CHECK_MPI(
        MPI_Get_accumulate(add, 2, MPI_INT, &before[2 * t], 2, MPI_INT, t, 0, 2, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  const int total = size_ * (size_ + 1) / 2;
  CHECK(counter[0] == total && counter[1] == size_);
  /* the values fetched from each target: counts 0..size-1, each once; each sum below the total */
  int *all = malloc(sizeof(int) * 2 * (size_t)size_ * (size_t)size_);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(before, 2 * size_, MPI_INT, all, 2 * size_, MPI_INT, MPI_COMM_WORLD));
  for (int t = 0; t < size_; ++t) {
    unsigned seen = 0;
    for (int r = 0; r < size_; ++r) {
      const int sum_before = all[(r * size_ + t) * 2], count_before = all[(r * size_ + t) * 2 + 1];
      CHECK(count_before >= 0 && count_before < size_ && !(seen & (1u << count_before)));
      seen |= 1u << count_before;
      CHECK(sum_before >= 0 && sum_before + r + 1 <= total);
    }
  }
  /* MPI_NO_OP: an atomic read of every target's counter; the origin buffer is ignored */
  int got[2] = {-1, -1};
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size_; ++t) {
    got[0] = got[1] = -1;
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, got, 2, MPI_INT, t, 0, 2, MPI_INT, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK(got[0] == total && got[1] == size_);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  free(before);
  free(all);
  PRINT0("get_accumulate (%s): fetched partial sums distinct, total %d, MPI_NO_OP read ok\n",
         flavor_name(flavor), total);
}

/* MPI_Fetch_and_op: ITERS increments of one counter on rank 0 by every rank, each flushed; a rank's
 * fetched values rise, and all ranks' values together are 0..ITERS*size-1, each once. */
static void fetch_and_op(int flavor) {
  int counter = 0;
  MPI_Win win;
  (void)win_of(flavor, &counter, sizeof counter, sizeof(int), &win); /* read only by RMA calls */
  int mine[ITERS], one = 1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ITERS; ++k) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &mine[k], MPI_INT, 0, 0, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(mine[k] >= 0 && mine[k] < ITERS * size_ && (k == 0 || mine[k] > mine[k - 1]));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  int final = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(NULL, &final, MPI_INT, 0, 0, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(final == ITERS * size_);
  int *all = rank_ == 0 ? malloc(sizeof(int) * ITERS * (size_t)size_) : NULL;
  CHECK_MPI(MPI_Gather(mine, ITERS, MPI_INT, all, ITERS, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank_ == 0) {
    char *seen = calloc((size_t)ITERS * (size_t)size_, 1);
    CHECK(all != NULL && seen != NULL);
    for (int i = 0; i < ITERS * size_; ++i) {
      CHECK(!seen[all[i]]);
      seen[all[i]] = 1;
    }
    free(seen);
    free(all);
  }
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("fetch_and_op (%s): %d increments, every fetched value distinct, final %d\n", flavor_name(flavor),
         ITERS * size_, final);
}

/* MPI_Compare_and_swap: every rank tries to swap its rank into a slot holding -1 on every target;
 * one wins per target and the others fetch the winner. Then a token passed round the ring ROUNDS
 * times by swaps, and a swap whose comparison fails. */
static void compare_and_swap(int flavor) {
  int local[2] = {-1, 0};
  MPI_Win win;
  int *slots = win_of(flavor, local, sizeof local, sizeof(int), &win);
  int *fetched = malloc(sizeof(int) * (size_t)size_),
      *all = malloc(sizeof(int) * (size_t)size_ * (size_t)size_);
  CHECK(fetched && all);
  const int empty = -1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size_; ++t) {
    CHECK_MPI(MPI_Compare_and_swap(&rank_, &empty, &fetched[t], MPI_INT, t, 0, win));
    CHECK_MPI(MPI_Win_flush(t, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Allgather(fetched, size_, MPI_INT, all, size_, MPI_INT, MPI_COMM_WORLD));
  MPI_Barrier(MPI_COMM_WORLD);
  /* local reads of the window after the others' updates: under a lock on self (either memory model) */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  CHECK_MPI(MPI_Win_sync(win));
  CHECK(slots[0] >= 0 && slots[0] < size_);
  for (int t = 0; t < size_; ++t) {
    int winners = 0, winner = -1;
    for (int r = 0; r < size_; ++r)
      if (all[r * size_ + t] == -1) {
        ++winners;
        winner = r;
      }
    CHECK(winners == 1);
    for (int r = 0; r < size_; ++r) CHECK(all[r * size_ + t] == (r == winner ? -1 : winner));
    if (t == rank_) CHECK(slots[0] == winner);
  }
  slots[1] = rank_ == 0 ? 0 : -1; /* the token's slots (below), stored under the lock on self */
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  /* the token: slot 1 of every rank. In round k rank r polls its own slot (an atomic read of
   * itself, MPI_NO_OP) until it holds k, then hands the token on with one swap on the next rank's
   * slot, which must fetch exactly the value that rank was left with (k on rank 0, which got it this
   * round; k-1 elsewhere). The poll is an RMA call, not MPI_Win_sync and a load, so that a library
   * that serves other ranks' operations only while in RMA calls still progresses. Every rank swapping
   * on one target until it wins would test the fairness of the atomics instead. (Open MPI 4.1's osc
   * ucx, off in Debian's configuration, starves the handing-on swap in either form.) */
  MPI_Barrier(MPI_COMM_WORLD);
  const int next_rank = (rank_ + 1) % size_;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ROUNDS; ++k) {
    int mine = -2;
    do {
      CHECK_MPI(MPI_Fetch_and_op(NULL, &mine, MPI_INT, rank_, 1, MPI_NO_OP, win));
      CHECK_MPI(MPI_Win_flush(rank_, win));
      CHECK(mine == k || mine == k - 1);
    } while (mine != k);
    const int old = next_rank == 0 ? k : k - 1, new_value = next_rank == 0 ? k + 1 : k;
    int got = -2;
    CHECK_MPI(MPI_Compare_and_swap(&new_value, &old, &got, MPI_INT, next_rank, 1, win));
    CHECK_MPI(MPI_Win_flush(next_rank, win));
    CHECK(got == old);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  /* a swap whose comparison fails leaves the slot as it is and fetches it */
  const int token = rank_ == 0 ? ROUNDS : ROUNDS - 1, wrong = -7, never = 12345;
  int got = -2;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  CHECK_MPI(MPI_Compare_and_swap(&never, &wrong, &got, MPI_INT, rank_, 1, win));
  CHECK_MPI(MPI_Win_flush(rank_, win));
  CHECK(got == token);
  CHECK_MPI(MPI_Win_sync(win));
  CHECK(slots[1] == token);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  CHECK_MPI(MPI_Win_free(&win));
  free(fetched);
  free(all);
  PRINT0("compare_and_swap (%s): one winner per target, %d others fetched it; token passed %d times\n",
         flavor_name(flavor), size_ - 1, ROUNDS * size_);
}

/* More operations and types: MPI_MIN, MPI_PROD, MPI_BXOR (unsigned) from every rank to every rank; a
 * large MPI_SUM (BIGN ints to every rank); MPI_Fetch_and_op with MPI_REPLACE (a chain of swaps on
 * rank 0: the fetched values and the final one are the first value and every rank's, each once);
 * MPI_Compare_and_swap on 64-bit integers. */
static void more_ops(int flavor) {
  enum { MIN = 0, PROD = M, BXOR = 2 * M, INTS = 3 * M };
  int local_ints[INTS];
  for (int i = 0; i < M; ++i) {
    local_ints[MIN + i] = 1000;
    local_ints[PROD + i] = 1;
    local_ints[BXOR + i] = 0;
  }
  int *local_big = calloc(BIGN, sizeof(int)), *big_add = malloc(sizeof(int) * BIGN);
  CHECK(local_big && big_add);
  for (int i = 0; i < BIGN; ++i) big_add[i] = (rank_ + 1) * (i % 1000);
  MPI_Win win, big_win;
  const int *win_buf = win_of(flavor, local_ints, sizeof local_ints, sizeof(int), &win);
  const int *big_buf = win_of(flavor, local_big, sizeof(int) * BIGN, sizeof(int), &big_win);
  int mn[M], prod[M];
  unsigned bx[M];
  for (int i = 0; i < M; ++i) {
    mn[i] = 100 * (rank_ + 1) - i;
    prod[i] = rank_ + 2;
    bx[i] = 1u << (rank_ + i);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_fence(0, big_win));
  for (int t = 0; t < size_; ++t) {
    CHECK_MPI(MPI_Accumulate(mn, M, MPI_INT, t, MIN, M, MPI_INT, MPI_MIN, win));
    CHECK_MPI(MPI_Accumulate(prod, M, MPI_INT, t, PROD, M, MPI_INT, MPI_PROD, win));
    CHECK_MPI(MPI_Accumulate(bx, M, MPI_UNSIGNED, t, BXOR, M, MPI_UNSIGNED, MPI_BXOR, win));
    CHECK_MPI(MPI_Accumulate(big_add, BIGN, MPI_INT, t, 0, BIGN, MPI_INT, MPI_SUM, big_win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_fence(0, big_win));
  int want_prod = 1;
  for (int r = 0; r < size_; ++r) want_prod *= r + 2;
  for (int i = 0; i < M; ++i) {
    unsigned want_bx = 0;
    for (int r = 0; r < size_; ++r) want_bx ^= 1u << (r + i);
    CHECK(win_buf[MIN + i] == 100 - i && win_buf[PROD + i] == want_prod &&
          (unsigned)win_buf[BXOR + i] == want_bx);
  }
  const int ranks_sum = size_ * (size_ + 1) / 2;
  for (int i = 0; i < BIGN; ++i) CHECK(big_buf[i] == ranks_sum * (i % 1000));
  CHECK_MPI(MPI_Win_free(&big_win));
  free(local_big);
  free(big_add);

  /* swaps: rank 0's MIN slot (now 100) gets 500+r from every rank r */
  const int first = 100, mine = 500 + rank_;
  int fetched = -1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Fetch_and_op(&mine, &fetched, MPI_INT, 0, MIN, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  int *all = malloc(sizeof(int) * ((size_t)size_ + 1));
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(&fetched, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(
      MPI_Get_accumulate(NULL, 0, MPI_INT, &all[size_], 1, MPI_INT, 0, MIN, 1, MPI_INT, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  unsigned seen = 0;
  for (int k = 0; k <= size_; ++k) {
    const int bit = all[k] == first ? size_ : all[k] - 500;
    CHECK(bit >= 0 && bit <= size_ && !(seen & (1u << bit)));
    seen |= 1u << bit;
  }
  CHECK(all[size_] != first);
  free(all);
  CHECK_MPI(MPI_Win_free(&win));

  /* 64-bit compare-and-swap: values above 2^32, one winner per target. Open MPI 4.1.4's osc rdma
   * (vader's emulated atomic, at np 2 and up) crashes on a 64-bit swap with itself over an
   * MPI_Win_create window, and on any over an MPI_Win_allocate one: there the ranks leave those swaps
   * out, -2 marking a swap not made (and a target nobody swapped on keeps -1). */
  const int ompi_rdma = !takyon_mpi() && size_ > 1;
  const int skip_self = ompi_rdma, skip_all = ompi_rdma && flavor == FLAVOR_ALLOCATE;
  long long local_slot = -1, *fetched64 = malloc(sizeof(long long) * (size_t)size_),
            *all64 = malloc(sizeof(long long) * (size_t)size_ * (size_t)size_);
  CHECK(fetched64 && all64);
  const long long *slot = win_of(flavor, &local_slot, sizeof local_slot, sizeof local_slot, &win);
  const long long empty = -1, me = (1LL << 40) + rank_;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size_; ++t) {
    fetched64[t] = -2;
    if (!skip_all && !(skip_self && t == rank_))
      CHECK_MPI(MPI_Compare_and_swap(&me, &empty, &fetched64[t], MPI_LONG_LONG, t, 0, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Allgather(fetched64, size_, MPI_LONG_LONG, all64, size_, MPI_LONG_LONG, MPI_COMM_WORLD));
  for (int t = 0; t < size_; ++t) {
    int winners = 0;
    long long winner = -1;
    for (int r = 0; r < size_; ++r) {
      CHECK((all64[r * size_ + t] == -2) == (skip_all || (skip_self && r == t)));
      if (all64[r * size_ + t] == -1) {
        ++winners;
        winner = (1LL << 40) + r;
      }
    }
    CHECK(winners == (skip_all ? 0 : 1));
    for (int r = 0; r < size_; ++r)
      CHECK(all64[r * size_ + t] == -1 || all64[r * size_ + t] == -2 || all64[r * size_ + t] == winner);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  CHECK_MPI(MPI_Win_sync(win));
  CHECK(skip_all ? *slot == -1 : *slot >= (1LL << 40) && *slot < (1LL << 40) + size_);
  for (int r = 0; r < size_; ++r) CHECK(all64[r * size_ + rank_] != -1 || *slot == (1LL << 40) + r);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  CHECK_MPI(MPI_Win_free(&win));
  free(fetched64);
  free(all64);
  PRINT0("more ops (%s): min, prod %d, bxor, %d-int sum, replace swaps, 64-bit compare_and_swap ok\n",
         flavor_name(flavor), want_prod, BIGN);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  for (int flavor = 0; flavor < FLAVORS; ++flavor) {
    accumulate(flavor);
    get_accumulate(flavor);
    fetch_and_op(flavor);
    compare_and_swap(flavor);
    more_ops(flavor);
  }
  PRINT0("accumulate: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
