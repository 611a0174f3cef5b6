/* SPDX-License-Identifier: MIT */
/* The malloc family of a program linked with libtakyon_mpi (shm/heap_malloc.cpp): after MPI_Init, with
 * peers on this host, blocks of 128 KiB and more come from the shared heap (a memfd named
 * takyon-mpi-heap, seen in /proc/self/maps), smaller ones and those allocated before MPI_Init do not;
 * realloc, calloc, the aligned allocators and malloc_usable_size keep their contracts on both kinds;
 * messages between heap and non-heap buffers, at odd offsets, arrive whole; a forked child's writes
 * to a heap block stay its own. With Open MPI, a sanitizer build, np 1 or TAKYON_MPI_SHARED_HEAP=0 the
 * contracts are checked the same and no block may be in the heap. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* Whether p lies in a mapping of the shared heap's memfd. */
static int in_shared_heap(const void *p) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[512];
  int found = 0;
  uintptr_t a = (uintptr_t)p;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long lo = 0, hi = 0;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi) {
      found = strstr(line, "takyon-mpi-heap") != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

static int heap_expected(void) {
#if defined(TAKYON_MPI_H_) && !defined(SANITIZED)
  const char *e = getenv("TAKYON_MPI_SHARED_HEAP");
  return world_size() > 1 && (e == NULL || strcmp(e, "0") != 0);
#else
  return 0;
#endif
}

static void check_contracts(int heap) {
  const size_t mib = (size_t)1 << 20;
  unsigned char *small = malloc(100);
  CHECK(small != NULL && !in_shared_heap(small));
  unsigned char *p = malloc(mib);
  CHECK(p != NULL && in_shared_heap(p) == heap);
  CHECK(malloc_usable_size(p) >= mib);
  fill_pattern(p, mib, 1);
  p = realloc(p, 3 * mib); /* grows: the bytes move along */
  CHECK(p != NULL && check_pattern(p, mib, 1) == -1 && in_shared_heap(p) == heap);
  p = realloc(p, 200 << 10); /* shrinks */
  CHECK(p != NULL && check_pattern(p, 200 << 10, 1) == -1);
  p = realloc(p, 100); /* below the heap's size: glibc's */
  CHECK(p != NULL && check_pattern(p, 100, 1) == -1 && !in_shared_heap(p));
  free(p);
  unsigned char *dirty = malloc(2 * mib);
  CHECK(dirty != NULL);
  memset(dirty, 0xff, 2 * mib);
  free(dirty);
  unsigned char *z = calloc(2, mib); /* likely dirty's block again: zeroed all the same */
  CHECK(z != NULL && in_shared_heap(z) == heap);
  for (size_t i = 0; i < 2 * mib; ++i) CHECK(z[i] == 0);
  free(z);
  void *q = NULL;
  CHECK(posix_memalign(&q, 4096, mib) == 0 && (uintptr_t)q % 4096 == 0 && in_shared_heap(q) == heap);
  free(q);
#ifndef SANITIZED /* the sanitizers' allocators report bad arguments as errors and abort */
  CHECK(posix_memalign(&q, 3, mib) == EINVAL);
#endif
  q = aligned_alloc(64, 256 << 10);
  CHECK(q != NULL && (uintptr_t)q % 64 == 0 && in_shared_heap(q) == heap);
  free(q);
  q = memalign(8192, 512 << 10); /* over a page: glibc's */
  CHECK(q != NULL && (uintptr_t)q % 8192 == 0 && !in_shared_heap(q));
  free(q);
  q = valloc(300 << 10);
  CHECK(q != NULL && (uintptr_t)q % 4096 == 0 && in_shared_heap(q) == heap);
  free(q);
#ifndef SANITIZED
  errno = 0;
  volatile size_t huge = SIZE_MAX / 2; /* not known at compile time: no warning */
  q = reallocarray(NULL, huge, 4);
  CHECK(q == NULL && errno == ENOMEM);
#endif
  free(small);
}

/* Ring exchange of `n` bytes at offset 3 of each buffer: every rank sends from `from` and receives into
 * `to`; the receive buffer's guard bytes stay untouched. */
static void exchange(unsigned char *from, unsigned char *to, size_t n, unsigned seed) {
  const int rank = world_rank(), size = world_size();
  fill_pattern(from + 3, n, seed + (unsigned)rank);
  memset(to, 0xee, n + 8);
  const int prev = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv(from + 3, (int)n, MPI_BYTE, (rank + 1) % size, 5, to + 3, (int)n, MPI_BYTE, prev, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(check_pattern(to + 3, n, seed + (unsigned)prev) == -1);
  for (int i = 0; i < 3; ++i) CHECK(to[i] == 0xee && to[n + 3 + i] == 0xee);
}

int main(int argc, char **argv) {
  const size_t n = 1000000;              /* under 1 MiB: a single copy (larger ones take the pipeline) */
  unsigned char *before = malloc(n + 8); /* before MPI_Init: never the shared heap's */
  MPI_Init(&argc, &argv);
  CHECK(before != NULL && !in_shared_heap(before));
  const int heap = heap_expected();
  check_contracts(heap);

  unsigned char *a = malloc(n + 8), *b = malloc(n + 8);
  CHECK(a != NULL && b != NULL && in_shared_heap(a) == heap);
  exchange(a, b, n, 10);      /* heap to heap */
  exchange(before, a, n, 20); /* into the heap */
  exchange(a, before, n, 30); /* out of it */
  exchange(a, b, 150000, 40); /* a split's size */

  /* A child forked now shares nothing with this process's heap blocks. */
  memset(a, 'A', n);
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != 'A') _exit(2);
    }
    memset(a, 'C', n);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (size_t i = 0; i < n; ++i) CHECK(a[i] == 'A');
  exchange(a, b, n, 50); /* and messages still arrive whole */

  free(a);
  free(b);
  MPI_Barrier(MPI_COMM_WORLD);
  PRINT0("malloc family and transfers checked\n"); /* the same with Open MPI: the output is compared */
  MPI_Finalize();
  free(before);
  return 0;
}
