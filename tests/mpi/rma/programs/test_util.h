/* SPDX-License-Identifier: MIT */
/* The one-sided (RMA) programs' helpers: the point-to-point programs' (CHECK, patterns, PRINT0), shared,
 * and the ring neighbours every program puts to. */
#ifndef TAKYON_MPI_RMA_TEST_UTIL_H_
#define TAKYON_MPI_RMA_TEST_UTIL_H_

#include "../../p2p/programs/test_util.h"

/* The ranks before and after this one in MPI_COMM_WORLD (the rank itself at np 1). */
static inline int left_rank(void) {
  return (world_rank() + world_size() - 1) % world_size();
}
static inline int right_rank(void) {
  return (world_rank() + 1) % world_size();
}

/* The value element i of rank r's data carries in test t (distinct per test, rank and element). */
static inline int value_of(int t, int r, int i) {
  return t * 1000000 + r * 10000 + i;
}

#endif
