/* SPDX-License-Identifier: MIT */
/* Datatypes near and past 64 bits, under MPI_ERRORS_RETURN. Valid huge types (2^62 bytes, an extent of
 * 2^63 - 1) are built and queried: MPI_Type_size says MPI_UNDEFINED, the _x query and the extents the
 * full values. Every constructor whose size, extent or bounds would overflow MPI_Count / MPI_Aint
 * fails with MPI_ERR_VALUE_TOO_LARGE naming itself and leaves *newtype alone; a count of items that
 * overflows in a send, receive, collective, pack or reduction is MPI_ERR_COUNT, never a wrapped size
 * (4 items of 2^62 bytes were 0 bytes, sent "successfully"). Open MPI 4.1 builds the overflowing types
 * with wrapped values, so those calls are made under libtakyon_mpi only and the Open MPI build prints
 * the same lines (the output is compared). np 1-4. */
#include <stdint.h>

#include "test_util.h"

#ifndef MPI_ERR_VALUE_TOO_LARGE /* MPI-4.0; Open MPI 4.1's mpi.h lacks it (its build never checks it) */
#define MPI_ERR_VALUE_TOO_LARGE (-1)
#endif

static const char *class_name(int cls) {
  return cls == MPI_ERR_VALUE_TOO_LARGE ? "MPI_ERR_VALUE_TOO_LARGE" : error_class_name(cls);
}

/* The call failed with class `cls`, its message names `fn` and says "overflow"; rank 0 prints the
 * message to stderr and "<what>: <class>" to stdout. */
static void expect_overflow(const char *what, int rc, int cls, const char *fn) {
  CHECK(rc != MPI_SUCCESS);
  int got = -1;
  CHECK_MPI(MPI_Error_class(rc, &got));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(rc, text, &len));
  if (got != cls || strstr(text, fn) == NULL || strstr(text, "overflow") == NULL) {
    fprintf(stderr,
            "rank %d: %s: class %d (expected %s), message '%s' (expected to name %s and an overflow)\n",
            world_rank(), what, got, class_name(cls), text, fn);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  if (world_rank() == 0) fprintf(stderr, "%s: %s\n", what, text);
  PRINT0("%s: %s\n", what, class_name(cls));
}

/* A constructor that must overflow: under libtakyon_mpi the call is made (and *newtype must stay
 * untouched); elsewhere only the line is printed. */
#define CONSTRUCTOR_OVERFLOWS(what, fn, call)                        \
  do {                                                               \
    if (takyon_mpi()) {                                              \
      newtype = MPI_DATATYPE_NULL;                                   \
      expect_overflow(what, call, MPI_ERR_VALUE_TOO_LARGE, fn);      \
      CHECK(newtype == MPI_DATATYPE_NULL);                           \
    } else {                                                         \
      PRINT0("%s: %s\n", what, class_name(MPI_ERR_VALUE_TOO_LARGE)); \
    }                                                                \
  } while (0)

/* A call whose count overflows: MPI_ERR_COUNT under libtakyon_mpi (elsewhere not made). */
#define COUNT_OVERFLOWS(what, fn, call)                    \
  do {                                                     \
    if (takyon_mpi()) {                                    \
      expect_overflow(what, call, MPI_ERR_COUNT, fn);      \
    } else {                                               \
      PRINT0("%s: %s\n", what, class_name(MPI_ERR_COUNT)); \
    }                                                      \
  } while (0)

/* A user op (reductions of derived types take one); never called here. */
static void never_called(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)in;
  (void)inout;
  (void)len;
  (void)dt;
  abort();
}

