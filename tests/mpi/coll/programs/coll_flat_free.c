/* SPDX-License-Identifier: MIT */
/* Communicators whose small collectives ran flat (through shared memory), freed in opposite orders on
 * alternate ranks, never freed by one rank, or freed by some ranks while another has not yet read
 * what they published: MPI_Comm_free waits for nobody, and the communicators the others create next
 * (which may want the freed one's context slot) never overwrite the data the late reader gets; and
 * two-rank barriers, whose line in the slot is written by whichever pair holds it, still wait. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "test_util.h"

static int rank_, size_;

static void check_sum(MPI_Comm c) {
  int r = -1, n = 0;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &n));
  int x = r + 1, s = -1;
  CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c));
  CHECK(s == n * (n + 1) / 2);
}

/* Rank 0 gathers `block` ints per rank on a fresh communicator, but only after every other rank has
 * published its block, freed the communicator and run collectives on three new communicators of
 * its own (without rank 0) whose data differs. */
static void late_reader(int block) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  check_sum(c);
  int *mine = malloc(sizeof(int) * (size_t)block);
  int *all = malloc(sizeof(int) * (size_t)block * (size_t)size_);
  CHECK(mine != NULL && all != NULL);
  for (int k = 0; k < block; ++k) mine[k] = rank_ * 1000 + k;
  if (rank_ != 0) {
    CHECK_MPI(MPI_Gather(mine, block, MPI_INT, NULL, block, MPI_INT, 0, c));
    CHECK_MPI(MPI_Comm_free(&c));
    MPI_Group world_group, others;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    int zero = 0;
    CHECK_MPI(MPI_Group_excl(world_group, 1, &zero, &others));
    for (int round = 0; round < 3; ++round) {
      MPI_Comm d;
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, others, 7, &d));
      int dr, ds;
      MPI_Comm_rank(d, &dr);
      MPI_Comm_size(d, &ds);
      int x = dr + 1, s = -1;
      CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, d));
      CHECK(s == ds * (ds + 1) / 2);
      /* The same collective, root and size as rank 0's gather on c, with other data. */
      int *other = malloc(sizeof(int) * (size_t)block);
      int *dall = malloc(sizeof(int) * (size_t)block * (size_t)ds);
      CHECK(other != NULL && dall != NULL);
      for (int k = 0; k < block; ++k) other[k] = -(round * 100000 + rank_ * 1000 + k) - 1;
      CHECK_MPI(MPI_Gather(other, block, MPI_INT, dall, block, MPI_INT, 0, d));
      if (dr == 0) {
        for (int m = 0; m < ds; ++m) {
          for (int k = 0; k < block; ++k)
            CHECK(dall[m * block + k] == -(round * 100000 + (m + 1) * 1000 + k) - 1);
        }
      }
      free(other);
      free(dall);
      CHECK_MPI(MPI_Comm_free(&d));
    }
    CHECK_MPI(MPI_Group_free(&others));
    CHECK_MPI(MPI_Group_free(&world_group));
    int go = 1;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 0, 40 + block, MPI_COMM_WORLD));
  } else {
    for (int m = 1; m < size_; ++m) {
      int go = 0;
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, m, 40 + block, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(go == 1);
    }
    memset(all, 0, sizeof(int) * (size_t)block * (size_t)size_);
    CHECK_MPI(MPI_Gather(mine, block, MPI_INT, all, block, MPI_INT, 0, c));
    for (int m = 0; m < size_; ++m) {
      for (int k = 0; k < block; ++k) CHECK(all[m * block + k] == m * 1000 + k);
    }
    /* Rank 0 never frees c (legal): nobody waits for it. */
  }
  free(mine);
  free(all);
  PRINT0("late reader, %d ints per rank: ok\n", block);
}

/* The time on the clock every process of this host reads alike (MPI_Wtime need not be one clock
 * across processes). */
static double host_clock_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Two-rank communicators whose pairs change from round to round (rank i with the rank j where
 * i + j = round mod size), each freed before the next takes its context slot, so the slot's barrier
 * line is written by other processes each time. In every barrier one rank sleeps 40 ms before it
 * enters: the other's barrier must not return before that rank entered it (compared on the host's
 * clock, so a loaded machine delaying either rank cannot make a correct barrier look early),
 * whichever rank sleeps, with data collectives between barriers moving the communicator's epochs on. */
static void pair_barriers(void) {
  for (int round = 0; round < size_; ++round) {
    int partner = ((round - rank_) % size_ + size_) % size_;
    MPI_Comm pair;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD,
                             partner == rank_ ? MPI_UNDEFINED : (rank_ < partner ? rank_ : partner), rank_,
                             &pair));
    if (pair == MPI_COMM_NULL) {
      CHECK(partner == rank_);
      continue;
    }
    int me = -1;
    CHECK_MPI(MPI_Comm_rank(pair, &me));
    for (int k = 0; k < 4; ++k) {
      CHECK_MPI(MPI_Barrier(pair));
      const int sleeper = (k + round) % 2;
      double entered = 0.0, returned = 0.0;
      if (me == sleeper) {
        struct timespec nap = {0, 40 * 1000 * 1000};
        nanosleep(&nap, NULL);
        entered = host_clock_s();
        CHECK_MPI(MPI_Barrier(pair));
      } else {
        CHECK_MPI(MPI_Barrier(pair));
        returned = host_clock_s();
      }
      double other = 0.0;
      CHECK_MPI(MPI_Sendrecv(me == sleeper ? &entered : &returned, 1, MPI_DOUBLE, 1 - me, 9, &other, 1,
                             MPI_DOUBLE, 1 - me, 9, pair, MPI_STATUS_IGNORE));
      if (me != sleeper && returned < other) {
        fprintf(stderr,
                "rank %d: a barrier returned %.6f s before rank %d, which slept 40 ms first, entered it\n",
                rank_, other - returned, partner);
        CHECK(returned >= other);
      }
      if (k % 2 == 1) check_sum(pair);
    }
    CHECK_MPI(MPI_Comm_free(&pair));
  }
  PRINT0("barriers of changing pairs: ok\n");
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  PRINT0("coll_flat_free: %d ranks\n", size_);

  /* Freed in opposite orders on alternate ranks, then again in a loop. */
  for (int round = 0; round < 20; ++round) {
    MPI_Comm a, b;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    check_sum(a);
    check_sum(b);
    if (rank_ % 2 == 0) {
      CHECK_MPI(MPI_Comm_free(&a));
      CHECK_MPI(MPI_Comm_free(&b));
    } else {
      CHECK_MPI(MPI_Comm_free(&b));
      CHECK_MPI(MPI_Comm_free(&a));
    }
  }
  PRINT0("opposite free orders: ok\n");

  pair_barriers();

  late_reader(4);  /* in the control line */
  late_reader(64); /* in the data buffers */

  check_sum(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
