/* SPDX-License-Identifier: MIT */
/* Matching: tags received out of order, MPI_ANY_TAG / MPI_ANY_SOURCE, non-overtaking order per
 * source, an ANY_SOURCE race from every rank, self-sends, zero-byte messages, MPI_PROC_NULL. np 1-4. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  MPI_Status st;
  int v = -1, count = -1;

  /* self-send with tags received in reverse order, then ANY_TAG keeps send order. Tags 20-24 are
   * used by no later phase: other ranks may already be sending their phase's messages (rank 2 needs
   * only rank 1's zero-byte message to start sending tags 0 and 1 to rank 0), and an ANY_SOURCE
   * receive may match any source's message (Open MPI does). */
  for (int t = 0; t < 5; ++t) {
    int x = 100 + t;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, rank, 20 + t, MPI_COMM_WORLD));
  }
  for (int t = 4; t >= 2; --t) {
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, 20 + t, MPI_COMM_WORLD, &st));
    CHECK(v == 100 + t && st.MPI_TAG == 20 + t && st.MPI_SOURCE == rank);
  }
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st));
  CHECK(v == 100 && st.MPI_TAG == 20 && st.MPI_SOURCE == rank);
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(v == 101 && st.MPI_TAG == 21);
  PRINT0("self-send tag matching ok\n");

  /* MPI_COMM_SELF */
  v = 5;
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
  v = 0;
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &st));
  CHECK(v == 5 && st.MPI_SOURCE == 0);
  PRINT0("MPI_COMM_SELF ok\n");

  /* zero-byte and PROC_NULL */
  CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, (rank + 1) % size, 11, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, (rank + size - 1) % size, 11, MPI_COMM_WORLD, &st));
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 0 && st.MPI_SOURCE == (rank + size - 1) % size && st.MPI_TAG == 11);
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
  PRINT0("zero-byte and MPI_PROC_NULL ok\n");

  /* non-overtaking: every rank sends 200 numbered messages (mixed sizes: eager and rendezvous) to
   * rank 0 with two tags; rank 0 receives ANY_SOURCE/ANY_TAG and checks each source's order */
  enum { kMsgs = 200 };
  static int big[20000];
  if (rank != 0) {
    for (int i = 0; i < kMsgs; ++i) {
      int n = (i % 10 == 0) ? 20000 : 1;
      big[0] = i;
      big[n - 1] = i;
      CHECK_MPI(MPI_Send(big, n, MPI_INT, 0, i % 2, MPI_COMM_WORLD));
    }
  } else {
    int next[4] = {0, 0, 0, 0};
    for (int k = 0; k < kMsgs * (size - 1); ++k) {
      CHECK_MPI(MPI_Recv(big, 20000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK(src > 0 && src < size);
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(big[0] == next[src] && st.MPI_TAG == next[src] % 2 && big[count - 1] == next[src]);
      CHECK(count == ((next[src] % 10 == 0) ? 20000 : 1));
      next[src]++;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("non-overtaking with ANY_SOURCE/ANY_TAG ok\n");

  /* specific source + ANY_TAG, posted in the opposite order of arrival */
  if (rank != 0) {
    for (int t = 0; t < 3; ++t) {
      v = rank * 10 + t;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
    }
  } else {
    for (int src = size - 1; src >= 1; --src) {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, src, 2, MPI_COMM_WORLD, &st));
      CHECK(v == src * 10 + 2);
      for (int t = 0; t < 2; ++t) {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(v == src * 10 + t && st.MPI_TAG == t);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("source/tag selection ok\n");

  /* ANY_SOURCE race: all ranks send at once, rank 0 gets exactly one from each */
  if (rank != 0) {
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
  } else {
    int seen = 0;
    for (int k = 1; k < size; ++k) {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st));
      CHECK(v == st.MPI_SOURCE && !(seen & (1 << v)));
      seen |= 1 << v;
    }
    CHECK(seen == ((1 << size) - 2));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("ANY_SOURCE race ok\n");
  MPI_Finalize();
  return 0;
}
