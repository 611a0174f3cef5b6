/* SPDX-License-Identifier: MIT */
/* The guide's collectives on trees of paths made from a communicator (takyonMpiCreateTree), built
 * against libtakyon_mpi and against Open MPI: for every root and fanout (1, 2, a star), a barrier, an
 * allreduce and a reduce checked against MPI_Allreduce / MPI_Reduce of the same data, a broadcast,
 * and on stars a scatter and a gather, every byte checked; then requests that must fail on every rank
 * with the same message, after which a tree still works. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takyon/takyon_extensions.h>
#include <takyon/takyon_mpi.h>

static int rank_, size_;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", rank_, __FILE__, __LINE__, #cond); \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                            \
    }                                                                                          \
  } while (0)
#define CHECK_EXT(call)                                                                    \
  do {                                                                                     \
    if (!(call)) {                                                                         \
      fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", rank_, __FILE__, __LINE__, #call, \
              takyonExtensionError());                                                     \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                        \
    }                                                                                      \
  } while (0)

enum { kElems = 1000, kBufs = 2 };

static void sum_i64(uint64_t n, void *a, void *b) {
  int64_t *x = (int64_t *)a;
  const int64_t *y = (const int64_t *)b;
  for (uint64_t i = 0; i < n; ++i) x[i] += y[i];
}

static void max_i64(uint64_t n, void *a, void *b) {
  int64_t *x = (int64_t *)a;
  const int64_t *y = (const int64_t *)b;
  for (uint64_t i = 0; i < n; ++i) x[i] = x[i] > y[i] ? x[i] : y[i];
}

static int64_t value(int rank, int round, int i) {
  return (int64_t)rank * 1000003 + round * 7919 + i * (rank + 1);
}

static TakyonGroupTree *make_tree(int root, int fanout) {
  TakyonGroupTree *tree = NULL;
  char *why = NULL;
  if (!takyonMpiCreateTree(MPI_COMM_WORLD, root, fanout, kBufs, kElems * sizeof(int64_t), NULL, &tree,
                           &why)) {
    fprintf(stderr, "rank %d: tree root %d fanout %d: %s\n", rank_, root, fanout, why);
    CHECK(0);
  }
  CHECK(tree != NULL && tree->root == root && tree->group_size == size_);
  CHECK(tree->position == (rank_ - root + size_) % size_);
  CHECK((tree->parent_path == NULL) == (rank_ == root) && (tree->parent_rank < 0) == (rank_ == root));
  /* Every edge is counted once from each end: the children summed over ranks = size - 1. */
  int children = tree->nchildren, total = 0;
  MPI_Allreduce(&children, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == size_ - 1);
  for (int c = 0; c < tree->nchildren; ++c)
    CHECK(tree->child_ranks[c] != rank_ && tree->child_path_list[c] != NULL);
  if (fanout > 0) CHECK(tree->nchildren <= fanout);
  return tree;
}

