/* SPDX-License-Identifier: MIT */
/* What both forms of the halo example share: a 2-D Jacobi stencil on an NX x NY grid split by rows
 * over the ranks, each rank holding its rows plus one halo row above and below, in two arrays that
 * swap roles every iteration. Only the halo exchange differs between halo_mpi.c and halo_paths.c. */
#ifndef TAKYON_EXAMPLE_HALO_COMMON_H_
#define TAKYON_EXAMPLE_HALO_COMMON_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int nx, ny, iterations; /* the whole grid's columns and rows; the iterations to run */
  int rank, size;
  int row0, rows;          /* this rank's first global row and its number of rows */
  double *grid[2];         /* (rows + 2) x nx each: halo row, own rows, halo row */
  double seconds;          /* time of the iterations */
  double exchange_seconds; /* of which in the halo exchange */
} Halo;

static inline double *halo_row(const Halo *h, int parity, int local_row) {
  return h->grid[parity] + (size_t)local_row * (size_t)h->nx;
}

/* The grid's starting values; the outer rows and columns stay fixed. */
static inline double halo_initial(int i, int j) {
  return (double)((i * 31 + j * 17) % 97) / 97.0;
}

/* Parses "[nx ny iterations]" and gives this rank its rows. Returns 0, or 1 on bad arguments. */
static inline int halo_setup(Halo *h, int argc, char **argv) {
  memset(h, 0, sizeof *h);
  h->nx = argc > 1 ? atoi(argv[1]) : 256;
  h->ny = argc > 2 ? atoi(argv[2]) : 256;
  h->iterations = argc > 3 ? atoi(argv[3]) : 200;
  MPI_Comm_rank(MPI_COMM_WORLD, &h->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &h->size);
  if (h->nx < 3 || h->ny < h->size || h->iterations < 1) {
    if (h->rank == 0) fprintf(stderr, "usage: halo [nx >= 3] [ny >= ranks] [iterations >= 1]\n");
    return 1;
  }
  h->row0 = (int)((long)h->ny * h->rank / h->size);
  h->rows = (int)((long)h->ny * (h->rank + 1) / h->size) - h->row0;
  for (int p = 0; p < 2; ++p) {
    h->grid[p] = (double *)calloc((size_t)(h->rows + 2) * (size_t)h->nx, sizeof(double));
    if (h->grid[p] == NULL) return 1;
    for (int r = 1; r <= h->rows; ++r) {
      for (int j = 0; j < h->nx; ++j) halo_row(h, p, r)[j] = halo_initial(h->row0 + r - 1, j);
    }
  }
  return 0;
}

/* One Jacobi sweep from grid[parity] into grid[1 - parity]; the outer rows and columns are kept. */
static inline void halo_compute(Halo *h, int parity) {
  for (int r = 1; r <= h->rows; ++r) {
    const int gi = h->row0 + r - 1;
    const double *up = halo_row(h, parity, r - 1), *mid = halo_row(h, parity, r),
                 *down = halo_row(h, parity, r + 1);
    double *out = halo_row(h, 1 - parity, r);
    if (gi == 0 || gi == h->ny - 1) {
      memcpy(out, mid, (size_t)h->nx * sizeof(double));
      continue;
    }
    out[0] = mid[0];
    out[h->nx - 1] = mid[h->nx - 1];
    for (int j = 1; j < h->nx - 1; ++j) out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
  }
}

/* Rank 0 prints a checksum of the final grid, summed in rank order (the same bits under any MPI),
 * and with "--time" as the 5th argument the time per iteration and the exchange's share of it. */
static inline void halo_report(const Halo *h, const char *form, int argc, char **argv) {
  const int parity = h->iterations % 2;
  double sum = 0.0;
  for (int r = 1; r <= h->rows; ++r) {
    for (int j = 0; j < h->nx; ++j)
      sum += halo_row(h, parity, r)[j] * (double)((h->row0 + r) % 7 + j % 5 + 1);
  }
  double *sums = h->rank == 0 ? (double *)malloc(sizeof(double) * (size_t)h->size) : NULL;
  double times[2] = {h->seconds, h->exchange_seconds}, worst[2] = {0, 0};
  MPI_Gather(&sum, 1, MPI_DOUBLE, sums, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(times, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (h->rank == 0) {
    double total = 0.0;
    for (int r = 0; r < h->size; ++r) total += sums[r];
    printf("halo %dx%d, %d iterations on %d ranks: checksum %.15e\n", h->nx, h->ny, h->iterations, h->size,
           total);
    if (argc > 4 && strcmp(argv[4], "--time") == 0) {
      printf("%s: %.3f us per iteration, exchange %.1f%%\n", form, worst[0] / h->iterations * 1e6,
             worst[0] > 0 ? 100.0 * worst[1] / worst[0] : 0.0);
    }
    fflush(stdout);
    free(sums);
  }
}

#endif /* TAKYON_EXAMPLE_HALO_COMMON_H_ */
