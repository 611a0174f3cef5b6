/* SPDX-License-Identifier: MIT */
/* halo_mpi.c with only its halo exchange ported to Takyon paths: one path to the rank above and one
 * to the rank below, made once by takyonMpiCreatePaths over MPI_COMM_WORLD. Everything else (set-up,
 * the compute loop, the final gather) stays MPI. Builds with takyon-mpicc or any other MPI's mpicc,
 * linked with libtakyon.
 * Each path registers two send buffers, this rank's boundary row in each of the two grids (the
 * sends copy straight from the grid), and two receive buffers. Iteration t uses buffer t % 2 both
 * ways, and that is all the flow control it needs: this rank writes buffer t % 2 of a neighbour again
 * at iteration t + 2 only after receiving the neighbour's message of t + 1, which the neighbour sent
 * after it had taken this rank's message of t out of that buffer.
 *   mpirun -np 4 ./halo_paths [nx ny iterations [--time]] */
#include <takyon/takyon_mpi.h>

#include "halo_common.h"

enum { kUp = 0, kDown = 1 };

typedef struct {
  TakyonPath *paths[2]; /* to the rank above and below, where there is one */
  int index[2];         /* which entry of paths[] leads up / down, -1 for none */
  int npaths;
} HaloPaths;

static void die(const char *what, char *why) {
  fprintf(stderr, "halo_paths: %s: %s\n", what, why != NULL ? why : "failed");
  free(why);
  MPI_Abort(MPI_COMM_WORLD, 4);
}

static void create_paths(Halo *h, HaloPaths *hp) {
  const uint64_t row_bytes = (uint64_t)h->nx * sizeof(double);
  uint64_t sizes[2] = {row_bytes, row_bytes};
  size_t up_rows[2], down_rows[2];
  TakyonPeerBuffers wants[2];
  hp->npaths = 0;
  hp->index[kUp] = hp->index[kDown] = -1;
  for (int p = 0; p < 2; ++p) {
    up_rows[p] = (size_t)halo_row(h, p, 1);
    down_rows[p] = (size_t)halo_row(h, p, h->rows);
  }
  for (int side = kUp; side <= kDown; ++side) {
    const int peer = side == kUp ? h->rank - 1 : h->rank + 1;
    if (peer < 0 || peer >= h->size) continue;
    TakyonPeerBuffers *w = &wants[hp->npaths];
    w->peer = peer;
    w->nbufs_send = 2;
    w->send_bytes = sizes;
    w->send_addrs = side == kUp ? up_rows : down_rows;
    w->nbufs_recv = 2;
    w->recv_bytes = sizes;
    w->recv_addrs = NULL;
    hp->index[side] = hp->npaths++;
  }
  char *why = NULL;
  if (!takyonMpiCreatePaths(MPI_COMM_WORLD, hp->npaths, wants, NULL, hp->paths, &why))
    die("creating the paths", why);
}

static void exchange(Halo *h, HaloPaths *hp, int parity) {
  const uint64_t row_bytes = (uint64_t)h->nx * sizeof(double);
  for (int k = 0; k < hp->npaths; ++k) {
    if (!takyonSend(hp->paths[k], parity, row_bytes, 0, 0, NULL)) die("takyonSend", NULL);
  }
  for (int side = kUp; side <= kDown; ++side) {
    if (hp->index[side] < 0) continue;
    TakyonPath *path = hp->paths[hp->index[side]];
    uint64_t bytes = 0, offset = 0;
    if (!takyonRecv(path, parity, &bytes, &offset, NULL) || bytes != row_bytes) die("takyonRecv", NULL);
    double *halo = halo_row(h, parity, side == kUp ? 0 : h->rows + 1);
    memcpy(halo, (const char *)path->attrs.recver_addr_list[parity] + offset, (size_t)row_bytes);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Halo h;
  if (halo_setup(&h, argc, argv) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  HaloPaths hp;
  create_paths(&h, &hp);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < h.iterations; ++it) {
    const double e0 = MPI_Wtime();
    exchange(&h, &hp, it % 2);
    h.exchange_seconds += MPI_Wtime() - e0;
    halo_compute(&h, it % 2);
  }
  h.seconds = MPI_Wtime() - t0;
  halo_report(&h, "path kernel", argc, argv);
  char *why = NULL;
  if (!takyonMpiDestroyPaths(hp.npaths, hp.paths, &why)) die("destroying the paths", why);
  free(h.grid[0]);
  free(h.grid[1]);
  MPI_Finalize();
  return 0;
}
