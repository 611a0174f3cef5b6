/* SPDX-License-Identifier: MIT */
/* An MPI rank for the rendezvous flood tests: rank 0 publishes takyon-run's rendezvous address in
 * <dir>/rendezvous, every rank waits for <dir>/go (the flood is in place by then), then times
 * MPI_Init, checks an allreduce and a message's bytes, and prints "rank R init <ms> ms (MPI_Init)". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char* what) {
  fprintf(stderr, "flood_rank: %s\n", what);
  exit(3);
}

int main(int argc, char** argv) {
  if (argc < 2) die("usage: flood_rank <dir>");
  const char* rank_text = getenv("TAKYON_RUN_RANK");
  const char* address = getenv("TAKYON_RUN_RENDEZVOUS");
  if (rank_text == NULL || address == NULL) die("not started by takyon-run");
  char path[4096];
  char tmp[4096];
  if (strcmp(rank_text, "0") == 0) {
    snprintf(tmp, sizeof tmp, "%s/rendezvous.tmp", argv[1]);
    snprintf(path, sizeof path, "%s/rendezvous", argv[1]);
    FILE* f = fopen(tmp, "w");
    if (f == NULL) die("cannot write the rendezvous file");
    fputs(address, f);
    fclose(f);
    if (rename(tmp, path) != 0) die("cannot rename the rendezvous file");
  }
  snprintf(path, sizeof path, "%s/go", argv[1]);
  const double give_up = now_ms() + 120e3;
  while (access(path, F_OK) != 0) {
    if (now_ms() > give_up) die("no go file within 120 s");
    usleep(2000);
  }

  const double start = now_ms();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) die("MPI_Init failed");
  const double init_ms = now_ms() - start;
  int rank = -1;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1;
  int sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size + 1) / 2) die("allreduce gave a wrong sum");
  unsigned char buf[4096];
  if (size >= 2 && rank < 2) {
    if (rank == 0) {
      for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (unsigned char)(i * 7u + 3u);
      MPI_Send(buf, (int)sizeof buf, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    } else {
      memset(buf, 0, sizeof buf);
      MPI_Recv(buf, (int)sizeof buf, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t i = 0; i < sizeof buf; ++i) {
        if (buf[i] != (unsigned char)(i * 7u + 3u)) die("message bytes differ");
      }
    }
  }
  printf("rank %d init %.1f ms (MPI_Init)\n", rank, init_ms);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
