/* SPDX-License-Identifier: MIT */
/* Large messages through every rendezvous branch: the lone single copy, the split single copy (the
 * receiver reads the head while the sender writes the tail) and the pipeline, at and around their
 * thresholds (4 KiB probe, 128 KiB split, 1 MiB single-copy limit), posted and unexpected, truncated,
 * non-contiguous, synchronous, freed while active, several in flight, both directions at once, from
 * every rank to rank 0 at once. Every byte checked, and the bytes after each receive buffer too.
 * np >= 2 (np 1: self-sends only). Run also with TAKYON_MPI_CMA=0 / readonly / split (CMakeLists). */
#include "test_util.h"

#define GUARD 64
static const size_t kSizes[] = {8193,   65536,  131071,  131072,  131073,        135168,
                                262149, 524288, 1048575, 1 << 20, (1 << 20) + 1, (2 << 20) + 4097};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])
#define MAXBYTES ((2 << 20) + 4097)

static unsigned char *g_buf, *g_out;

/* The buffer's first n bytes hold message `seed` and the GUARD bytes after them are untouched (0xee). */
static void check_recv(const unsigned char *buf, size_t n, unsigned seed) {
  CHECK(check_pattern(buf, n, seed) == -1);
  for (size_t i = 0; i < GUARD; ++i) CHECK(buf[n + i] == 0xee);
}

static void clear(unsigned char *buf, size_t n) {
  memset(buf, 0xee, n + GUARD);
}

