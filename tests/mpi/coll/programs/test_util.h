/* SPDX-License-Identifier: MIT */
/* Helpers shared by the point-to-point test programs: checks that print the failing line and end the
 * job, byte patterns, and rank-0-only printing. Plain C99 so Open MPI's mpicc builds them too. */
#ifndef TAKYON_MPI_TEST_UTIL_H_
#define TAKYON_MPI_TEST_UTIL_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      int r_ = -1;                                                                             \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                      \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", r_, __FILE__, __LINE__, #cond);   \
      fflush(stderr);                                                                          \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                            \
    }                                                                                          \
  } while (0)

#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS)

/* Byte i of message `seed` (differs per message and position). */
static inline unsigned char pattern_byte(unsigned seed, size_t i) {
  return (unsigned char)((i * 131u + seed * 7u + (i >> 8) * 17u) & 0xffu);
}
static inline void fill_pattern(void *buf, size_t n, unsigned seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < n; ++i) p[i] = pattern_byte(seed, i);
}
/* Index of the first wrong byte, or -1. */
static inline long check_pattern(const void *buf, size_t n, unsigned seed) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != pattern_byte(seed, i)) return (long)i;
  }
  return -1;
}

static inline int world_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
static inline int world_size(void) {
  int s;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/* Prints only on rank 0 (the outputs are compared between launchers and MPI libraries). */
#define PRINT0(...)                   \
  do {                                \
    if (world_rank() == 0) {          \
      printf(__VA_ARGS__);            \
      fflush(stdout);                 \
    }                                 \
  } while (0)

#endif
