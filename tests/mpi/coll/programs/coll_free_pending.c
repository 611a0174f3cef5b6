/* SPDX-License-Identifier: MIT */
/* Handles freed while a nonblocking collective that uses them is pending: the standard lets a program
 * free a datatype or a user op right after the call that starts the operation, which must keep using
 * them until it completes. Ialltoallw with per-rank derived types, Iallgather and Igatherv into a
 * derived receive type, Ialltoall with a resized type, Iallreduce, Ireduce and Iscan with user ops
 * (one not commutative), a user op on a non-contiguous type, all freed before MPI_Wait, and the
 * same for Isend, Irecv and a persistent receive; every received byte and the holes between them are
 * checked. np 1-3. */
#include "test_util.h"

enum { kCount = 3, kStride = 2 };

/* inout[i] = in[i] + inout[i] (commutative). */
static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = (const int *)in;
  int *b = (int *)inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

/* inout[i] = 10 * in[i] + inout[i]: the order of the operands shows in the result. */
static void shift_add(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = (const int *)in;
  int *b = (int *)inout;
  for (int i = 0; i < *len; ++i) b[i] = 10 * a[i] + b[i];
}

/* The same on items of one int every kStride ints (the layout of the type it is used with). */
static void add_strided(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = (const int *)in;
  int *b = (int *)inout;
  for (int i = 0; i < *len; ++i) b[i * kStride] += a[i * kStride];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  const int p = size;

  /* Ialltoallw: kCount ints to each rank, received into every other int (a vector type per rank). */
  {
    int *send = (int *)malloc(sizeof(int) * (size_t)(p * kCount));
    int *recv = (int *)malloc(sizeof(int) * (size_t)(p * kCount * kStride));
    int *counts = (int *)malloc(sizeof(int) * (size_t)p);
    int *sdispls = (int *)malloc(sizeof(int) * (size_t)p);
    int *rdispls = (int *)malloc(sizeof(int) * (size_t)p);
    int *ones = (int *)malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *stypes = (MPI_Datatype *)malloc(sizeof(MPI_Datatype) * (size_t)p);
    MPI_Datatype *rtypes = (MPI_Datatype *)malloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < kCount; ++j) send[i * kCount + j] = 1000 * rank + 10 * i + j;
      counts[i] = kCount;
      ones[i] = 1;
      sdispls[i] = (int)sizeof(int) * i * kCount;
      rdispls[i] = (int)sizeof(int) * i * kCount * kStride;
      stypes[i] = MPI_INT;
      CHECK_MPI(MPI_Type_vector(kCount, 1, kStride, MPI_INT, &rtypes[i]));
      CHECK_MPI(MPI_Type_commit(&rtypes[i]));
    }
    for (int i = 0; i < p * kCount * kStride; ++i) recv[i] = -1;
    MPI_Request req;
    CHECK_MPI(
        MPI_Ialltoallw(send, counts, sdispls, stypes, recv, ones, rdispls, rtypes, MPI_COMM_WORLD, &req));
    for (int i = 0; i < p; ++i) CHECK_MPI(MPI_Type_free(&rtypes[i]));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < kCount * kStride; ++j) {
        int got = recv[i * kCount * kStride + j];
        CHECK(got == (j % kStride == 0 ? 1000 * i + 10 * rank + j / kStride : -1));
      }
    }
    PRINT0("ialltoallw: types freed while pending, %d blocks checked\n", p);
    free(send);
    free(recv);
    free(counts);
    free(sdispls);
    free(rdispls);
    free(ones);
    free(stypes);
    free(rtypes);
  }

  /* Iallgather and Igatherv into a vector receive type, freed at once. */
  {
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(kCount, 1, kStride, MPI_INT, &vec));
    MPI_Datatype item;
    CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * kCount * kStride, &item));
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Type_commit(&item));
    int mine[kCount];
    for (int j = 0; j < kCount; ++j) mine[j] = 100 * rank + j;
    int *all = (int *)malloc(sizeof(int) * (size_t)(p * kCount * kStride));
    int *g = (int *)malloc(sizeof(int) * (size_t)(p * kCount * kStride));
    int *rcounts = (int *)malloc(sizeof(int) * (size_t)p);
    int *displs = (int *)malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; ++i) {
      rcounts[i] = 1;
      displs[i] = p - 1 - i; /* reversed order */
    }
    for (int i = 0; i < p * kCount * kStride; ++i) all[i] = g[i] = -1;
    MPI_Request reqs[2];
    MPI_Datatype item2;
    CHECK_MPI(MPI_Type_dup(item, &item2));
    CHECK_MPI(MPI_Iallgather(mine, kCount, MPI_INT, all, 1, item, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Igatherv(mine, kCount, MPI_INT, g, rcounts, displs, item2, 0, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Type_free(&item));
    CHECK_MPI(MPI_Type_free(&item2));
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < kCount * kStride; ++j) {
        CHECK(all[i * kCount * kStride + j] == (j % kStride == 0 ? 100 * i + j / kStride : -1));
        if (rank == 0) {
          int from = p - 1 - i;
          CHECK(g[i * kCount * kStride + j] == (j % kStride == 0 ? 100 * from + j / kStride : -1));
        }
      }
    }
    PRINT0("iallgather, igatherv: receive types freed while pending\n");
    free(all);
    free(g);
    free(rcounts);
    free(displs);
  }

  /* Ialltoall with a send type that picks every other int, freed at once. */
  {
    MPI_Datatype pick, pick1;
    CHECK_MPI(MPI_Type_vector(kCount, 1, kStride, MPI_INT, &pick));
    CHECK_MPI(MPI_Type_create_resized(pick, 0, (MPI_Aint)sizeof(int) * kCount * kStride, &pick1));
    CHECK_MPI(MPI_Type_free(&pick));
    CHECK_MPI(MPI_Type_commit(&pick1));
    int *send = (int *)malloc(sizeof(int) * (size_t)(p * kCount * kStride));
    int *recv = (int *)malloc(sizeof(int) * (size_t)(p * kCount));
    for (int i = 0; i < p * kCount * kStride; ++i) send[i] = 7 * rank + i;
    for (int i = 0; i < p * kCount; ++i) recv[i] = -1;
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoall(send, 1, pick1, recv, kCount, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Type_free(&pick1));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < kCount; ++j) {
        CHECK(recv[i * kCount + j] == 7 * i + rank * kCount * kStride + j * kStride);
      }
    }
    PRINT0("ialltoall: send type freed while pending\n");
    free(send);
    free(recv);
  }

  /* User ops freed while Iallreduce, Ireduce and Iscan are pending. */
  {
    MPI_Op sum, ordered;
    CHECK_MPI(MPI_Op_create(add_ints, 1, &sum));
    CHECK_MPI(MPI_Op_create(shift_add, 0, &ordered));
    int in[kCount], all[kCount], red[kCount], scan[kCount];
    for (int j = 0; j < kCount; ++j) {
      in[j] = rank + j;
      all[j] = red[j] = scan[j] = -1;
    }
    MPI_Request reqs[3];
    CHECK_MPI(MPI_Iallreduce(in, all, kCount, MPI_INT, sum, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Ireduce(in, red, kCount, MPI_INT, ordered, 0, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Iscan(in, scan, kCount, MPI_INT, ordered, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Op_free(&sum));
    CHECK_MPI(MPI_Op_free(&ordered));
    CHECK(sum == MPI_OP_NULL && ordered == MPI_OP_NULL);
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    for (int j = 0; j < kCount; ++j) {
      CHECK(all[j] == p * (p - 1) / 2 + p * j);
      /* x0 op x1 op ... with a op b = 10a + b, in rank order: sum of x_i * 10^(n-1-i). */
      long long want = 0, prefix = 0;
      for (int i = 0; i < p; ++i) want = 10 * want + (i + j);
      for (int i = 0; i <= rank; ++i) prefix = 10 * prefix + (i + j);
      if (rank == 0) CHECK(red[j] == (int)want);
      CHECK(scan[j] == (int)prefix);
    }
    PRINT0("iallreduce, ireduce, iscan: user ops freed while pending\n");
  }

  /* A user op on a non-contiguous type (every other int), both freed while Iallreduce is pending; the
   * function sees the items as laid out in the buffer, and the holes of the result stay untouched.
   * MPI_Reduce_local with the same pair, blocking. */
  {
    MPI_Op sum;
    CHECK_MPI(MPI_Op_create(add_strided, 1, &sum));
    MPI_Datatype every_other, item;
    CHECK_MPI(MPI_Type_vector(1, 1, kStride, MPI_INT, &every_other));
    CHECK_MPI(MPI_Type_create_resized(every_other, 0, (MPI_Aint)sizeof(int) * kStride, &item));
    CHECK_MPI(MPI_Type_free(&every_other));
    CHECK_MPI(MPI_Type_commit(&item));
    int in[kCount * kStride], out[kCount * kStride], local[kCount * kStride];
    for (int i = 0; i < kCount * kStride; ++i) {
      in[i] = i % kStride == 0 ? rank + i : -100; /* the holes hold junk the function must not see */
      out[i] = -1;
      local[i] = i % kStride == 0 ? 1000 : -7;
    }
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(in, out, kCount, item, sum, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Reduce_local(in, local, kCount, item, sum));
    CHECK_MPI(MPI_Type_free(&item));
    CHECK_MPI(MPI_Op_free(&sum));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < kCount * kStride; ++i) {
      CHECK(out[i] == (i % kStride == 0 ? p * (p - 1) / 2 + p * i : -1));
      CHECK(local[i] == (i % kStride == 0 ? 1000 + rank + i : -7));
    }
    PRINT0("iallreduce with a user op on a non-contiguous type: both freed while pending\n");
  }

  /* Point-to-point: Isend and Irecv with vector types freed at once, and a persistent receive whose
   * type is freed before MPI_Start. */
  {
    const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
    MPI_Datatype sv, rv;
    CHECK_MPI(MPI_Type_vector(kCount, 1, kStride, MPI_INT, &sv));
    CHECK_MPI(MPI_Type_commit(&sv));
    CHECK_MPI(MPI_Type_dup(sv, &rv));
    int send[kCount * kStride], recv[kCount * kStride], again[kCount * kStride];
    for (int i = 0; i < kCount * kStride; ++i) {
      send[i] = 10 * rank + i;
      recv[i] = again[i] = -1;
    }
    MPI_Request reqs[2], persistent;
    CHECK_MPI(MPI_Recv_init(again, 1, rv, prev, 8, MPI_COMM_WORLD, &persistent));
    CHECK_MPI(MPI_Irecv(recv, 1, rv, prev, 7, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(send, 1, sv, next, 7, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Type_free(&rv));
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Start(&persistent));
    CHECK_MPI(MPI_Send(send, 1, sv, next, 8, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Type_free(&sv));
    CHECK_MPI(MPI_Wait(&persistent, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&persistent));
    for (int i = 0; i < kCount * kStride; ++i) {
      const int want = i % kStride == 0 ? 10 * prev + i : -1;
      CHECK(recv[i] == want && again[i] == want);
    }
    PRINT0("isend, irecv, persistent receive: types freed while pending\n");
  }

  MPI_Finalize();
  return 0;
}
