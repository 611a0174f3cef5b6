/* SPDX-License-Identifier: MIT */
/* Point-to-point performance between ranks 0 and 1 (np 2; with more ranks the others only run
 * their own pairs): 8 B ping-pong one-way latency, 1 MiB ping-pong, and 1 MiB windowed bandwidth
 * (64 Isend/Irecv in flight, then Waitall, then a 4-byte ack). Not a test: prints numbers.
 *   usage: mpi_perf [iterations-scale]   (default 1) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static double pingpong(int rank, int peer, char *buf, int bytes, int iters) {
  MPI_Status st;
  int warm = iters / 10 + 1;
  double t0 = 0;
  for (int i = 0; i < iters + warm; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    if (rank < peer) {
      MPI_Send(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
      MPI_Send(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / iters / 2;  /* one-way seconds */
}

static double windowed(int rank, int peer, char *buf, int bytes, int iters) {
  MPI_Request reqs[WINDOW];
  int ack = 0;
  int warm = iters / 10 + 1;
  double t0 = 0;
  for (int i = 0; i < iters + warm; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    if (rank < peer) {
      for (int w = 0; w < WINDOW; ++w) MPI_Isend(buf + (size_t)w * bytes, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
      MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < WINDOW; ++w) MPI_Irecv(buf + (size_t)w * bytes, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
      MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime() - t0;
  return (double)bytes * WINDOW * iters / t;  /* bytes per second */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (size < 2) {
    if (rank == 0) printf("mpi_perf needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int peer = rank ^ 1;
  if (peer >= size) peer = -1;
  const int big = 1 << 20;
  char *buf = malloc((size_t)big * WINDOW);
  memset(buf, 1, (size_t)big * WINDOW);
  double lat8 = 0, lat1m = 0, bw = 0;
  if (peer >= 0) {
    lat8 = pingpong(rank, peer, buf, 8, (int)(100000 * scale));
    lat1m = pingpong(rank, peer, buf, big, (int)(1000 * scale));
    bw = windowed(rank, peer, buf, big, (int)(20 * scale) + 1);
  }
  if (rank == 0) {
    printf("np %d: 8 B latency %.3f us | 1 MiB ping-pong %.1f us (%.2f GB/s) | 1 MiB windowed %.2f GB/s\n", size,
           lat8 * 1e6, lat1m * 1e6, big / lat1m / 1e9, bw / 1e9);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
