/* SPDX-License-Identifier: MIT */
/* Takyon paths between MPI ranks (takyon_mpi.h), built against libtakyon_mpi and against Open MPI:
 * a ring of paths with different buffer counts each way and application send buffers, paths between
 * every pair (one creation order on every rank: no rank waits for another busy elsewhere), every
 * message's bytes checked; then bad requests, each failing on every rank with the same message and
 * leaving nothing open, so the next creation works. With the argument "die", rank 1 exits before
 * the creation: the job must end, not hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takyon/takyon_mpi.h>
#include <unistd.h>

static int rank_, size_;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", rank_, __FILE__, __LINE__, #cond); \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                            \
    }                                                                                          \
  } while (0)

static unsigned char byte_of(int from, int to, int buffer, int round, size_t i) {
  return (unsigned char)(from * 37 + to * 11 + buffer * 5 + round * 3 + (int)(i % 251));
}

/* Sends `rounds` messages on every buffer of every path and checks each that arrives. */
static void exchange(int npeers, const TakyonPeerBuffers *wants, TakyonPath **paths, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < npeers; ++k) {
      for (int b = 0; b < wants[k].nbufs_send; ++b) {
        unsigned char *out = (unsigned char *)paths[k]->attrs.sender_addr_list[b];
        const size_t n = (size_t)wants[k].send_bytes[b] - (size_t)round;
        for (size_t i = 0; i < n; ++i) out[i] = byte_of(rank_, wants[k].peer, b, round, i);
        CHECK(takyonSend(paths[k], b, n, 0, 0, NULL));
      }
    }
    for (int k = 0; k < npeers; ++k) {
      for (int b = 0; b < wants[k].nbufs_recv; ++b) {
        uint64_t bytes = 0, offset = 0;
        CHECK(takyonRecv(paths[k], b, &bytes, &offset, NULL));
        const unsigned char *in = (const unsigned char *)paths[k]->attrs.recver_addr_list[b] + offset;
        CHECK(bytes == wants[k].recv_bytes[b] - (uint64_t)round);
        for (size_t i = 0; i < bytes; ++i) CHECK(in[i] == byte_of(wants[k].peer, rank_, b, round, i));
      }
    }
    /* Both sides have taken every message of this round before any buffer is written again. */
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

/* The pair's buffers: the lower rank sends 3 and receives 1, the higher the other way round; sizes
 * differ per buffer. Send buffers are the application's (send_store), receive buffers Takyon's. */
static uint64_t sizes_[4] = {1000, 64, 4096, 7};
static void want(TakyonPeerBuffers *w, int peer, size_t *send_store) {
  w->peer = peer;
  w->nbufs_send = rank_ < peer ? 3 : 1;
  w->nbufs_recv = rank_ < peer ? 1 : 3;
  w->send_bytes = rank_ < peer ? sizes_ : sizes_ + 3;
  w->recv_bytes = rank_ < peer ? sizes_ + 3 : sizes_;
  for (int b = 0; b < w->nbufs_send; ++b) send_store[b] = (size_t)malloc((size_t)w->send_bytes[b]);
  w->send_addrs = send_store;
  w->recv_addrs = NULL;
}

static void run(int npeers, TakyonPeerBuffers *wants, size_t (*stores)[3], const char *what) {
  TakyonPath *paths[64] = {0};
  char *why = NULL;
  if (!takyonMpiCreatePaths(MPI_COMM_WORLD, npeers, wants, NULL, paths, &why)) {
    fprintf(stderr, "rank %d: %s: %s\n", rank_, what, why);
    CHECK(0);
  }
  for (int k = 0; k < npeers; ++k) {
    CHECK(paths[k] != NULL);
    CHECK(paths[k]->attrs.sender_addr_list[0] == stores[k][0]); /* the application's memory, zero copy */
  }
  exchange(npeers, wants, paths, 3);
  CHECK(takyonMpiDestroyPaths(npeers, paths, &why));
  for (int k = 0; k < npeers; ++k) {
    CHECK(paths[k] == NULL);
    for (int b = 0; b < wants[k].nbufs_send; ++b) free((void *)stores[k][b]);
  }
  if (rank_ == 0) printf("%s: ok\n", what);
}

