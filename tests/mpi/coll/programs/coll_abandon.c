/* SPDX-License-Identifier: MIT */
/* A rank dies while rank 0, the root of a large MPI_Gather (256 KiB blocks: the split single copy or
 * the pipeline, pt2pt/engine.hpp), has matched rank 1's block but not yet received it: rank 1 started
 * its part with MPI_Igather and sleeps before progressing it. Rank 0 must get an error
 * (MPI_ERRORS_RETURN), not a hang or a crash; rank 1's block must have landed whole by then (rank 1
 * lives, so the gather waits for it before giving up its receive); and once the call has returned,
 * nothing may write into rank 0's buffer any more (it is the user's again). np 3. The dead rank ends
 * the job with its exit code: the verdict is rank 0's line on stdout.
 *
 * `coll_abandon send`: the other side. Rank 0's MPI_Exscan sends its contribution to rank 1 from the
 * schedule's scratch and fails (rank 2 dies) before rank 1, still sleeping before its own MPI_Exscan,
 * has taken it; the failed schedule is destroyed, but the send in flight must keep its data: rank 1
 * then gets rank 0's vector whole (its call matches the message at once and fails afterwards, sending
 * to rank 2), not freed memory. The verdict is rank 1's line. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <unistd.h>

#include "test_util.h"

enum { kBlock = 256 * 1024 };

/* Keeps this rank's engine progressing for `seconds` (MPI_Iprobe; its errors about the dead rank are
 * expected and ignored). */
static void progress_for(double seconds) {
  double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
    int flag = 0;
    (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    usleep(1000);
  }
}

/* The `send` scenario (see the top). */
static int exscan_sender_fails(int rank) {
  enum { kCount = kBlock / (int)sizeof(int) };
  int *mine = malloc(kBlock), *out = malloc(kBlock);
  CHECK(mine != NULL && out != NULL);
  for (int i = 0; i < kCount; ++i) mine[i] = rank * 1000003 + i;
  memset(out, 0, kBlock);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 2) {
    usleep(50000); /* rank 0 is in the exscan, its send to rank 1 not yet taken */
    _exit(9);
  }
  if (rank == 0) {
    int rc = MPI_Exscan(mine, out, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "rank 0: MPI_Exscan returned %d: %s\n", rc, text);
    /* Reuse the heap the failed call freed, and keep progressing: the send still in flight streams. */
    for (int k = 0; k < 8; ++k) {
      void *p = malloc(kBlock);
      if (p != NULL) memset(p, 0xa5, kBlock);
    }
    progress_for(1.0);
    fflush(stderr);
    _exit(0);
  }
  usleep(300000); /* meanwhile rank 0's call fails and returns */
  int rc = MPI_Exscan(mine, out, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long bad = -1;
  for (int i = 0; i < kCount && bad < 0; ++i) {
    if (out[i] != i) bad = i; /* rank 0's contribution: 0 * 1000003 + i */
  }
  printf("rank 1: MPI_Exscan %s; rank 0's vector %s\n", rc == MPI_SUCCESS ? "succeeded" : "failed",
         bad < 0 ? "whole" : "corrupt");
  if (bad >= 0) fprintf(stderr, "rank 1: item %ld is %d\n", bad, out[bad]);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "rank 1: MPI_Exscan: %s\n", text);
  }
  fflush(stdout);
  fflush(stderr);
  _exit(0);
}

int main(int argc, char **argv) {
  setenv("TAKYON_MPI_COLL_GATHER", "linear", 1); /* rank 0 posts both receives at once */
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  CHECK(world_size() == 3);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* takyon-run stops the others (SIGTERM, SIGKILL 2 s later) once rank 2 is dead: finish first. */
  signal(SIGTERM, SIG_IGN);
  if (argc > 1 && strcmp(argv[1], "send") == 0) return exscan_sender_fails(rank);
  unsigned char *block = malloc(kBlock);
  CHECK(block != NULL);
  fill_pattern(block, kBlock, 100u + (unsigned)rank);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 2) {
    usleep(50000); /* ranks 0 and 1 are in the gather */
    _exit(9);
  }
  if (rank == 1) {
    MPI_Request req;
    CHECK_MPI(MPI_Igather(block, kBlock, MPI_BYTE, NULL, 0, MPI_BYTE, 0, MPI_COMM_WORLD, &req));
    usleep(300000); /* meanwhile rank 0 matches this block, finds rank 2 dead and gives up */
    int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    fprintf(stderr, "rank 1: MPI_Wait returned %d\n", rc);
    progress_for(0.7);
    fflush(stderr);
    _exit(0);
  }
  unsigned char *all = malloc(3 * (size_t)kBlock);
  CHECK(all != NULL);
  memset(all, 0, 3 * (size_t)kBlock);
  int rc = MPI_Gather(block, kBlock, MPI_BYTE, all, kBlock, MPI_BYTE, 0, MPI_COMM_WORLD);
  long bad = check_pattern(all + kBlock, kBlock, 101u);
  /* The buffer is the user's again: reuse it and watch whether anything still writes into it. */
  memset(all, 0x5a, 3 * (size_t)kBlock);
  progress_for(0.5);
  long written = -1;
  for (size_t i = 0; i < 3 * (size_t)kBlock && written < 0; ++i) {
    if (all[i] != 0x5a) written = (long)i;
  }
  printf("rank 0: MPI_Gather %s; rank 1's block %s; buffer %s after the call\n",
         rc == MPI_SUCCESS ? "succeeded" : "failed", bad < 0 ? "whole" : "incomplete",
         written < 0 ? "untouched" : "written to");
  if (bad >= 0) fprintf(stderr, "rank 0: rank 1's block differs at byte %ld\n", bad);
  if (written >= 0)
    fprintf(stderr, "rank 0: byte %ld of the buffer written after MPI_Gather returned\n", written);
  fflush(stdout);
  fflush(stderr);
  _exit(0);
}
