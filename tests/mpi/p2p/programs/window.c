/* SPDX-License-Identifier: MIT */
/* The windowed pattern of the common MPI benchmarks (OSU, IMB): every message of a window is sent from
 * the same send buffer and every receive of the window is posted into the same receive buffer. Message
 * w of a window carries the first n - w bytes of that one buffer, so each receive's count says which
 * message it matched: per source, the window's receives must match in the order they were posted
 * (non-overtaking), whatever protocol moves each message (eager, single copy, pipeline). The receive
 * buffer must end up holding the pattern over n bytes (message 0's length) with the guard after it
 * untouched. Three shapes at sizes across every protocol threshold:
 *   fan-in: ranks 1..np-1 each send a window to rank 0, which posts them by source, then the same
 *           again with MPI_ANY_SOURCE (all sources' receives into the one buffer);
 *   bidirectional: every pair (i, i + np/2) exchanges windows at once, receives posted first;
 *   unexpected: the sends arrive before the receives are posted (a barrier between).
 * np >= 2 (np 1: a window to itself). Run also with TAKYON_MPI_CMA=0 and TAKYON_MPI_SHARED_HEAP=0. */
#include "test_util.h"

#define W 16
#define GUARD 64
static const size_t kSizes[] = {
    W, 64, 1000, 8192, 8232 + W, 65536, (1 << 20), (1 << 20) + W, (2 << 20) + 4097};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])
#define MAXBYTES ((2 << 20) + 4097)

static unsigned char *g_send, *g_recv;

static void clear_recv(size_t n) {
  memset(g_recv, 0xee, n + GUARD);
}

/* The receive buffer holds the pattern over n bytes and the guard after it is untouched. */
static void check_recv(size_t n, unsigned seed) {
  CHECK(check_pattern(g_recv, n, seed) == -1);
  for (size_t i = 0; i < GUARD; ++i) CHECK(g_recv[n + i] == 0xee);
}

static void send_window(int dest, size_t n, int tag, MPI_Request *reqs) {
  for (int w = 0; w < W; ++w)
    CHECK_MPI(MPI_Isend(g_send, (int)(n - (size_t)w), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs[w]));
}

static void post_window(int source, size_t n, int tag, MPI_Request *reqs) {
  for (int w = 0; w < W; ++w)
    CHECK_MPI(MPI_Irecv(g_recv, (int)n, MPI_BYTE, source, tag, MPI_COMM_WORLD, &reqs[w]));
}

/* Receives posted in order for one source: the w-th matched message w (count n - w). */
static void check_window(const MPI_Status *sts, size_t n, int source, int tag) {
  for (int w = 0; w < W; ++w) {
    int count = -1;
    MPI_Get_count(&sts[w], MPI_BYTE, &count);
    CHECK(sts[w].MPI_SOURCE == source && sts[w].MPI_TAG == tag);
    CHECK(count == (int)(n - (size_t)w));
  }
}

static void fan_in(int rank, int size, size_t n, unsigned seed, int any_source) {
  const int tag = any_source ? 3 : 2;
  if (rank == 0) {
    static MPI_Request reqs[64 * W];
    static MPI_Status sts[64 * W];
    const int senders = size - 1;
    clear_recv(n);
    for (int s = 1; s <= senders; ++s)
      post_window(any_source ? MPI_ANY_SOURCE : s, n, tag, reqs + (s - 1) * W);
    CHECK_MPI(MPI_Waitall(senders * W, reqs, sts));
    if (!any_source) {
      for (int s = 1; s <= senders; ++s) check_window(sts + (s - 1) * W, n, s, tag);
    } else {
      /* Per source, the receives it matched (in posting order) carry its messages in order. */
      for (int s = 1; s <= senders; ++s) {
        int next = 0;
        for (int k = 0; k < senders * W; ++k) {
          if (sts[k].MPI_SOURCE != s) continue;
          int count = -1;
          MPI_Get_count(&sts[k], MPI_BYTE, &count);
          CHECK(sts[k].MPI_TAG == tag && count == (int)(n - (size_t)next));
          ++next;
        }
        CHECK(next == W);
      }
    }
    check_recv(n, seed);
  } else {
    MPI_Request reqs[W];
    send_window(0, n, tag, reqs);
    CHECK_MPI(MPI_Waitall(W, reqs, MPI_STATUSES_IGNORE));
  }
}

static void bidirectional(int rank, int size, size_t n, unsigned seed) {
  const int half = size / 2;
  if (rank >= 2 * half) return; /* odd np: the last rank sits out */
  const int peer = rank < half ? rank + half : rank - half;
  MPI_Request reqs[2 * W];
  MPI_Status sts[2 * W];
  clear_recv(n);
  post_window(peer, n, 4, reqs);
  send_window(peer, n, 4, reqs + W);
  CHECK_MPI(MPI_Waitall(2 * W, reqs, sts));
  check_window(sts, n, peer, 4);
  check_recv(n, seed);
}

static void unexpected(int rank, int size, size_t n, unsigned seed) {
  const int half = size / 2;
  MPI_Request reqs[W];
  MPI_Status sts[W];
  const int sender = rank < half, receiver = rank >= half && rank < 2 * half;
  const int peer = sender ? rank + half : rank - half;
  if (sender) send_window(peer, n, 5, reqs);
  /* The sends' envelopes (eager data, rendezvous requests) are on their way before any receive. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (receiver) {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    clear_recv(n);
    post_window(peer, n, 5, reqs);
    CHECK_MPI(MPI_Waitall(W, reqs, sts));
    check_window(sts, n, peer, 5);
    check_recv(n, seed);
  }
  if (sender) CHECK_MPI(MPI_Waitall(W, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  CHECK(size <= 64);
  g_send = malloc(MAXBYTES);
  g_recv = malloc(MAXBYTES + GUARD);
  CHECK(g_send != NULL && g_recv != NULL);
  long windows = 0;
  for (size_t s = 0; s < NSIZES; ++s) {
    const size_t n = kSizes[s];
    const unsigned seed = (unsigned)(s * 29 + 5);
    fill_pattern(g_send, n, seed); /* the same bytes on every rank: any sender's message fits */
    if (size == 1) {
      MPI_Request reqs[2 * W];
      MPI_Status sts[2 * W];
      clear_recv(n);
      post_window(0, n, 1, reqs);
      send_window(0, n, 1, reqs + W);
      CHECK_MPI(MPI_Waitall(2 * W, reqs, sts));
      check_window(sts, n, 0, 1);
      check_recv(n, seed);
      ++windows;
      continue;
    }
    fan_in(rank, size, n, seed, 0);
    fan_in(rank, size, n, seed, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    bidirectional(rank, size, n, seed);
    MPI_Barrier(MPI_COMM_WORLD);
    unexpected(rank, size, n, seed);
    MPI_Barrier(MPI_COMM_WORLD);
    windows += 2 * (size - 1) + 2 * (size / 2) + size / 2;
  }
  free(g_send);
  free(g_recv);
  PRINT0("window: %ld windows of %d messages from one buffer into one buffer, in order, bytes checked\n",
         windows, W);
  MPI_Finalize();
  return 0;
}
