/* SPDX-License-Identifier: MIT */
/* Collectives on large blocks (and allreduce at 32-64 KiB), where their messages take the split single copy
 * (np 2, or forced with TAKYON_MPI_CMA=split), the lone single copy or the pipeline, and where gather copies
 * the root's own block while the others arrive: bcast, reduce, allreduce, gather (blocking, nonblocking and
 * strided), allgather, alltoall and scatter at block sizes around the 128 KiB split threshold and up
 * to 1 MiB, roots 0 and size-1. Every byte checked, and the bytes after each result too. */
#include <stdint.h>

#include "test_util.h"

#define GUARD 64
static const size_t kBlocks[] = {131071, 131072, 262144 + 12, 1 << 20};
#define NBLOCKS (sizeof kBlocks / sizeof kBlocks[0])

static int rank_, size_;

/* Byte i of rank r's block b in test t. */
static unsigned seed_of(int t, int r, int b) {
  return (unsigned)(t * 1000 + r * 31 + b * 7);
}

static unsigned char *alloc_guarded(size_t n) {
  unsigned char *p = malloc(n + GUARD);
  CHECK(p != NULL);
  memset(p, 0xee, n + GUARD);
  return p;
}
static void check_guard(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < GUARD; ++i) CHECK(p[n + i] == 0xee);
}

