/* SPDX-License-Identifier: MIT */
/* After MPI_Init, rank 0 fills /dev/shm to the last byte; then large messages (malloc'ed buffers and
 * MPI_Alloc_mem's) go both ways between two ranks and every byte is checked. MPI_Init reserved all
 * the /dev/shm the layer uses (the inboxes); large messages take none (pipeline chunks in the inboxes,
 * single copies, the shared heap's memfd), so a full /dev/shm must not disturb them: no error, no
 * SIGBUS. Run with a private, small /dev/shm (tests/resource/shm_full.sh). */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BYTES (16u << 20)

static unsigned char pattern(size_t i, int from) {
  return (unsigned char)((i * 251u + (size_t)from * 17u + 3u) & 0xffu);
}

/* Fills /dev/shm: writes until ENOSPC. Returns the bytes written, -1 on another error. */
static long fill_dev_shm(const char* path) {
  int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) return -1;
  static char block[65536];
  memset(block, 0x5a, sizeof block);
  long total = 0;
  for (;;) {
    ssize_t n = write(fd, block, sizeof block);
    if (n > 0) {
      total += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  int err = errno;
  close(fd);
  return err == ENOSPC ? total : -1;
}

static int check(const unsigned char* buf, int from, const char* what) {
  for (size_t i = 0; i < BYTES; ++i) {
    if (buf[i] != pattern(i, from)) {
      fprintf(stderr, "FAILED: %s: byte %zu is %u, expected %u\n", what, i, buf[i], pattern(i, from));
      return 1;
    }
  }
  return 0;
}

static int exchange(unsigned char* out, unsigned char* in, int rank, const char* what) {
  for (size_t i = 0; i < BYTES; ++i) out[i] = pattern(i, rank);
  memset(in, 0, BYTES);
  int peer = 1 - rank;
  MPI_Sendrecv(out, BYTES, MPI_BYTE, peer, 1, in, BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  int bad = check(in, peer, what);
  /* And one way at a time: a lone rendezvous message takes the single-copy branch. */
  memset(in, 0, BYTES);
  if (rank == 0) {
    MPI_Send(out, BYTES, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    MPI_Recv(in, BYTES, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in, BYTES, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out, BYTES, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  }
  return bad | check(in, peer, what);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "FAILED: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[64];
  snprintf(path, sizeof path, "/dev/shm/takyon-test-fill-%d", (int)getpid());
  long filled = 0;
  if (rank == 0) {
    filled = fill_dev_shm(path);
    if (filled < 0) {
      fprintf(stderr, "FAILED: could not fill /dev/shm: %s\n", strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int bad = 0;
  unsigned char* out = malloc(BYTES);
  unsigned char* in = malloc(BYTES);
  if (out == NULL || in == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
  bad |= exchange(out, in, rank, "malloc'ed buffers");
  free(out);
  free(in);
  if (MPI_Alloc_mem(BYTES, MPI_INFO_NULL, &out) != MPI_SUCCESS ||
      MPI_Alloc_mem(BYTES, MPI_INFO_NULL, &in) != MPI_SUCCESS) {
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  bad |= exchange(out, in, rank, "MPI_Alloc_mem buffers");
  MPI_Free_mem(out);
  MPI_Free_mem(in);
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    unlink(path);
    if (any_bad == 0)
      printf("shm_after_init: ok (/dev/shm filled with %ld more bytes after MPI_Init)\n", filled);
  }
  MPI_Finalize();
  return any_bad;
}
