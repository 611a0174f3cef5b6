/* SPDX-License-Identifier: MIT */
/* The one-sided (RMA) programs' helpers: the point-to-point programs' (CHECK, patterns, PRINT0), shared,
 * the ring neighbours every program puts to, and the two flavors of window the cases run over. */
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

/* Where a window's memory comes from: the caller's array (MPI_Win_create; in libtakyon_mpi, over a
 * small or stack buffer, operations are messages the target runs) or the library (MPI_Win_allocate;
 * on one host, memory every rank maps, so the origin works on it directly). See rma/window.hpp. */
enum { FLAVOR_CREATE, FLAVOR_ALLOCATE, FLAVORS };
static inline const char *flavor_name(int flavor) {
  return flavor == FLAVOR_CREATE ? "create" : "allocate";
}

/* A window of MPI_COMM_WORLD of `bytes` in units of `disp_unit` whose memory holds what `local` holds,
 * and that memory, through which every local access of the window goes. FLAVOR_CREATE: `local`
 * itself. FLAVOR_ALLOCATE: memory of MPI_Win_allocate, into which `local` is copied under an
 * exclusive lock on this rank (which makes the stores public in either memory model), then a barrier,
 * so that no rank's operation reaches it earlier. `local` stays the caller's to free. */
static inline void *win_of(int flavor, void *local, MPI_Aint bytes, int disp_unit, MPI_Win *win) {
  if (flavor == FLAVOR_CREATE) {
    CHECK_MPI(MPI_Win_create(local, bytes, disp_unit, MPI_INFO_NULL, MPI_COMM_WORLD, win));
    return local;
  }
  void *base = NULL;
  CHECK_MPI(MPI_Win_allocate(bytes, disp_unit, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win));
  CHECK(base != NULL && base != local);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, world_rank(), 0, *win));
  memcpy(base, local, (size_t)bytes);
  CHECK_MPI(MPI_Win_unlock(world_rank(), *win));
  MPI_Barrier(MPI_COMM_WORLD);
  return base;
}

#endif
