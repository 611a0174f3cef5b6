/* SPDX-License-Identifier: MIT */
/* Helpers of the dying-peer tests (p2p peer_aborted.c, rma peer_dies.c): the check that a call failed
 * because rank 1 died, and a bounded wait for the survivors' reports. The including program defines
 * _DEFAULT_SOURCE (usleep, _exit). */
#ifndef TAKYON_MPI_PEER_DEATH_H_
#define TAKYON_MPI_PEER_DEATH_H_

#include <unistd.h>

#include "test_util.h"

/* The dying-peer tests (p2p peer_aborted, rma peer_dies): `rc` must be MPI_ERR_PROC_ABORTED with a
 * message naming rank 1, else "<test>: FAILED: ..." and exit 5; returns 1 (one call checked). */
static inline int expect_peer_aborted(const char *test, const char *what, int rc) {
  int cls = -1;
  CHECK(rc != MPI_SUCCESS);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(rc, text, &len));
  if (cls != MPI_ERR_PROC_ABORTED || strstr(text, "rank 1") == NULL) {
    printf("%s: FAILED: rank %d: %s: error class %d (expected MPI_ERR_PROC_ABORTED = %d), message '%s'\n",
           test, world_rank(), what, cls, MPI_ERR_PROC_ABORTED, text);
    fflush(stdout);
    _exit(5);
  }
  fprintf(stderr, "rank %d: %s: %s\n", world_rank(), what, text);
  return 1;
}

/* MPI_Test until `req` completes (at most 1.5 s: the launcher kills the survivors 2 s after a death);
 * else "<test>: FAILED: ..." and exit 6. */
static inline void test_until_done(const char *test, MPI_Request *req) {
  for (int i = 0; i < 15000; ++i) {
    int done = 0;
    CHECK_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    if (done) return;
    usleep(100);
  }
  printf("%s: FAILED: rank %d: the report of a surviving rank did not complete\n", test, world_rank());
  fflush(stdout);
  _exit(6);
}

#endif
