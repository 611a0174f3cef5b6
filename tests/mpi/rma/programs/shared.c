/* SPDX-License-Identifier: MIT */
/* Shared-memory windows: MPI_Win_allocate_shared on the node's communicator (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED: the whole job here), a different size per rank and 0 on rank 1;
 * MPI_Win_shared_query for every rank and MPI_PROC_NULL; the default allocation is contiguous; direct
 * loads and stores into the neighbours' memory ordered by MPI_Win_sync and MPI_Barrier; MPI_Put into
 * the same window; and a window with alloc_shared_noncontig. np 1-4. */
#include <stdint.h>

#include "test_util.h"

static int rank_, size_;

/* Rank r's share in ints: rank 1 has none. */
static int ints_of(int r) {
  return r == 1 ? 0 : 16 * (r + 1);
}

/* The first rank with memory after r (round the ring), or -1. */
static int next_with_memory(int r) {
  for (int k = 1; k <= size_; ++k) {
    const int t = (r + k) % size_;
    if (ints_of(t) > 0) return t;
  }
  return -1;
}

/* The size shared_query says rank r's segment has: what it asked for (Open MPI rounds a
 * noncontiguous segment up to whole pages, so there it is at least that). */
static void check_size(MPI_Aint size, int r, int contiguous) {
  const MPI_Aint asked = (MPI_Aint)(ints_of(r) * sizeof(int));
  if (contiguous || asked == 0) {
    CHECK(size == asked);
  } else {
    CHECK(size >= asked);
  }
}

/* Every rank's segment seen through MPI_Win_shared_query: base, size, disp_unit. */
static void query_all(MPI_Win win, int **bases, int contiguous) {
  for (int r = 0; r < size_; ++r) {
    MPI_Aint size = -1;
    int disp = -1;
    int *base = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, r, &size, &disp, &base));
    check_size(size, r, contiguous);
    CHECK(disp == (int)sizeof(int));
    if (size > 0) CHECK(base != NULL);
    bases[r] = base;
  }
  if (contiguous) {
    /* rank r's base is rank 0's plus the earlier ranks' sizes (for the ranks with memory) */
    size_t before = 0;
    for (int r = 0; r < size_; ++r) {
      if (ints_of(r) > 0) CHECK((uintptr_t)bases[r] == (uintptr_t)bases[0] + before);
      before += (size_t)ints_of(r) * sizeof(int);
    }
  }
  /* MPI_PROC_NULL: the segment of the lowest rank with memory (rank 0) */
  MPI_Aint size = -1;
  int disp = -1;
  int *base = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &disp, &base));
  check_size(size, 0, contiguous);
  CHECK(disp == (int)sizeof(int) && base == bases[0]);
}

static void check_flavor(MPI_Win win, void *mine) {
  int *flavor = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED);
  if (ints_of(rank_) > 0) {
    void *base = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == mine);
  }
}

/* Stores into this rank's segment, then reads of every other segment; then stores into the next
 * rank's segment (with memory), read back by its owner. Ordered by sync, barrier, sync in a
 * lock_all epoch. */
static void load_store(MPI_Win win, int **bases) {
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (int i = 0; i < ints_of(rank_); ++i) bases[rank_][i] = value_of(1, rank_, i);
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_sync(win));
  for (int r = 0; r < size_; ++r)
    for (int i = 0; i < ints_of(r); ++i) CHECK(bases[r][i] == value_of(1, r, i));
  MPI_Barrier(MPI_COMM_WORLD); /* every rank read: the segments may change */
  /* each rank with memory gets its first element from the previous rank with memory, the rest
   * from rank 1 (no memory of its own) round the ring, element by element */
  const int next = next_with_memory(rank_);
  if (ints_of(rank_) > 0 && next >= 0) bases[next][0] = value_of(2, rank_, 0);
  if (rank_ == 1 || size_ == 1) {
    for (int r = 0; r < size_; ++r)
      for (int i = 1; i < ints_of(r); ++i) bases[r][i] = value_of(2, 1, i);
  }
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_sync(win));
  if (ints_of(rank_) > 0) {
    int prev = -1; /* the rank whose next is this one */
    for (int r = 0; r < size_; ++r)
      if (ints_of(r) > 0 && next_with_memory(r) == rank_) prev = r;
    CHECK(bases[rank_][0] == value_of(2, prev, 0));
    for (int i = 1; i < ints_of(rank_); ++i) CHECK(bases[rank_][i] == value_of(2, 1, i));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Put into the next rank's segment (with memory) through the window, read by direct loads. */
static void put_into_shared(MPI_Win win, int **bases) {
  const int next = next_with_memory(rank_);
  int out[4];
  for (int i = 0; i < 4; ++i) out[i] = value_of(3, rank_, i);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  if (ints_of(rank_) > 0 && next >= 0) {
    CHECK_MPI(MPI_Put(out, 4, MPI_INT, next, 4, 4, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(next, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_sync(win));
  if (ints_of(rank_) > 0) {
    int prev = -1;
    for (int r = 0; r < size_; ++r)
      if (ints_of(r) > 0 && next_with_memory(r) == rank_) prev = r;
    for (int i = 0; i < 4; ++i) CHECK(bases[rank_][4 + i] == value_of(3, prev, i));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int node_size = -1, node_rank = -1;
  CHECK_MPI(MPI_Comm_size(node, &node_size));
  CHECK_MPI(MPI_Comm_rank(node, &node_rank));
  CHECK(node_size == size_ && node_rank == rank_); /* one node */
  int **bases = malloc(sizeof(int *) * (size_t)size_);
  CHECK(bases != NULL);

  int *mine = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)(ints_of(rank_) * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                                    node, &mine, &win));
  check_flavor(win, mine);
  query_all(win, bases, 1);
  if (ints_of(rank_) > 0) CHECK(bases[rank_] == mine);
  int total = 0;
  for (int r = 0; r < size_; ++r) total += ints_of(r);
  PRINT0(
      "allocate_shared: %d ints over %d ranks, contiguous, shared_query of every rank and MPI_PROC_NULL ok\n",
      total, size_);
  load_store(win, bases);
  PRINT0("load/store into the neighbours' memory with win_sync and barrier ok\n");
  put_into_shared(win, bases);
  PRINT0("put into a shared window, read by load ok\n");
  CHECK_MPI(MPI_Win_free(&win));

  /* alloc_shared_noncontig: the same queries and accesses, without the contiguity */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)(ints_of(rank_) * sizeof(int)), sizeof(int), info, node, &mine,
                                    &win));
  CHECK_MPI(MPI_Info_free(&info));
  check_flavor(win, mine);
  query_all(win, bases, 0);
  if (ints_of(rank_) > 0) CHECK(bases[rank_] == mine);
  load_store(win, bases);
  put_into_shared(win, bases);
  CHECK_MPI(MPI_Win_free(&win));
  PRINT0("alloc_shared_noncontig: shared_query, load/store and put ok\n");

  free(bases);
  CHECK_MPI(MPI_Comm_free(&node));
  PRINT0("shared: np %d ok\n", size_);
  MPI_Finalize();
  return 0;
}
