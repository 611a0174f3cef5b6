/* SPDX-License-Identifier: MIT */
/* Ping-pong between rank 0 and every other rank, sizes 0 B .. 8 MiB, every byte checked; blocking
 * Send/Recv, then Sendrecv around a ring. np >= 1 (np 1: self-sends only). */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  static const size_t sizes[] = {
      0,    1,    8,    39,    40,     41,     64,     1000,    4071,          4072,   4073,
      8192, 8232, 8233, 65536, 131071, 131072, 131073, 1 << 20, (1 << 20) + 3, 8 << 20};
  const size_t nsizes = sizeof sizes / sizeof sizes[0];
  unsigned char *buf = malloc((8 << 20) + 8);
  CHECK(buf != NULL);
  for (size_t s = 0; s < nsizes; ++s) {
    size_t n = sizes[s];
    for (int peer = 1; peer < size; ++peer) {
      unsigned seed = (unsigned)(s * 31 + (size_t)peer);
      if (rank == 0) {
        fill_pattern(buf, n, seed);
        CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, peer, (int)s, MPI_COMM_WORLD));
        memset(buf, 0, n);
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, (int)s + 100, MPI_COMM_WORLD, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n && st.MPI_SOURCE == peer && st.MPI_TAG == (int)s + 100);
        CHECK(check_pattern(buf, n, seed + 1) == -1);
      } else if (rank == peer) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 0, (int)s, MPI_COMM_WORLD, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n);
        CHECK(check_pattern(buf, n, seed) == -1);
        fill_pattern(buf, n, seed + 1);
        CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, (int)s + 100, MPI_COMM_WORLD));
      }
    }
    /* ring Sendrecv: everyone sends to rank+1 and receives from rank-1 (self with np 1) */
    unsigned char *out = malloc(n + 1);
    CHECK(out != NULL);
    fill_pattern(out, n, (unsigned)(1000 + rank));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    CHECK_MPI(
        MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 7, buf, (int)n, MPI_BYTE, prev, 7, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == prev);
    CHECK(check_pattern(buf, n, (unsigned)(1000 + prev)) == -1);
    free(out);
    PRINT0("size %zu ok\n", n);
  }
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("pingpong done\n");
  MPI_Finalize();
  return 0;
}