/* Prints size, size_x, lb, extent, true lb and true extent of `t` (rank 0). */
static void show(const char *what, MPI_Datatype t) {
  int size = 0;
  MPI_Count size_x = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK_MPI(MPI_Type_size_x(t, &size_x));
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_MPI(MPI_Type_get_true_extent(t, &true_lb, &true_extent));
  PRINT0("%s: size %s, size_x %lld, lb %lld, extent %lld, true lb %lld, true extent %lld\n", what,
         size == MPI_UNDEFINED ? "MPI_UNDEFINED" : "an int", (long long)size_x, (long long)lb,
         (long long)extent, (long long)true_lb, (long long)true_extent);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank = world_rank();
  const MPI_Aint aint_max = INTPTR_MAX, aint_min = INTPTR_MIN;
  const MPI_Aint two62 = (MPI_Aint)1 << 62;
  MPI_Datatype newtype = MPI_DATATYPE_NULL;

  /* Valid huge types: 8 GiB and 2^62 bytes of doubles (no memory behind them), 2 GiB of shorts, one
   * char whose extent is the largest MPI_Aint, and a dup of the largest. */
  MPI_Datatype g8, big, g2, wide, big_dup;
  CHECK_MPI(MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &g8));
  CHECK_MPI(MPI_Type_contiguous(1 << 29, g8, &big));
  CHECK_MPI(MPI_Type_contiguous(1 << 30, MPI_SHORT, &g2));
  CHECK_MPI(MPI_Type_create_resized(MPI_CHAR, -16, aint_max, &wide));
  CHECK_MPI(MPI_Type_dup(big, &big_dup));
  MPI_Datatype all[5] = {g8, big, g2, wide, big_dup};
  for (int i = 0; i < 5; ++i) CHECK_MPI(MPI_Type_commit(&all[i]));
  show("8 GiB of doubles", g8);
  show("2^62 bytes of doubles", big);
  show("2 GiB of shorts", g2);
  show("a char resized to lb -16, extent 2^63 - 1", wide);
  show("dup of 2^62 bytes", big_dup);
  MPI_Count count_x = 0;
  CHECK_MPI(MPI_Type_size_x(big, &count_x));
  CHECK(count_x == two62);

  /* Every constructor, overflowing. */
  int bl = 1 << 30, disp0 = 0, disp30 = 1 << 30, one = 1, eight = 8;
  MPI_Aint near_max = aint_max - 2;
  CONSTRUCTOR_OVERFLOWS("contiguous 2^30 x 8 GiB", "MPI_Type_contiguous",
                        MPI_Type_contiguous(1 << 30, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("contiguous 2 x 2^62 bytes", "MPI_Type_contiguous",
                        MPI_Type_contiguous(2, big, &newtype));
  CONSTRUCTOR_OVERFLOWS("vector 2^30 blocks of 8 GiB", "MPI_Type_vector",
                        MPI_Type_vector(1 << 30, 1, 2, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("vector stride 2^30 x 8 GiB", "MPI_Type_vector",
                        MPI_Type_vector(2, 1, 1 << 30, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("hvector 3 chars stride 2^62", "MPI_Type_create_hvector",
                        MPI_Type_create_hvector(3, 1, two62, MPI_CHAR, &newtype));
  CONSTRUCTOR_OVERFLOWS("hvector 3 chars stride -2^62", "MPI_Type_create_hvector",
                        MPI_Type_create_hvector(3, 1, -two62, MPI_CHAR, &newtype));
  CONSTRUCTOR_OVERFLOWS("indexed block of 2^30 x 8 GiB", "MPI_Type_indexed",
                        MPI_Type_indexed(1, &bl, &disp0, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("indexed displacement 2^30 x 8 GiB", "MPI_Type_indexed",
                        MPI_Type_indexed(1, &one, &disp30, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("hindexed 8 chars at 2^63 - 3", "MPI_Type_create_hindexed",
                        MPI_Type_create_hindexed(1, &eight, &near_max, MPI_CHAR, &newtype));
  CONSTRUCTOR_OVERFLOWS("indexed_block of 2^30 x 8 GiB", "MPI_Type_create_indexed_block",
                        MPI_Type_create_indexed_block(1, 1 << 30, &disp0, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("hindexed_block 8 chars at 2^63 - 3", "MPI_Type_create_hindexed_block",
                        MPI_Type_create_hindexed_block(1, 8, &near_max, MPI_CHAR, &newtype));
  MPI_Datatype two_big[2] = {big, big};
  int ones[2] = {1, 1};
  MPI_Aint apart[2] = {0, two62};
  CONSTRUCTOR_OVERFLOWS("struct of two 2^62-byte members", "MPI_Type_create_struct",
                        MPI_Type_create_struct(2, ones, apart, two_big, &newtype));
  MPI_Datatype g8_char[2] = {g8, MPI_CHAR};
  int g8_bls[2] = {1 << 30, 1};
  MPI_Aint zeros[2] = {0, 0};
  CONSTRUCTOR_OVERFLOWS("struct of 2^30 x 8 GiB", "MPI_Type_create_struct",
                        MPI_Type_create_struct(2, g8_bls, zeros, g8_char, &newtype));
  int sizes[2] = {1 << 30, 1 << 30}, subsizes[2] = {1, 1}, starts[2] = {0, 0};
  CONSTRUCTOR_OVERFLOWS("subarray 2^30 x 2^30 of 8 GiB", "MPI_Type_create_subarray",
                        MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, g8, &newtype));
  CONSTRUCTOR_OVERFLOWS("resized lb 2^63 - 1, extent 16", "MPI_Type_create_resized",
                        MPI_Type_create_resized(MPI_CHAR, aint_max, 16, &newtype));
  CONSTRUCTOR_OVERFLOWS("resized lb -2^63, extent -16", "MPI_Type_create_resized",
                        MPI_Type_create_resized(MPI_CHAR, aint_min, -16, &newtype));
  CONSTRUCTOR_OVERFLOWS("contiguous 2 x extent 2^63 - 1", "MPI_Type_contiguous",
                        MPI_Type_contiguous(2, wide, &newtype));

  /* Queries of the types that fit: Pack_size's int cannot hold 2 GiB. */
  int psize = 0;
  if (takyon_mpi()) {
    expect_overflow("pack_size of 2 GiB", MPI_Pack_size(1, g2, MPI_COMM_WORLD, &psize),
                    MPI_ERR_VALUE_TOO_LARGE, "MPI_Pack_size");
  } else {
    PRINT0("pack_size of 2 GiB: %s\n", class_name(MPI_ERR_VALUE_TOO_LARGE));
  }
  CHECK_MPI(MPI_Pack_size(1, wide, MPI_COMM_WORLD, &psize));
  CHECK(psize >= 1);
  MPI_Status st;
  CHECK_MPI(MPI_Status_set_elements_x(&st, big, (MPI_Count)1 << 59)); /* 2^59 doubles: one item */
  MPI_Count elements_x = 0;
  int elements = 0, count = 0;
  CHECK_MPI(MPI_Get_elements_x(&st, big, &elements_x));
  CHECK_MPI(MPI_Get_elements(&st, big, &elements));
  CHECK_MPI(MPI_Get_count(&st, big, &count));
  PRINT0("a status of one 2^62-byte item: %lld elements (int: %s), count %d\n", (long long)elements_x,
         elements == MPI_UNDEFINED ? "MPI_UNDEFINED" : "an int", count);
  COUNT_OVERFLOWS("status_set_elements_x 2^62 long doubles", "MPI_Status_set_elements_x",
                  MPI_Status_set_elements_x(&st, MPI_LONG_DOUBLE, (MPI_Count)1 << 62));

  /* Counts that overflow in communication, packing and reductions (every rank fails alike, so none
   * waits for another). 4 x 2^62 bytes is 2^64: a wrapped size would be 0. */
  char buf[64] = {0}, packed[64];
  MPI_Request req = MPI_REQUEST_NULL;
  int pos = 0;
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(never_called, 1, &op));
  COUNT_OVERFLOWS("send 4 x 2^62 bytes", "MPI_Send", MPI_Send(buf, 4, big, rank, 0, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("isend 4 x 2^62 bytes", "MPI_Isend", MPI_Isend(buf, 4, big, rank, 0, MPI_COMM_WORLD, &req));
  COUNT_OVERFLOWS("recv 4 x 2^62 bytes", "MPI_Recv",
                  MPI_Recv(buf, 4, big, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  COUNT_OVERFLOWS("irecv 4 x 2^62 bytes", "MPI_Irecv", MPI_Irecv(buf, 4, big, rank, 0, MPI_COMM_WORLD, &req));
  COUNT_OVERFLOWS("send 3 chars of extent 2^63 - 1", "MPI_Send",
                  MPI_Send(buf, 3, wide, rank, 0, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("sendrecv 4 x 2^62 bytes", "MPI_Sendrecv",
                  MPI_Sendrecv(buf, 1, MPI_CHAR, rank, 0, buf, 4, big, rank, 0, MPI_COMM_WORLD, &st));
  COUNT_OVERFLOWS("pack 4 x 2^62 bytes", "MPI_Pack", MPI_Pack(buf, 4, big, packed, 64, &pos, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("unpack 4 x 2^62 bytes", "MPI_Unpack",
                  MPI_Unpack(packed, 64, &pos, buf, 4, big, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("pack_size 4 x 2^62 bytes", "MPI_Pack_size", MPI_Pack_size(4, big, MPI_COMM_WORLD, &psize));
  COUNT_OVERFLOWS("bcast 4 x 2^62 bytes", "MPI_Bcast", MPI_Bcast(buf, 4, big, 0, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("allreduce 4 x 2^62 bytes", "MPI_Allreduce",
                  MPI_Allreduce(MPI_IN_PLACE, buf, 4, big, op, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("allgather 2 x 2^62 bytes", "MPI_Allgather",
                  MPI_Allgather(buf, 2, big, packed, 2, big, MPI_COMM_WORLD));
  COUNT_OVERFLOWS("ibcast 4 x 2^62 bytes", "MPI_Ibcast", MPI_Ibcast(buf, 4, big, 0, MPI_COMM_WORLD, &req));
  COUNT_OVERFLOWS("reduce_local 4 x 2^62 bytes", "MPI_Reduce_local",
                  MPI_Reduce_local(buf, packed, 4, big, op));

  /* One item of the widest type is one char: it moves, and packs, like one. */
  char in = (char)(40 + rank), out = 0;
  CHECK_MPI(MPI_Sendrecv(&in, 1, wide, rank, 5, &out, 1, wide, rank, 5, MPI_COMM_WORLD, &st));
  CHECK(out == in);
  pos = 0;
  CHECK_MPI(MPI_Pack(&in, 1, wide, packed, 64, &pos, MPI_COMM_WORLD));
  CHECK(pos == 1 && packed[0] == in);
  PRINT0("one char of extent 2^63 - 1: sent, received and packed\n");

  /* The library still works after all this: a ring exchange of checked bytes. */
  const int size = world_size();
  unsigned char ring_out[256], ring_in[256];
  fill_pattern(ring_out, sizeof ring_out, (unsigned)(100 + rank));
  CHECK_MPI(MPI_Sendrecv(ring_out, 256, MPI_BYTE, (rank + 1) % size, 9, ring_in, 256, MPI_BYTE,
                         (rank + size - 1) % size, 9, MPI_COMM_WORLD, &st));
  CHECK(check_pattern(ring_in, sizeof ring_in, (unsigned)(100 + (rank + size - 1) % size)) < 0);
  for (int i = 4; i >= 0; --i) CHECK_MPI(MPI_Type_free(&all[i]));
  CHECK_MPI(MPI_Op_free(&op));
  PRINT0("type_overflow: done\n");
  MPI_Finalize();
  return 0;
}
