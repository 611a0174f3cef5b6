/* SPDX-License-Identifier: MIT */
/* Where MPI_Init leaves a rank (mpi_compat/src/runtime.cpp, spread_unbound): with more ranks on the
 * host than CPUs in a rank's mask, and more than one CPU in it, libtakyon_mpi moves local rank i to
 * the (i mod n)-th CPU of its mask (n CPUs) and gives the mask back whole; otherwise, or with
 * TAKYON_MPI_SPREAD=0, it leaves the rank where it is. Every run checks that MPI_Init left the mask
 * as it found it. Under libtakyon_mpi the program also reads its own MPI_Init trace
 * (TAKYON_MPI_SPREAD_TRACE, which it sets; stderr captured in a file) and checks that the placement
 * happened, on the right CPU, exactly when it should: the CPU there is the one the rank ran on while
 * pinned, so the check does not depend on where the kernel moves the rank afterwards. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static int nth_cpu(const cpu_set_t *mask, int n) {
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, mask) && n-- == 0) return c;
  }
  return -1;
}

int main(int argc, char **argv) {
  cpu_set_t before, after;
  CPU_ZERO(&before);
  CPU_ZERO(&after);
  if (sched_getaffinity(0, sizeof before, &before) != 0) {
    perror("sched_getaffinity");
    return 1;
  }
  setenv("TAKYON_MPI_SPREAD_TRACE", "1", 1);
  /* MPI_Init's stderr goes to a file, read back (and passed on) after it. */
  FILE *trace = tmpfile();
  int saved = dup(STDERR_FILENO);
  if (trace == NULL || saved < 0 || dup2(fileno(trace), STDERR_FILENO) < 0) {
    perror("capturing stderr");
    return 1;
  }
  int init_rc = MPI_Init(&argc, &argv);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  char text[4096] = {0};
  rewind(trace);
  size_t got = fread(text, 1, sizeof text - 1, trace);
  fclose(trace);
  fputs(text, stderr);
  CHECK(init_rc == MPI_SUCCESS);

  CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
  if (!CPU_EQUAL(&before, &after)) {
    fprintf(stderr, "rank %d: MPI_Init changed the CPU mask: %d CPUs before, %d after\n", world_rank(),
            CPU_COUNT(&before), CPU_COUNT(&after));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  MPI_Comm node;
  int local_rank = -1, local_size = 0;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Comm_rank(node, &local_rank));
  CHECK_MPI(MPI_Comm_size(node, &local_size));
  if (takyon_mpi()) {
    const char *spread = getenv("TAKYON_MPI_SPREAD");
    int n = CPU_COUNT(&before);
    int expected = n > 1 && local_size > n && !(spread != NULL && strcmp(spread, "0") == 0);
    const char *line = got > 0 ? strstr(text, "placed on CPU ") : NULL;
    if (expected) {
      int want = nth_cpu(&before, local_rank % n);
      if (line == NULL || atoi(line + strlen("placed on CPU ")) != want) {
        fprintf(stderr,
                "rank %d: local rank %d of %d with %d CPUs allowed: expected to be placed on CPU %d, "
                "MPI_Init's trace says: %s\n",
                world_rank(), local_rank, local_size, n, want, line != NULL ? line : "(nothing)");
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    } else if (line != NULL) {
      fprintf(stderr,
              "rank %d: local rank %d of %d with %d CPUs allowed (TAKYON_MPI_SPREAD=%s): placed "
              "although it should not be: %s\n",
              world_rank(), local_rank, local_size, n, spread != NULL ? spread : "unset", line);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int moved = expected, all_moved = 0;
    CHECK_MPI(MPI_Allreduce(&moved, &all_moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    PRINT0("placement: %d of %d ranks placed (%d CPUs allowed to rank 0)\n", all_moved, world_size(), n);
  }
  CHECK_MPI(MPI_Comm_free(&node));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