/* Barrier, allreduce (sum and max), reduce to the root, broadcast: each checked against MPI. */
static void tree_collectives(TakyonGroupTree *t) {
  if (size_ == 1) { /* a tree of one member has no paths: the guide's collectives need an edge */
    CHECK(t->nchildren == 0 && t->parent_path == NULL);
    return;
  }
  TakyonCollectiveBarrier *barrier = takyonBarrierInit(t->nchildren, t->parent_path, t->child_path_list);
  TakyonCollectiveReduce *reduce = takyonReduceInit(t->nchildren, t->parent_path, t->child_path_list);
  TakyonCollectiveBcast *bcast = takyonBcastInit(t->nchildren, t->parent_path, t->child_path_list);
  CHECK(barrier != NULL && reduce != NULL && bcast != NULL);
  int64_t mine[kElems], expect[kElems];
  for (int round = 0; round < 4; ++round) {
    const int buffer = round % kBufs;
    CHECK_EXT(takyonBarrierRun(barrier, buffer));

    for (int i = 0; i < kElems; ++i) mine[i] = value(rank_, round, i);
    MPI_Allreduce(mine, expect, kElems, MPI_INT64_T, round % 2 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    CHECK_EXT(takyonAllreduce(reduce, buffer, kElems, sizeof(int64_t), round % 2 ? max_i64 : sum_i64, mine));
    CHECK(memcmp(mine, expect, sizeof mine) == 0);

    /* The guide's reduce: a child's contribution waits in its parent path's send buffer. */
    for (int i = 0; i < kElems; ++i) mine[i] = value(rank_, round + 10, i);
    MPI_Reduce(mine, expect, kElems, MPI_INT64_T, MPI_SUM, t->root, MPI_COMM_WORLD);
    if (t->parent_path == NULL) {
      CHECK_EXT(takyonReduceRoot(reduce, buffer, kElems, sizeof(int64_t), sum_i64, mine, false));
      CHECK(memcmp(mine, expect, sizeof mine) == 0);
    } else {
      memcpy((void *)t->parent_path->attrs.sender_addr_list[buffer], mine, sizeof mine);
      CHECK_EXT(takyonReduceChild(reduce, buffer, kElems, sizeof(int64_t), sum_i64, false));
    }

    const uint64_t nbytes = (uint64_t)(round + 1) * 1000;
    unsigned char data[4000];
    if (t->parent_path == NULL) {
      for (uint64_t i = 0; i < nbytes; ++i) data[i] = (unsigned char)(i * 13 + (uint64_t)round);
      CHECK_EXT(takyonBcastRoot(bcast, buffer, nbytes, data));
    } else {
      uint64_t got = 0;
      CHECK_EXT(takyonBcastChild(bcast, buffer, &got));
      CHECK(got == nbytes);
      const unsigned char *in = (const unsigned char *)t->parent_path->attrs.recver_addr_list[buffer];
      for (uint64_t i = 0; i < nbytes; ++i) CHECK(in[i] == (unsigned char)(i * 13 + (uint64_t)round));
    }
  }
  takyonBarrierFinalize(barrier);
  takyonReduceFinalize(reduce);
  takyonBcastFinalize(bcast);
}

/* On a star: the root scatters a block to each member (its path index is position - 1), the members
 * send it back changed in a gather. */
static void star_collectives(TakyonGroupTree *t) {
  if (size_ == 1) return;
  const int npaths = size_ - 1;
  const uint64_t block = 512;
  if (t->parent_path == NULL) {
    CHECK(t->nchildren == npaths);
    TakyonScatterSrc *scatter = takyonScatterSrcInit(npaths, t->child_path_list);
    TakyonGatherDest *gather = takyonGatherDestInit(npaths, t->child_path_list);
    CHECK(scatter != NULL && gather != NULL);
    uint64_t nbytes[64], soff[64], doff[64];
    for (int i = 0; i < npaths; ++i) {
      unsigned char *out = (unsigned char *)t->child_path_list[i]->attrs.sender_addr_list[0];
      for (uint64_t k = 0; k < block; ++k) out[k] = (unsigned char)(t->child_ranks[i] * 31 + (int)k);
      nbytes[i] = block;
      soff[i] = 0;
      doff[i] = 16;
    }
    CHECK_EXT(takyonScatterSend(scatter, 0, nbytes, soff, doff));
    uint64_t got[64], at[64];
    CHECK_EXT(takyonGatherRecv(gather, 1, got, at));
    for (int i = 0; i < npaths; ++i) {
      CHECK(got[i] == block);
      const unsigned char *in =
          (const unsigned char *)t->child_path_list[i]->attrs.recver_addr_list[1] + at[i];
      for (uint64_t k = 0; k < block; ++k)
        CHECK(in[k] == (unsigned char)(t->child_ranks[i] * 31 + (int)k + 1));
    }
    takyonScatterSrcFinalize(scatter);
    takyonGatherDestFinalize(gather);
  } else {
    CHECK(t->nchildren == 0);
    TakyonScatterDest *scatter = takyonScatterDestInit(npaths, t->position - 1, t->parent_path);
    TakyonGatherSrc *gather = takyonGatherSrcInit(npaths, t->position - 1, t->parent_path);
    CHECK(scatter != NULL && gather != NULL);
    uint64_t got = 0, at = 0;
    CHECK_EXT(takyonScatterRecv(scatter, 0, &got, &at));
    CHECK(got == block && at == 16);
    const unsigned char *in = (const unsigned char *)t->parent_path->attrs.recver_addr_list[0] + at;
    unsigned char *out = (unsigned char *)t->parent_path->attrs.sender_addr_list[1];
    for (uint64_t k = 0; k < block; ++k) {
      CHECK(in[k] == (unsigned char)(rank_ * 31 + (int)k));
      out[k] = (unsigned char)(in[k] + 1);
    }
    CHECK_EXT(takyonGatherSend(gather, 1, block, 0, 0));
    takyonScatterDestFinalize(scatter);
    takyonGatherSrcFinalize(gather);
  }
}

/* A request that must fail on every rank with the same message, containing `expect`. */
static void expect_failure(int root, int fanout, int nbufs, uint64_t bytes, const char *expect,
                           const char *what) {
  TakyonGroupTree *tree = (TakyonGroupTree *)&rank_; /* must come back NULL */
  char *why = NULL;
  const int ok = takyonMpiCreateTree(MPI_COMM_WORLD, root, fanout, nbufs, bytes, NULL, &tree, &why) ? 1 : 0;
  int any_ok = 0;
  MPI_Allreduce(&ok, &any_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_ok != 0 || tree != NULL || why == NULL || strstr(why, expect) == NULL) {
    fprintf(stderr, "rank %d: %s: expected every rank to fail with '%s', got %s\n", rank_, what, expect,
            why != NULL ? why : "success");
    CHECK(0);
  }
  char mine[512] = {0}, first[512] = {0};
  strncpy(mine, why, sizeof mine - 1);
  if (rank_ == 0) memcpy(first, mine, sizeof first);
  MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(strcmp(first, mine) == 0);
  free(why);
  if (rank_ == 0) printf("%s: refused on every rank\n", what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const int fanouts[3] = {1, 2, TAKYON_GROUP_STAR};
  for (int f = 0; f < 3; ++f) {
    for (int root = 0; root < size_; root += (size_ > 2 ? size_ - 1 : 1)) {
      TakyonGroupTree *tree = make_tree(root, fanouts[f]);
      tree_collectives(tree);
      if (fanouts[f] == TAKYON_GROUP_STAR) star_collectives(tree);
      char *why = NULL;
      if (!takyonMpiDestroyTree(&tree, &why)) {
        fprintf(stderr, "rank %d: destroy: %s\n", rank_, why);
        CHECK(0);
      }
      CHECK(tree == NULL);
      if (rank_ == 0)
        printf("fanout %d root %d: barrier, allreduce, reduce, bcast%s ok\n", fanouts[f], root,
               fanouts[f] == TAKYON_GROUP_STAR ? ", scatter, gather" : "");
    }
  }
  CHECK(takyonMpiDestroyTree(NULL, NULL));

  expect_failure(rank_ == 0 ? size_ : 0, 2, 1, 64, "is outside the group", "a root outside the communicator");
  expect_failure(0, -1, 1, 64, "fanout is -1", "a negative fanout");
  expect_failure(0, 2, 0, 64, "nbufs is 0", "no buffers");
  if (size_ > 1) {
    expect_failure(0, rank_ == size_ - 1 ? 1 : 2, 1, 64, "asked for different trees",
                   "ranks asking for different trees");
    expect_failure(0, 2, 1, rank_ == 1 ? 32 : 64, "asked for different trees",
                   "ranks asking for different sizes");
  }
  /* After the refusals a tree still works. */
  TakyonGroupTree *tree = make_tree(size_ - 1, 2);
  tree_collectives(tree);
  CHECK(takyonMpiDestroyTree(&tree, NULL));
  if (rank_ == 0) printf("after the refusals: ok\n");
  MPI_Finalize();
  return 0;
}
