/* SPDX-License-Identifier: MIT */
/* A rank dies while rank 0, the root of a large MPI_Gather (256 KiB blocks: the split single copy or
 * the pipeline, pt2pt/engine.hpp), has matched rank 1's block but not yet received it: rank 1 started
 * its part with MPI_Igather and sleeps before progressing it. Rank 0 must get an error
 * (MPI_ERRORS_RETURN), not a hang or a crash; rank 1's block must have landed whole by then (rank 1
 * lives, so the gather waits for it before giving up its receive); and once the call has returned,
 * nothing may write into rank 0's buffer any more (it is the user's again). np 3. The dead rank ends
 * the job with its exit code: the verdict is rank 0's line on stdout. */
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

int main(int argc, char **argv) {
  setenv("TAKYON_MPI_COLL_GATHER", "linear", 1); /* rank 0 posts both receives at once */
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  CHECK(world_size() == 3);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* takyon-run stops the others (SIGTERM, SIGKILL 2 s later) once rank 2 is dead: finish first. */
  signal(SIGTERM, SIG_IGN);
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
  if (written >= 0) fprintf(stderr, "rank 0: byte %ld of the buffer written after MPI_Gather returned\n", written);
  fflush(stdout);
  fflush(stderr);
  _exit(0);
}
