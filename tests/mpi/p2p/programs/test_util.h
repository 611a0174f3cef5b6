/* SPDX-License-Identifier: MIT */
/* Helpers shared by the MPI test programs: checks that print the failing line and end the job, byte
 * patterns, rank-0-only printing, and the error tests' expected-error checks. Plain C99 so Open MPI's
 * mpicc builds them too. */
#ifndef TAKYON_MPI_TEST_UTIL_H_
#define TAKYON_MPI_TEST_UTIL_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                         \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      int r_ = -1;                                                                          \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                   \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", r_, __FILE__, __LINE__, #cond); \
      fflush(stderr);                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                         \
    }                                                                                       \
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
#define PRINT0(...)          \
  do {                       \
    if (world_rank() == 0) { \
      printf(__VA_ARGS__);   \
      fflush(stdout);        \
    }                        \
  } while (0)

/* 1 under libtakyon_mpi (its library version string names Takyon), else 0. The error tests check
 * exact error classes, and make the calls other libraries leave undefined, only there. */
static inline int takyon_mpi(void) {
  static int cached = -1;
  if (cached < 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    cached = strstr(version, "Takyon") != NULL;
  }
  return cached;
}

/* The name of error class `cls` as the error tests print it. */
static inline const char *error_class_name(int cls) {
  switch (cls) {
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM";
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT";
    case MPI_ERR_GROUP:
      return "MPI_ERR_GROUP";
    case MPI_ERR_OP:
      return "MPI_ERR_OP";
    case MPI_ERR_TOPOLOGY:
      return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS:
      return "MPI_ERR_DIMS";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS";
    case MPI_ERR_OTHER:
      return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN:
      return "MPI_ERR_INTERN";
    case MPI_ERR_KEYVAL:
      return "MPI_ERR_KEYVAL";
    case MPI_ERR_INFO:
      return "MPI_ERR_INFO";
    case MPI_ERR_INFO_KEY:
      return "MPI_ERR_INFO_KEY";
    case MPI_ERR_INFO_VALUE:
      return "MPI_ERR_INFO_VALUE";
    case MPI_ERR_INFO_NOKEY:
      return "MPI_ERR_INFO_NOKEY";
    case MPI_ERR_NO_MEM:
      return "MPI_ERR_NO_MEM";
    case MPI_ERR_CONVERSION:
      return "MPI_ERR_CONVERSION";
    case MPI_ERR_WIN:
      return "MPI_ERR_WIN";
    case MPI_ERR_DISP:
      return "MPI_ERR_DISP";
    case MPI_ERR_LOCKTYPE:
      return "MPI_ERR_LOCKTYPE";
    case MPI_ERR_RMA_RANGE:
      return "MPI_ERR_RMA_RANGE";
    case MPI_ERR_RMA_SYNC:
      return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_RMA_SHARED:
      return "MPI_ERR_RMA_SHARED";
    case MPI_ERR_RMA_ATTACH:
      return "MPI_ERR_RMA_ATTACH";
    case MPI_ERR_UNSUPPORTED_DATAREP:
      return "MPI_ERR_UNSUPPORTED_DATAREP";
  }
  return "another class";
}

/* The call `what` returned `rc`, which must be an error with a message; under libtakyon_mpi its class
 * must be `cls` (other libraries' classes differ for some cases). Prints nothing unless it fails. */
static inline void expect_error(const char *what, int rc, int cls) {
  CHECK(rc != MPI_SUCCESS);
  int got = -1;
  CHECK_MPI(MPI_Error_class(rc, &got));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(rc, text, &len));
  CHECK(len > 0 && (int)strlen(text) == len);
  if (takyon_mpi() && got != cls) {
    fprintf(stderr, "rank %d: %s: error class %d, expected %d (%s): %s\n", world_rank(), what, got, cls,
            error_class_name(cls), text);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
}

/* expect_error, then rank 0 prints "<what>: <name of cls>". */
static inline void expect_class(const char *what, int rc, int cls) {
  expect_error(what, rc, cls);
  PRINT0("%s: %s\n", what, error_class_name(cls));
}

/* A check only libtakyon_mpi makes (other libraries crash, hang or succeed on it): there it runs
 * `check(what, call, cls)`; elsewhere the call is not made and rank 0 prints "<what>: <shown>", the
 * line `check` prints. */
#define RUN_IF_TAKYON(check, what, call, cls, shown) \
  do {                                               \
    if (takyon_mpi()) {                              \
      check(what, call, cls);                        \
    } else {                                         \
      PRINT0("%s: %s\n", what, shown);               \
    }                                                \
  } while (0)
#define EXPECT_CLASS_TAKYON(what, call, cls) \
  RUN_IF_TAKYON(expect_class, what, call, cls, error_class_name(cls))

#endif