static void bcast(int t, size_t n, int root) {
  unsigned char *b = alloc_guarded(n);
  if (rank_ == root) fill_pattern(b, n, seed_of(t, root, 0));
  CHECK_MPI(MPI_Bcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
  CHECK(check_pattern(b, n, seed_of(t, root, 0)) == -1);
  check_guard(b, n);
  free(b);
}

/* Sum of unsigned ints: rank r's element i is r * 7919 + i. The receives of large reductions fold the
 * arriving data straight into place (coll/schedule.cpp): in place and not, and scans, whose landing
 * buffer is the result. */
enum { kReduce, kAllreduce, kReduceInPlace, kAllreduceInPlace, kScan, kExscan };
static void reduce(size_t n, int root, int kind) {
  size_t count = n / sizeof(unsigned);
  unsigned *s = (unsigned *)alloc_guarded(count * sizeof(unsigned));
  unsigned *r = (unsigned *)alloc_guarded(count * sizeof(unsigned));
  for (size_t i = 0; i < count; ++i) s[i] = (unsigned)rank_ * 7919u + (unsigned)i;
  int in_place = kind == kAllreduceInPlace || (kind == kReduceInPlace && rank_ == root);
  if (in_place) memcpy(r, s, count * sizeof(unsigned));
  const void *sb = in_place ? MPI_IN_PLACE : s;
  switch (kind) {
    case kReduce:
    case kReduceInPlace:
      CHECK_MPI(MPI_Reduce(sb, r, (int)count, MPI_UNSIGNED, MPI_SUM, root, MPI_COMM_WORLD));
      break;
    case kAllreduce:
    case kAllreduceInPlace:
      CHECK_MPI(MPI_Allreduce(sb, r, (int)count, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
      break;
    case kScan:
      CHECK_MPI(MPI_Scan(s, r, (int)count, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
      break;
    default:
      CHECK_MPI(MPI_Exscan(s, r, (int)count, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
      break;
  }
  int rooted = kind == kReduce || kind == kReduceInPlace;
  if ((!rooted || rank_ == root) && !(kind == kExscan && rank_ == 0)) {
    /* ranks 0..last contribute */
    unsigned last =
        kind == kScan ? (unsigned)rank_ : (kind == kExscan ? (unsigned)rank_ - 1u : (unsigned)size_ - 1u);
    unsigned ranks = last * (last + 1u) / 2u;
    for (size_t i = 0; i < count; ++i) CHECK(r[i] == ranks * 7919u + (last + 1u) * (unsigned)i);
    check_guard((unsigned char *)r, count * sizeof(unsigned));
  }
  free(s);
  free(r);
}

/* mode 0: MPI_Gather, 1: MPI_Igather, 2: MPI_Gatherv, 3: MPI_Gather in place at the root. */
static void gather(int t, size_t n, int root, int mode) {
  unsigned char *s = alloc_guarded(n);
  unsigned char *r = alloc_guarded(n * (size_t)size_);
  fill_pattern(s, n, seed_of(t, rank_, 0));
  const void *sendbuf = s;
  if (mode == 3 && rank_ == root) {
    fill_pattern(r + (size_t)root * n, n, seed_of(t, rank_, 0));
    sendbuf = MPI_IN_PLACE;
  }
  if (mode == 1) {
    MPI_Request rq;
    CHECK_MPI(MPI_Igather(sendbuf, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  } else if (mode == 2) {
    int *counts = malloc(sizeof(int) * (size_t)size_), *displs = malloc(sizeof(int) * (size_t)size_);
    CHECK(counts != NULL && displs != NULL);
    for (int q = 0; q < size_; ++q) {
      counts[q] = (int)n;
      displs[q] = (int)((size_t)q * n);
    }
    CHECK_MPI(MPI_Gatherv(sendbuf, (int)n, MPI_BYTE, r, counts, displs, MPI_BYTE, root, MPI_COMM_WORLD));
    free(counts);
    free(displs);
  } else {
    CHECK_MPI(MPI_Gather(sendbuf, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
  }
  if (rank_ == root) {
    for (int q = 0; q < size_; ++q) CHECK(check_pattern(r + (size_t)q * n, n, seed_of(t, q, 0)) == -1);
    check_guard(r, n * (size_t)size_);
  }
  free(s);
  free(r);
}

/* A strided gather: every rank sends n/8 blocks of 4 bytes with stride 8 (a vector type), the root
 * receives them packed. */
static void gather_strided(int t, size_t n, int root) {
  int blocks = (int)(n / 8);
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(blocks, 4, 8, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  size_t packed = (size_t)blocks * 4;
  unsigned char *s = alloc_guarded(n);
  for (size_t i = 0; i < n; ++i)
    s[i] = (i % 8) < 4 ? pattern_byte(seed_of(t, rank_, 0), (i / 8) * 4 + i % 8) : 0x5a;
  unsigned char *r = alloc_guarded(packed * (size_t)size_);
  CHECK_MPI(MPI_Gather(s, 1, vec, r, (int)packed, MPI_BYTE, root, MPI_COMM_WORLD));
  if (rank_ == root) {
    for (int q = 0; q < size_; ++q)
      CHECK(check_pattern(r + (size_t)q * packed, packed, seed_of(t, q, 0)) == -1);
    check_guard(r, packed * (size_t)size_);
  }
  CHECK_MPI(MPI_Type_free(&vec));
  free(s);
  free(r);
}

static void allgather(int t, size_t n, int in_place) {
  unsigned char *s = alloc_guarded(n);
  unsigned char *r = alloc_guarded(n * (size_t)size_);
  fill_pattern(s, n, seed_of(t, rank_, 0));
  if (in_place) fill_pattern(r + (size_t)rank_ * n, n, seed_of(t, rank_, 0));
  CHECK_MPI(
      MPI_Allgather(in_place ? MPI_IN_PLACE : s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD));
  for (int q = 0; q < size_; ++q) CHECK(check_pattern(r + (size_t)q * n, n, seed_of(t, q, 0)) == -1);
  check_guard(r, n * (size_t)size_);
  free(s);
  free(r);
}

static void alltoall(int t, size_t n) {
  unsigned char *s = alloc_guarded(n * (size_t)size_);
  unsigned char *r = alloc_guarded(n * (size_t)size_);
  for (int q = 0; q < size_; ++q) fill_pattern(s + (size_t)q * n, n, seed_of(t, rank_, q));
  CHECK_MPI(MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD));
  for (int q = 0; q < size_; ++q) CHECK(check_pattern(r + (size_t)q * n, n, seed_of(t, q, rank_)) == -1);
  check_guard(r, n * (size_t)size_);
  free(s);
  free(r);
}

static void scatter(int t, size_t n, int root) {
  unsigned char *s = alloc_guarded(n * (size_t)size_);
  unsigned char *r = alloc_guarded(n);
  if (rank_ == root) {
    for (int q = 0; q < size_; ++q) fill_pattern(s + (size_t)q * n, n, seed_of(t, root, q));
  }
  CHECK_MPI(MPI_Scatter(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
  CHECK(check_pattern(r, n, seed_of(t, root, rank_)) == -1);
  check_guard(r, n);
  free(s);
  free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_ = world_rank();
  size_ = world_size();
  for (size_t b = 0; b < NBLOCKS; ++b) {
    size_t n = kBlocks[b];
    int t = (int)b * 20;
    for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
      bcast(t + 1, n, root);
      reduce(n, root, kReduce);
      reduce(n, root, kReduceInPlace);
      for (int mode = 0; mode < 4; ++mode) gather(t + 2 + mode, n, root, mode);
      gather_strided(t + 6, n, root);
      scatter(t + 7, n, root);
      if (size_ == 1) break;
    }
    reduce(n, 0, kAllreduce);
    reduce(n, 0, kAllreduceInPlace);
    reduce(n, 0, kScan);
    reduce(n, 0, kExscan);
    allgather(t + 8, n, 0);
    allgather(t + 9, n, 1);
    alltoall(t + 10, n);
    PRINT0("block %zu ok\n", n);
  }
  /* The reduce + bcast allreduce's range on 3-4 ranks (32-64 KiB), and around it. */
  static const size_t kAllreduceSizes[] = {32764, 32768, 49156, 65536, 65540};
  for (size_t k = 0; k < sizeof kAllreduceSizes / sizeof kAllreduceSizes[0]; ++k)
    reduce(kAllreduceSizes[k], 0, kAllreduce);
  PRINT0("allreduce 32-64 KiB ok\n");
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("coll_big done\n");
  MPI_Finalize();
  return 0;
}
