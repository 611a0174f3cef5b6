/* SPDX-License-Identifier: MIT */
/* Active-target RMA between MPI_Win_fence calls: MPI_Put and MPI_Get of contiguous ints to the left
 * and right neighbours and to self (disp_unit 4 and 1), derived datatypes on the origin and the
 * target side (vector, indexed), a 1 MiB transfer, and MPI_Win_allocate with the window attributes.
 * Every element that arrived, and the untouched ones around it, are checked. np 1-4. */
#include "test_util.h"

#define N 64
#define UNTOUCHED (-1)
#define BIG (1 << 20)

static int rank_, size_, left_, right_;

static void fill(int *p, int n, int v) {
  for (int i = 0; i < n; ++i) p[i] = v;
}

/* The window attributes of `win`: base, size, disp_unit and flavor as given, a known memory model. */
static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor) {
  void *got_base = NULL;
  MPI_Aint *got_size = NULL;
  int *got_disp = NULL, *got_flavor = NULL, *got_model = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
  CHECK(flag && got_base == base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == size);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_disp, &flag));
  CHECK(flag && *got_disp == disp_unit);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
  CHECK(flag && *got_flavor == flavor);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &got_model, &flag));
  CHECK(flag && (*got_model == MPI_WIN_UNIFIED || *got_model == MPI_WIN_SEPARATE));
}

/* disp_unit 4: four regions of N ints; a put to the right lands in region 0, to the left in region 1,
 * to self in region 2; region 3 stays untouched. Then gets read back this rank's own data. */
static void contiguous(void) {
  int win_buf[4 * N], out[N], in[2][N];
  fill(win_buf, 4 * N, UNTOUCHED);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win, win_buf, (MPI_Aint)sizeof win_buf, (int)sizeof(int), MPI_WIN_FLAVOR_CREATE);
  for (int i = 0; i < N; ++i) out[i] = value_of(1, rank_, i);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, left_, N, N, MPI_INT, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, rank_, 2 * N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) {
    CHECK(win_buf[i] == value_of(1, left_, i));
    CHECK(win_buf[N + i] == value_of(1, right_, i));
    CHECK(win_buf[2 * N + i] == value_of(1, rank_, i));
    CHECK(win_buf[3 * N + i] == UNTOUCHED);
  }
  /* right's region 0 and left's region 1 hold this rank's data */
  fill(&in[0][0], 2 * N, UNTOUCHED);
  CHECK_MPI(MPI_Get(in[0], N, MPI_INT, right_, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Get(in[1], N, MPI_INT, left_, N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < N; ++i) CHECK(in[0][i] == value_of(1, rank_, i) && in[1][i] == value_of(1, rank_, i));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL);
  PRINT0("contiguous, disp_unit 4: %d ints to each neighbour and self, and read back\n", N);
}

