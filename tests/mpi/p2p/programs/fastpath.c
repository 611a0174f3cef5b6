/* SPDX-License-Identifier: MIT */
/* The blocking-receive fast path (an eager message copied from the ring straight into the buffer)
 * and its hand-over to the general path: messages skipped by tag that must stay queued in order, a
 * receive posted earlier that must match first, ANY_SOURCE / ANY_TAG over every sender, synchronous,
 * rendezvous and zero-byte messages in one ordered stream, truncation, self-sends, Sendrecv (its send
 * goes first when it can go at once). Rank 0 receives, every other rank sends. np 1-5. */
#include "test_util.h"

#define BIG (64 * 1024 + 3) /* rendezvous on every channel */
#define PER_SOURCE 40

static unsigned seed_of(int source, int tag, int i) {
  return (unsigned)(source * 1000 + tag * 50 + i);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Status st;
  int count = -1;
  unsigned char *big = (unsigned char *)malloc(BIG);
  CHECK(big != NULL);

  /* 1. tags received out of order: the fast path queues what it skips, in order */
  if (rank != 0) {
    for (int tag = 1; tag <= 3; ++tag) {
      int v = rank * 100 + tag;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD));
    }
    int v2 = rank * 100 + 9;
    CHECK_MPI(MPI_Send(&v2, 1, MPI_INT, 0, 2, MPI_COMM_WORLD)); /* a second tag-2 message, after tag 3 */
  } else {
    for (int s = 1; s < size; ++s) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, s, 3, MPI_COMM_WORLD, &st));
      CHECK(v == s * 100 + 3 && st.MPI_SOURCE == s && st.MPI_TAG == 3);
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, s, 2, MPI_COMM_WORLD, &st));
      CHECK(v == s * 100 + 2 && st.MPI_TAG == 2);
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(v == s * 100 + 1 && st.MPI_TAG == 1);
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, s, 2, MPI_COMM_WORLD, &st));
      CHECK(v == s * 100 + 9 && st.MPI_TAG == 2);
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(count == 1);
    }
  }
  PRINT0("out-of-order tags ok (%d senders)\n", size - 1);

  /* 2. a receive posted before a blocking one matches first (non-overtaking, same tag) */
  if (rank != 0) {
    for (int i = 0; i < 5; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
  } else {
    for (int s = 1; s < size; ++s) {
      int first = -1, v = -1;
      MPI_Request req;
      CHECK_MPI(MPI_Irecv(&first, 1, MPI_INT, s, 7, MPI_COMM_WORLD, &req));
      for (int i = 1; i < 5; ++i) {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, s, 7, MPI_COMM_WORLD, &st));
        CHECK(v == i);
      }
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK(first == 0 && st.MPI_SOURCE == s);
    }
  }
  PRINT0("posted receive before a blocking one ok\n");

  /* 3. ANY_SOURCE from every sender at once: each source's messages arrive in send order */
  if (rank != 0) {
    for (int i = 0; i < PER_SOURCE; ++i) {
      int v = rank * 65536 + i;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
  } else {
    int next[8] = {0};
    long sum = 0;
    for (int k = 0; k < (size - 1) * PER_SOURCE; ++k) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
      int s = st.MPI_SOURCE;
      CHECK(s >= 1 && s < size && s < 8 && v == s * 65536 + next[s]);
      ++next[s];
      sum += v & 0xffff;
    }
    for (int s = 1; s < size && s < 8; ++s) CHECK(next[s] == PER_SOURCE);
    PRINT0("ANY_SOURCE: %d messages in per-source order, sum %ld\n", (size - 1) * PER_SOURCE, sum);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* 4. one ordered stream of eager, rendezvous, synchronous and zero-byte messages, ANY_TAG */
  if (rank != 0) {
    unsigned char small[100];
    fill_pattern(small, sizeof small, seed_of(rank, 1, 0));
    CHECK_MPI(MPI_Send(small, (int)sizeof small, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
    fill_pattern(big, BIG, seed_of(rank, 2, 0));
    CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
    fill_pattern(small, sizeof small, seed_of(rank, 3, 0));
    CHECK_MPI(MPI_Ssend(small, 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD));
    fill_pattern(small, sizeof small, seed_of(rank, 5, 0));
    CHECK_MPI(MPI_Send(small, 40, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
  } else {
    for (int s = 1; s < size; ++s) {
      const int want_bytes[5] = {100, BIG, 8, 0, 40};
      for (int tag = 1; tag <= 5; ++tag) {
        memset(big, 0xee, BIG);
        CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_TAG == tag && st.MPI_SOURCE == s && count == want_bytes[tag - 1]);
        CHECK(check_pattern(big, (size_t)count, seed_of(s, tag, 0)) == -1);
        CHECK(count == BIG || big[count] == 0xee); /* nothing written past the message */
      }
    }
  }
  PRINT0("eager, rendezvous, synchronous, zero-byte in order ok\n");

  /* 5. truncation through a blocking receive: MPI_ERR_TRUNCATE, the buffer holds what fits */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank != 0) {
    int v[16];
    for (int i = 0; i < 16; ++i) v[i] = rank + i;
    CHECK_MPI(MPI_Send(v, 16, MPI_INT, 0, 6, MPI_COMM_WORLD));
  } else {
    for (int s = 1; s < size; ++s) {
      int v[5] = {-1, -1, -1, -1, -1};
      int err = MPI_Recv(v, 4, MPI_INT, s, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      int cls = -1;
      MPI_Error_class(err, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE);
      CHECK(v[0] == s && v[3] == s + 3 && v[4] == -1);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  PRINT0("truncation ok\n");

  /* 6. self-sends and a ring of blocking receives (every rank receives once) */
  int self = rank * 3, got = -1;
  CHECK_MPI(MPI_Send(&self, 1, MPI_INT, rank, 8, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st));
  CHECK(got == rank * 3 && st.MPI_SOURCE == rank);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 20; ++round) {
    int out = rank * 1000 + round, in = -1;
    if (rank % 2 == 0) {
      CHECK_MPI(MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
    } else {
      CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    }
    CHECK(in == left * 1000 + round && st.MPI_SOURCE == left);
  }
  PRINT0("self-send and ring ok\n");

  /* 7. Sendrecv around the ring: an eager send that goes at once, then the receive (any source too);
   * a rendezvous send takes the general path */
  for (int round = 0; round < 10; ++round) {
    int out[3] = {rank, round, 7}, in[3] = {-1, -1, -1};
    int src = round % 2 ? MPI_ANY_SOURCE : left;
    CHECK_MPI(MPI_Sendrecv(out, 3, MPI_INT, right, 10 + round, in, 3, MPI_INT, src, 10 + round,
                           MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(in[0] == left && in[1] == round && in[2] == 7 && st.MPI_SOURCE == left &&
          st.MPI_TAG == 10 + round && count == 3);
  }
  unsigned char *big_in = (unsigned char *)malloc(BIG);
  CHECK(big_in != NULL);
  fill_pattern(big, BIG, seed_of(rank, 11, 0));
  CHECK_MPI(
      MPI_Sendrecv(big, BIG, MPI_BYTE, right, 11, big_in, BIG, MPI_BYTE, left, 11, MPI_COMM_WORLD, &st));
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == BIG && check_pattern(big_in, BIG, seed_of(left, 11, 0)) == -1);
  free(big_in);
  PRINT0("Sendrecv ring ok\n");

  free(big);
  MPI_Finalize();
  return 0;
}