/* A request that must fail on every rank with a message containing `expect`. */
static void expect_failure(int npeers, const TakyonPeerBuffers *wants, const TakyonGroupOptions *options,
                           const char *expect, const char *what) {
  TakyonPath *paths[64] = {0};
  char *why = NULL;
  const int ok = takyonMpiCreatePaths(MPI_COMM_WORLD, npeers, wants, options, paths, &why) ? 1 : 0;
  int any_ok = 0;
  MPI_Allreduce(&ok, &any_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_ok != 0 || why == NULL || strstr(why, expect) == NULL) {
    fprintf(stderr, "rank %d: %s: expected every rank to fail with '%s', got %s\n", rank_, what, expect,
            why != NULL ? why : "success");
    CHECK(0);
  }
  for (int k = 0; k < npeers; ++k) CHECK(paths[k] == NULL);
  /* Every rank has the same message. */
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
  if (argc > 1 && strcmp(argv[1], "die") == 0) {
    if (rank_ == 1) _exit(7);
    TakyonPeerBuffers none;
    TakyonPath *path = NULL;
    takyonMpiCreatePaths(MPI_COMM_WORLD, 0, &none, NULL, &path, NULL);
    fprintf(stderr, "rank %d: the creation returned although rank 1 is gone\n", rank_);
    MPI_Finalize();
    return 0; /* the job still fails: rank 1 exited with 7 */
  }
  TakyonPeerBuffers wants[64];
  size_t stores[64][3];

  /* A ring: the ranks before and after (one peer at np 2, none at np 1). */
  int n = 0;
  if (size_ > 1) want(&wants[n], (rank_ + 1) % size_, stores[n]), ++n;
  if (size_ > 2) want(&wants[n], (rank_ + size_ - 1) % size_, stores[n]), ++n;
  run(n, wants, stores, "ring");

  /* Every pair, listed from the highest peer down (the library orders the creations). */
  n = 0;
  for (int peer = size_ - 1; peer >= 0; --peer) {
    if (peer != rank_) want(&wants[n], peer, stores[n]), ++n;
  }
  run(n, wants, stores, "all pairs");

  if (size_ >= 2) {
    size_t dummy[3] = {0, 0, 0};
    TakyonPeerBuffers w;
    memset(&w, 0, sizeof w);
    w.nbufs_send = 1;
    w.nbufs_recv = 1;
    w.send_bytes = sizes_;
    w.recv_bytes = sizes_;
    /* A peer outside the communicator, named by rank 0 only. */
    w.peer = rank_ == 0 ? size_ : (rank_ == 1 ? 0 : 1);
    expect_failure(rank_ <= 1 ? 1 : 0, &w, NULL, "outside the group", "peer outside the communicator");
    /* Rank 0 asks for a path to rank 1, which asks for none. */
    w.peer = 1;
    expect_failure(rank_ == 0 ? 1 : 0, &w, NULL, "which asked for none", "a path only one side asked for");
    /* Buffer counts that do not match. */
    w.peer = 1 - (rank_ <= 1 ? rank_ : 1);
    w.nbufs_send = rank_ == 0 ? 2 : 1;
    uint64_t two[2] = {100, 100};
    w.send_bytes = two;
    expect_failure(rank_ <= 1 ? 1 : 0, &w, NULL, "buffer counts differ", "mismatched buffer counts");
    /* Application receive memory where the provider has only its own. */
    w.nbufs_send = 1;
    w.recv_addrs = dummy;
    dummy[0] = (size_t)&dummy[1];
    expect_failure(rank_ <= 1 ? 1 : 0, &w, NULL, "receives only into its own memory",
                   "application receive buffer");
    w.recv_addrs = NULL;
    /* A provider that cannot join processes. */
    TakyonGroupOptions o = takyonGroupDefaultOptions();
    o.same_host_provider = "InterThreadMemcpy";
    expect_failure(rank_ <= 1 ? 1 : 0, &w, &o, "cannot join two processes", "a provider for threads");
    o.same_host_provider = "NoSuchProvider";
    expect_failure(rank_ <= 1 ? 1 : 0, &w, &o, "is not in this libtakyon", "an unknown provider");
  }

  /* After the refusals, another provider of the table (a socket) still gives working paths. */
  n = 0;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer != rank_) want(&wants[n], peer, stores[n]), ++n;
  }
  TakyonGroupOptions o = takyonGroupDefaultOptions();
  o.same_host_provider = "InterProcessSocket";
  o.is_polling = false;
  TakyonPath *paths[64] = {0};
  char *why = NULL;
  if (!takyonMpiCreatePaths(MPI_COMM_WORLD, n, wants, &o, paths, &why)) {
    fprintf(stderr, "rank %d: sockets: %s\n", rank_, why);
    CHECK(0);
  }
  exchange(n, wants, paths, 2);
  CHECK(takyonMpiDestroyPaths(n, paths, &why));
  for (int k = 0; k < n; ++k) {
    for (int b = 0; b < wants[k].nbufs_send; ++b) free((void *)stores[k][b]);
  }
  if (rank_ == 0) printf("event-driven socket paths: ok\n");
  MPI_Finalize();
  return 0;
}