/* Rank 0 and `peer` exchange one message each way per size; posted: the receive is posted first. */
static void pingpong(int rank, int peer, int posted) {
  for (size_t s = 0; s < NSIZES; ++s) {
    size_t n = kSizes[s];
    unsigned seed = (unsigned)(s * 13 + (size_t)peer * 3 + (unsigned)posted);
    if (rank == 0) {
      fill_pattern(g_out, n, seed);
      CHECK_MPI(MPI_Send(g_out, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
      clear(g_buf, n);
      MPI_Status st;
      CHECK_MPI(MPI_Recv(g_buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st));
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == (int)n);
      check_recv(g_buf, n, seed + 1);
    } else if (rank == peer) {
      clear(g_buf, n);
      MPI_Status st;
      if (posted) {
        MPI_Request rq;
        CHECK_MPI(MPI_Irecv(g_buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
      } else {
        /* Let the rendezvous request arrive first: it waits in the unexpected queue. */
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(g_buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
      }
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == (int)n && st.MPI_SOURCE == 0 && st.MPI_TAG == 1);
      check_recv(g_buf, n, seed);
      fill_pattern(g_out, n, seed + 1);
      CHECK_MPI(MPI_Send(g_out, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
    }
  }
}

/* A receive shorter than the message: MPI_ERR_TRUNCATE, the buffer holds the message's first bytes
 * and nothing is written past it. */
static void truncated(int rank, int size) {
  static const size_t sent[] = {300000, 1 << 20};
  static const size_t room[] = {200000, (1 << 20) - 4096};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int k = 0; k < 2; ++k) {
    unsigned seed = 70u + (unsigned)k;
    if (rank == 0) {
      fill_pattern(g_out, sent[k], seed);
      CHECK_MPI(MPI_Send(g_out, (int)sent[k], MPI_BYTE, size - 1, 3, MPI_COMM_WORLD));
    } else if (rank == size - 1) {
      clear(g_buf, room[k]);
      MPI_Status st;
      int rc = MPI_Recv(g_buf, (int)room[k], MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
      int cls = -1;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE);
      /* (Open MPI may write past a truncated receive's buffer: the guard is checked on ours only.) */
      CHECK(check_pattern(g_buf, room[k], seed) == -1);
      if (takyon_mpi()) check_recv(g_buf, room[k], seed);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  PRINT0("truncated ok\n");
}

/* Strided data on either side: a vector of 8-byte blocks with stride 16, 64 Ki blocks (512 KiB). */
static void noncontiguous(int rank, int size) {
  const int blocks = 65536;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(blocks, 8, 16, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  const size_t packed = (size_t)blocks * 8, span = (size_t)blocks * 16;
  int peer = size - 1;
  if (rank == 0) {
    /* strided -> contiguous */
    for (size_t i = 0; i < span; ++i)
      g_out[i] = (unsigned char)((i % 16) < 8 ? pattern_byte(9, (i / 16) * 8 + i % 16) : 0x55);
    CHECK_MPI(MPI_Send(g_out, 1, vec, peer, 4, MPI_COMM_WORLD));
    /* contiguous -> strided */
    fill_pattern(g_out, packed, 10);
    CHECK_MPI(MPI_Send(g_out, (int)packed, MPI_BYTE, peer, 5, MPI_COMM_WORLD));
  } else if (rank == peer) {
    clear(g_buf, packed);
    CHECK_MPI(MPI_Recv(g_buf, (int)packed, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_recv(g_buf, packed, 9);
    memset(g_buf, 0x77, span + GUARD);
    CHECK_MPI(MPI_Recv(g_buf, 1, vec, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < span; ++i) {
      unsigned char want = (i % 16) < 8 ? pattern_byte(10, (i / 16) * 8 + i % 16) : 0x77;
      CHECK(g_buf[i] == want);
    }
  }
  CHECK_MPI(MPI_Type_free(&vec));
  PRINT0("noncontiguous ok\n");
}

/* Synchronous sends, a send freed while active, several in flight to one peer, both directions at once. */
static void modes(int rank, int size) {
  int peer = size - 1;
  const size_t n = 393216 + 5;
  if (rank == 0) {
    fill_pattern(g_out, n, 20);
    CHECK_MPI(MPI_Ssend(g_out, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
    /* Freed while active: its buffer stays untouched until the peer confirms receipt. */
    unsigned char *own = malloc(n);
    CHECK(own != NULL);
    fill_pattern(own, n, 21);
    MPI_Request rq;
    CHECK_MPI(MPI_Isend(own, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Request_free(&rq));
    int ok = 0;
    CHECK_MPI(MPI_Recv(&ok, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(ok == 1);
    free(own);
    /* Three in flight (the first may go single-copy, the others through the pipeline). */
    MPI_Request rs[3];
    for (int k = 0; k < 3; ++k) {
      fill_pattern(g_out + (size_t)k * n, n, 30u + (unsigned)k);
      CHECK_MPI(MPI_Isend(g_out + (size_t)k * n, (int)n, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &rs[k]));
    }
    CHECK_MPI(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
  } else if (rank == peer) {
    clear(g_buf, n);
    CHECK_MPI(MPI_Recv(g_buf, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_recv(g_buf, n, 20);
    clear(g_buf, n);
    CHECK_MPI(MPI_Recv(g_buf, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_recv(g_buf, n, 21);
    int ok = 1;
    CHECK_MPI(MPI_Send(&ok, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
    for (int k = 0; k < 3; ++k) {
      clear(g_buf, n);
      CHECK_MPI(MPI_Recv(g_buf, (int)n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_recv(g_buf, n, 30u + (unsigned)k);
    }
  }
  /* Everyone exchanges 1 MiB with its ring neighbours at once. */
  const size_t m = 1 << 20;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  fill_pattern(g_out, m, 40u + (unsigned)rank);
  clear(g_buf, m);
  CHECK_MPI(MPI_Sendrecv(g_out, (int)m, MPI_BYTE, next, 10, g_buf, (int)m, MPI_BYTE, prev, 10, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  check_recv(g_buf, m, 40u + (unsigned)prev);
  PRINT0("modes ok\n");
}

/* Every other rank sends 512 KiB + 1 to rank 0 at once; rank 0 takes them with MPI_ANY_SOURCE. A
 * receive posted and cancelled before them must not take one. */
static void fan_in(int rank, int size) {
  const size_t n = 524289;
  if (rank == 0) {
    MPI_Request cancelled;
    CHECK_MPI(MPI_Irecv(g_buf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &cancelled));
    CHECK_MPI(MPI_Cancel(&cancelled));
    MPI_Status cst;
    CHECK_MPI(MPI_Wait(&cancelled, &cst));
    int flag = 0;
    CHECK_MPI(MPI_Test_cancelled(&cst, &flag));
    CHECK(flag == 1);
    int seen = 0;
    for (int k = 1; k < size; ++k) {
      unsigned char *b = g_buf + (size_t)k * (n + GUARD);
      clear(b, n);
      MPI_Status st;
      CHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st));
      check_recv(b, n, 50u + (unsigned)st.MPI_SOURCE);
      seen |= 1 << st.MPI_SOURCE;
    }
    CHECK(seen == ((1 << size) - 2));
  } else {
    fill_pattern(g_out, n, 50u + (unsigned)rank);
    CHECK_MPI(MPI_Send(g_out, (int)n, MPI_BYTE, 0, 11, MPI_COMM_WORLD));
  }
  PRINT0("fan-in ok\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  g_buf = malloc((size_t)6 * MAXBYTES);
  g_out = malloc((size_t)3 * MAXBYTES);
  CHECK(g_buf != NULL && g_out != NULL);
  for (int posted = 0; posted < 2 && size > 1; ++posted) {
    for (int peer = 1; peer < size; ++peer) pingpong(rank, peer, posted);
    PRINT0("pingpong %s ok\n", posted ? "posted" : "unexpected");
  }
  if (size > 1) {
    truncated(rank, size);
    noncontiguous(rank, size);
    modes(rank, size);
    fan_in(rank, size);
  }
  free(g_buf);
  free(g_out);
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("bigmsg done\n");
  MPI_Finalize();
  return 0;
}
