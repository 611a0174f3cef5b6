/* SPDX-License-Identifier: MIT */
/* Dynamic windows: MPI_Win_create_dynamic, MPI_Win_attach of a buffer whose MPI_Get_address every
 * rank learns (MPI_Allgather of MPI_Aint); puts and gets with target_disp the absolute address (and
 * MPI_Aint_add offsets into it), under fences and lock_all; MPI_Win_detach, a second buffer attached
 * in its place, and two buffers attached at once. np 1-4. */
#include "test_util.h"

#define N 64
#define UNTOUCHED (-1)

static int rank_, size_, left_, right_;

/* Every rank's address of `buf`. */
static MPI_Aint *addresses(const void *buf) {
  MPI_Aint mine, *all = malloc(sizeof(MPI_Aint) * (size_t)size_);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Get_address(buf, &mine));
  CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
  CHECK(all[rank_] == mine);
  return all;
}

/* Under fences: a put of n ints to the right at its buffer's address, a put of n/2 to self at an
 * offset of n/2, then a get of the left's first quarter (which the left's left put). */
static void fence_round(MPI_Win win, int *buf, int n, int t) {
  MPI_Aint *addr = addresses(buf);
  for (int i = 0; i < n + n / 2; ++i) buf[i] = UNTOUCHED;
  int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
  CHECK(out && in);
  for (int i = 0; i < n; ++i) out[i] = value_of(t, rank_, i);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(out, n, MPI_INT, right_, addr[right_], n, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(out, n / 2, MPI_INT, rank_, MPI_Aint_add(addr[rank_], (MPI_Aint)(n * sizeof(int))), n / 2,
                    MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < n; ++i) CHECK(buf[i] == value_of(t, left_, i));
  for (int i = 0; i < n / 2; ++i) CHECK(buf[n + i] == value_of(t, rank_, i));
  const int left_left = (left_ + size_ - 1) % size_;
  for (int i = 0; i < n; ++i) in[i] = UNTOUCHED;
  CHECK_MPI(MPI_Get(in, n / 4, MPI_INT, left_, MPI_Aint_add(addr[left_], sizeof(int)), n / 4, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < n / 4; ++i) CHECK(in[i] == value_of(t, left_left, i + 1));
  CHECK(in[n / 4] == UNTOUCHED);
  free(out);
  free(in);
  free(addr);
}

/* Under lock_all: puts into two attached buffers of the right, flushed, read back by gets. */
static void lock_all_round(MPI_Win win, int *a, int *b) {
  MPI_Aint *addr_a = addresses(a), *addr_b = addresses(b);
  int out[N], in[N];
  for (int i = 0; i < N; ++i) out[i] = value_of(9, rank_, i);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, addr_a[right_], N, MPI_INT, win));
  CHECK_MPI(MPI_Put(out, N / 2, MPI_INT, right_, addr_b[right_], N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(right_, win));
  for (int i = 0; i < N; ++i) in[i] = UNTOUCHED;
  CHECK_MPI(MPI_Get(in, N / 2, MPI_INT, right_, addr_b[right_], N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(right_, win));
  for (int i = 0; i < N / 2; ++i) CHECK(in[i] == value_of(9, rank_, i));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Win_sync(win));
  for (int i = 0; i < N; ++i) CHECK(a[i] == value_of(9, left_, i));
  for (int i = 0; i < N / 2; ++i) CHECK(b[i] == value_of(9, left_, i));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  free(addr_a);
  free(addr_b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  left_ = left_rank();
  right_ = right_rank();
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int *flavor = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC);
  MPI_Aint *size_attr = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size_attr, &flag));
  CHECK(flag && *size_attr == 0);
  void *base_attr = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base_attr, &flag));
  CHECK(flag && base_attr == MPI_BOTTOM);
  PRINT0("create_dynamic: flavor, size 0 and base MPI_BOTTOM ok\n");

  /* a first buffer: 1.5 N ints */
  int *a = malloc(sizeof(int) * (N + N / 2));
  CHECK(a != NULL);
  CHECK_MPI(MPI_Win_attach(win, a, (MPI_Aint)(sizeof(int) * (N + N / 2))));
  fence_round(win, a, N, 1);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody accesses `a` any more */
  CHECK_MPI(MPI_Win_detach(win, a));
  PRINT0("attach: puts and gets at the buffer's absolute address ok, detached\n");

  /* a second, larger buffer in its place */
  const int n2 = 4 * N;
  int *b = malloc(sizeof(int) * (size_t)(n2 + n2 / 2));
  CHECK(b != NULL);
  CHECK_MPI(MPI_Win_attach(win, b, (MPI_Aint)(sizeof(int) * (size_t)(n2 + n2 / 2))));
  fence_round(win, b, n2, 2);
  PRINT0("re-attach: a second buffer of %d ints ok\n", n2 + n2 / 2);

  /* both at once */
  CHECK_MPI(MPI_Win_attach(win, a, (MPI_Aint)(sizeof(int) * N)));
  lock_all_round(win, a, b);
  CHECK_MPI(MPI_Win_detach(win, a));
  CHECK_MPI(MPI_Win_detach(win, b));
  PRINT0("two buffers attached at once: lock_all puts and gets ok\n");
  CHECK_MPI(MPI_Win_free(&win));
  free(a);
  free(b);
  PRINT0("dynamic: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