/* disp_unit 1: displacements in bytes, at offsets that are not multiples of the int count. */
static void byte_disp(void) {
  int win_buf[3 * N + 8], out[N], in[N];
  fill(win_buf, 3 * N + 8, UNTOUCHED);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(win_buf, sizeof win_buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win, win_buf, (MPI_Aint)sizeof win_buf, 1, MPI_WIN_FLAVOR_CREATE);
  for (int i = 0; i < N; ++i) out[i] = value_of(2, rank_, i);
  const MPI_Aint off_right = 3 * sizeof(int), off_self = (N + 5) * sizeof(int);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, off_right, N, MPI_INT, win));
  CHECK_MPI(MPI_Put(out, N / 2, MPI_INT, rank_, off_self, N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 3 * N + 8; ++i) {
    int want = UNTOUCHED;
    if (i >= 3 && i < 3 + N) want = value_of(2, left_, i - 3);
    if (i >= N + 5 && i < N + 5 + N / 2) want = value_of(2, rank_, i - (N + 5));
    CHECK(win_buf[i] == want);
  }
  fill(in, N, UNTOUCHED);
  /* one int short of the right's put, from the right's left (this rank) */
  CHECK_MPI(MPI_Get(in, N - 1, MPI_INT, right_, off_right + sizeof(int), N - 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N - 1; ++i) CHECK(in[i] == value_of(2, rank_, i + 1));
  CHECK(in[N - 1] == UNTOUCHED);
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("contiguous, disp_unit 1: byte displacements ok\n");
}

/* Derived datatypes: a vector on the origin (every other int) into contiguous target ints; contiguous
 * ints into a vector on the target (stride 3); an indexed layout on the target for a put and on the
 * origin for a get; a vector on both sides. */
static void derived(void) {
  enum { V = 16, IDX = 10, REGION = 3 * V };
  int win_buf[4 * REGION], out[2 * V], in[3 * V];
  fill(win_buf, 4 * REGION, UNTOUCHED);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Datatype every_other, every_third, indexed, pair_stride4;
  CHECK_MPI(MPI_Type_vector(V, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_vector(V, 1, 3, MPI_INT, &every_third));
  const int blocklens[4] = {1, 2, 3, 4}, displs[4] = {0, 3, 8, 15}; /* 10 ints over 19 */
  CHECK_MPI(MPI_Type_indexed(4, blocklens, displs, MPI_INT, &indexed));
  CHECK_MPI(MPI_Type_vector(V / 2, 2, 4, MPI_INT, &pair_stride4)); /* 16 ints over 30 */
  MPI_Datatype types[4] = {every_other, every_third, indexed, pair_stride4};
  for (int t = 0; t < 4; ++t) CHECK_MPI(MPI_Type_commit(&types[t]));
  for (int i = 0; i < 2 * V; ++i) out[i] = value_of(3, rank_, i);

  CHECK_MPI(MPI_Win_fence(0, win));
  /* region 0: origin vector -> V contiguous ints */
  CHECK_MPI(MPI_Put(out, 1, every_other, right_, 0, V, MPI_INT, win));
  /* region 1: V contiguous ints -> target vector of stride 3 */
  CHECK_MPI(MPI_Put(out, V, MPI_INT, right_, REGION, 1, every_third, win));
  /* region 2: IDX contiguous ints -> target indexed */
  CHECK_MPI(MPI_Put(out, IDX, MPI_INT, left_, 2 * REGION, 1, indexed, win));
  /* region 3: origin vector (stride 2) -> target vector of pairs (stride 4), to self */
  CHECK_MPI(MPI_Put(out, 1, every_other, rank_, 3 * REGION, 1, pair_stride4, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  int marks[4 * REGION];
  fill(marks, 4 * REGION, UNTOUCHED);
  for (int i = 0; i < V; ++i) marks[i] = value_of(3, left_, 2 * i);
  for (int i = 0; i < V; ++i) marks[REGION + 3 * i] = value_of(3, left_, i);
  for (int b = 0, k = 0; b < 4; ++b)
    for (int j = 0; j < blocklens[b]; ++j, ++k) marks[2 * REGION + displs[b] + j] = value_of(3, right_, k);
  for (int i = 0; i < V; ++i) marks[3 * REGION + (i / 2) * 4 + i % 2] = value_of(3, rank_, 2 * i);
  for (int i = 0; i < 4 * REGION; ++i) CHECK(win_buf[i] == marks[i]);

  /* gets: right's target vector (region 1) into contiguous ints; left's indexed region 2 into an
   * indexed origin layout; self's region 3 pairs into an origin vector of stride 3 */
  int in_idx[20], in_third[3 * V];
  fill(in, 3 * V, UNTOUCHED);
  fill(in_idx, 20, UNTOUCHED);
  fill(in_third, 3 * V, UNTOUCHED);
  CHECK_MPI(MPI_Get(in, V, MPI_INT, right_, REGION, 1, every_third, win));
  CHECK_MPI(MPI_Get(in_idx, 1, indexed, left_, 2 * REGION, 1, indexed, win));
  CHECK_MPI(MPI_Get(in_third, 1, every_third, rank_, 3 * REGION, 1, pair_stride4, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < V; ++i) CHECK(in[i] == value_of(3, rank_, i));
  for (int i = V; i < 3 * V; ++i) CHECK(in[i] == UNTOUCHED);
  for (int i = 0; i < 20; ++i) {
    int want = UNTOUCHED;
    for (int b = 0, k = 0; b < 4; ++b)
      for (int j = 0; j < blocklens[b]; ++j, ++k)
        if (displs[b] + j == i) want = value_of(3, rank_, k);
    CHECK(in_idx[i] == want);
  }
  for (int i = 0; i < 3 * V; ++i)
    CHECK(in_third[i] == (i % 3 == 0 ? value_of(3, rank_, 2 * (i / 3)) : UNTOUCHED));
  for (int t = 0; t < 4; ++t) CHECK_MPI(MPI_Type_free(&types[t]));
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("derived datatypes: origin vector, target vector, indexed both sides ok\n");
}

/* 1 MiB from each rank into its right neighbour's window, then read back from there. */
static void big(void) {
  unsigned char *win_buf = malloc(BIG + 64), *out = malloc(BIG), *in = malloc(BIG);
  CHECK(win_buf && out && in);
  memset(win_buf, 0xee, BIG + 64);
  fill_pattern(out, BIG, 100u + (unsigned)rank_);
  memset(in, 0, BIG);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(win_buf, BIG + 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(out, BIG, MPI_BYTE, right_, 32, BIG, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(check_pattern(win_buf + 32, BIG, 100u + (unsigned)left_) == -1);
  for (int i = 0; i < 32; ++i) CHECK(win_buf[i] == 0xee && win_buf[BIG + 32 + i] == 0xee);
  CHECK_MPI(MPI_Get(in, BIG, MPI_BYTE, right_, 32, BIG, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(check_pattern(in, BIG, 100u + (unsigned)rank_) == -1);
  /* strided: BIG/8 ints into every other int of the left's window (a target vector over 1 MiB), then
   * gets of every fourth int there (a target vector) and of its first BIG/8 ints into every other
   * int here (an origin vector) */
  const int nints = BIG / 8;
  MPI_Datatype every_other, every_fourth;
  CHECK_MPI(MPI_Type_vector(nints, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_vector(nints / 4, 1, 4, MPI_INT, &every_fourth));
  CHECK_MPI(MPI_Type_commit(&every_other));
  CHECK_MPI(MPI_Type_commit(&every_fourth));
  int *ints = (int *)out, *win_ints = (int *)win_buf, *in_ints = (int *)in;
  for (int i = 0; i < nints; ++i) ints[i] = value_of(4, rank_, i);
  memset(win_buf, 0xee, BIG + 64);
  memset(in, 0xee, BIG);
  const int guard = (int)0xeeeeeeeeu;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(ints, nints, MPI_INT, left_, 0, 1, every_other, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < nints; ++i)
    CHECK(win_ints[2 * i] == value_of(4, right_, i) && win_ints[2 * i + 1] == guard);
  CHECK_MPI(MPI_Get(in_ints, nints / 4, MPI_INT, left_, 0, 1, every_fourth, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < nints / 4; ++i) CHECK(in_ints[i] == value_of(4, rank_, 2 * i));
  CHECK(in_ints[nints / 4] == guard);
  /* the left's first nints ints (data and guards alternating) into every other int here */
  memset(in, 0xee, BIG);
  CHECK_MPI(MPI_Get(in_ints, 1, every_other, left_, 0, nints, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < nints; ++i) {
    CHECK(in_ints[2 * i] == (i % 2 == 0 ? value_of(4, rank_, i / 2) : guard));
    CHECK(in_ints[2 * i + 1] == guard);
  }
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Type_free(&every_fourth));
  CHECK_MPI(MPI_Win_free(&win));
  free(win_buf);
  free(out);
  free(in);
  PRINT0("1 MiB put and get ok, %d ints strided both sides ok\n", nints);
}

/* MPI_Win_allocate: the base pointer is usable memory of the size asked for, the attributes say so,
 * and puts reach it. One rank may ask for 0 bytes. */
static void allocate(void) {
  const MPI_Aint bytes = (MPI_Aint)(N * sizeof(int));
  int *base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK(base != NULL);
  check_attrs(win, base, bytes, (int)sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
  CHECK_MPI(MPI_Win_fence(0, win));
  fill(base, N, UNTOUCHED);
  CHECK_MPI(MPI_Win_fence(0, win));
  int out[N];
  for (int i = 0; i < N; ++i) out[i] = value_of(5, rank_, i);
  CHECK_MPI(MPI_Put(out, N / 2, MPI_INT, right_, 0, N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Put(out + N / 2, N / 2, MPI_INT, left_, N / 2, N / 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N / 2; ++i) CHECK(base[i] == value_of(5, left_, i));
  for (int i = N / 2; i < N; ++i) CHECK(base[i] == value_of(5, right_, i));
  CHECK_MPI(MPI_Win_free(&win));

  /* rank 0 contributes no memory: the others still reach each other */
  void *zero = NULL;
  const MPI_Aint mine = rank_ == 0 ? 0 : bytes;
  CHECK_MPI(MPI_Win_allocate(mine, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &zero, &win));
  MPI_Aint *got_size = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == mine);
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank_ != 0) fill(zero, N, UNTOUCHED);
  CHECK_MPI(MPI_Win_fence(0, win));
  if (right_ != 0) CHECK_MPI(MPI_Put(out, N, MPI_INT, right_, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank_ != 0) {
    const int *p = zero;
    for (int i = 0; i < N; ++i) CHECK(p[i] == value_of(5, left_, i));
  }
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("MPI_Win_allocate: base, size, disp_unit, flavor and model attributes ok\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  left_ = left_rank();
  right_ = right_rank();
  contiguous();
  byte_disp();
  derived();
  big();
  allocate();
  PRINT0("put_get_fence: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
