/* SPDX-License-Identifier: MIT */
/* The halo example in plain MPI: each iteration exchanges the boundary rows with the ranks above and
 * below (MPI_Sendrecv; MPI_PROC_NULL at the grid's edges), then computes. halo_paths.c is the same
 * program with only this exchange moved onto Takyon paths.
 *   mpirun -np 4 ./halo_mpi [nx ny iterations [--time]] */
#include "halo_common.h"

static void exchange(Halo *h, int parity) {
  const int up = h->rank > 0 ? h->rank - 1 : MPI_PROC_NULL;
  const int down = h->rank < h->size - 1 ? h->rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(halo_row(h, parity, 1), h->nx, MPI_DOUBLE, up, 1, halo_row(h, parity, h->rows + 1), h->nx,
               MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(halo_row(h, parity, h->rows), h->nx, MPI_DOUBLE, down, 2, halo_row(h, parity, 0), h->nx,
               MPI_DOUBLE, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Halo h;
  if (halo_setup(&h, argc, argv) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < h.iterations; ++it) {
    const double e0 = MPI_Wtime();
    exchange(&h, it % 2);
    h.exchange_seconds += MPI_Wtime() - e0;
    halo_compute(&h, it % 2);
  }
  h.seconds = MPI_Wtime() - t0;
  halo_report(&h, "MPI kernel", argc, argv);
  free(h.grid[0]);
  free(h.grid[1]);
  MPI_Finalize();
  return 0;
}
