/* SPDX-License-Identifier: MIT */
/* Bad datatype input under MPI_ERRORS_RETURN: uncommitted types in communication, freed and garbage
 * handles, MPI_DATATYPE_NULL, negative counts and block lengths, freeing a predefined type, bad
 * subarrays. Every call must fail; under libtakyon_mpi the exact error class is checked and printed to
 * stderr with the message. Freed and garbage handles are undefined behaviour elsewhere (Open MPI may
 * crash on them), so only the Takyon build makes those calls (and the few checks Open MPI lacks). np 1-5. */
#include "test_util.h"

/* The call must fail (under libtakyon_mpi with class `cls`; rank 0 prints its message to stderr). */
static void expect(const char *what, int rc, int cls) {
  expect_error(what, rc, cls);
  if (takyon_mpi() && world_rank() == 0) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK_MPI(MPI_Error_string(rc, text, &len));
    fprintf(stderr, "%s: %s\n", what, text);
  }
  PRINT0("%s: error\n", what);
}

/* A call only the Takyon build makes (undefined behaviour in other libraries); prints the same line. */
#define TAKYON_ONLY(what, call, cls) RUN_IF_TAKYON(expect, what, call, cls, "error")

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank = world_rank();
  int buf[64] = {0};
  MPI_Request req;
  MPI_Status st;
  MPI_Datatype t, u, freed;
  int size = 0;
  MPI_Aint lb, extent;

  /* Uncommitted: constructors and queries accept it, communication and packing do not. */
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 8);
  CHECK_MPI(MPI_Type_contiguous(2, t, &u));
  CHECK_MPI(MPI_Type_free(&u));
  expect("send with an uncommitted type", MPI_Send(buf, 1, t, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  expect("irecv with an uncommitted type", MPI_Irecv(buf, 1, t, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  int pos = 0;
  expect("pack with an uncommitted type", MPI_Pack(buf, 1, t, buf + 32, 64, &pos, MPI_COMM_WORLD),
         MPI_ERR_TYPE);

  /* MPI_DATATYPE_NULL everywhere. */
  expect("type_size of MPI_DATATYPE_NULL", MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
  expect("get_extent of MPI_DATATYPE_NULL", MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &extent),
         MPI_ERR_TYPE);
  expect("contiguous of MPI_DATATYPE_NULL", MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &u), MPI_ERR_TYPE);
  MPI_Datatype tys[2] = {MPI_INT, MPI_DATATYPE_NULL};
  int bls[2] = {1, 1};
  MPI_Aint ds[2] = {0, 8};
  expect("struct with MPI_DATATYPE_NULL", MPI_Type_create_struct(2, bls, ds, tys, &u), MPI_ERR_TYPE);
  expect("resized of MPI_DATATYPE_NULL", MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &u), MPI_ERR_TYPE);
  MPI_Datatype null_type = MPI_DATATYPE_NULL;
  expect("commit of MPI_DATATYPE_NULL", MPI_Type_commit(&null_type), MPI_ERR_TYPE);
  expect("free of MPI_DATATYPE_NULL", MPI_Type_free(&null_type), MPI_ERR_TYPE);
  expect("recv with MPI_DATATYPE_NULL", MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_TYPE);

  /* Predefined types cannot be freed. */
  MPI_Datatype predefined = MPI_INT;
  expect("free of MPI_INT", MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK(predefined == MPI_INT);

  /* Negative counts and block lengths. */
  expect("contiguous with count -1", MPI_Type_contiguous(-1, MPI_INT, &u), MPI_ERR_COUNT);
  expect("vector with count -2", MPI_Type_vector(-2, 1, 1, MPI_INT, &u), MPI_ERR_COUNT);
  expect("vector with blocklength -1", MPI_Type_vector(2, -1, 1, MPI_INT, &u), MPI_ERR_ARG);
  int nbl[2] = {1, -3}, nd[2] = {0, 4};
  expect("indexed with blocklength -3", MPI_Type_indexed(2, nbl, nd, MPI_INT, &u), MPI_ERR_ARG);
  CHECK_MPI(MPI_Type_commit(&t));
  expect("send with count -1 of a derived type", MPI_Send(buf, -1, t, rank, 0, MPI_COMM_WORLD),
         MPI_ERR_COUNT);
  pos = 0;
  expect("pack with count -1", MPI_Pack(buf, -1, t, buf + 32, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* Open MPI 4.1 does not check MPI_Pack_size's count. */
  TAKYON_ONLY("pack_size with count -4", MPI_Pack_size(-4, t, MPI_COMM_WORLD, &size), MPI_ERR_COUNT);

  /* Contents of a predefined type; arrays too short for a type's contents. */
  int ints[4];
  MPI_Aint aints[4];
  MPI_Datatype dts[4];
  expect("get_contents of MPI_INT", MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, aints, dts), MPI_ERR_TYPE);
  expect("get_contents with max_integers 2 for a vector", MPI_Type_get_contents(t, 2, 4, 4, ints, aints, dts),
         MPI_ERR_ARG);

  /* Subarrays that do not fit. */
  int sizes[2] = {4, 4}, subs[2] = {2, 5}, starts[2] = {0, 0};
  expect("subarray with subsize > size",
         MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &u), MPI_ERR_ARG);
  int subs2[2] = {2, 2}, starts2[2] = {3, 0};
  expect("subarray with start + subsize > size",
         MPI_Type_create_subarray(2, sizes, subs2, starts2, MPI_ORDER_C, MPI_INT, &u), MPI_ERR_ARG);

  /* libtakyon_mpi flattens every type: one too large to flatten fails cleanly (Open MPI builds it). */
  TAKYON_ONLY("vector of 2^27 strided doubles", MPI_Type_vector(1 << 27, 1, 2, MPI_DOUBLE, &u),
              MPI_ERR_NO_MEM);
  CHECK_MPI(MPI_Type_vector(1 << 20, 1, 2, MPI_DOUBLE, &u));
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &u)); /* one block: no limit */
  CHECK_MPI(MPI_Type_free(&u));

  /* Freed and garbage handles (Takyon only: undefined behaviour elsewhere). */
  CHECK_MPI(MPI_Type_dup(t, &freed));
  MPI_Datatype stale = freed;
  CHECK_MPI(MPI_Type_free(&freed));
  CHECK(freed == MPI_DATATYPE_NULL);
  TAKYON_ONLY("send with a freed type", MPI_Send(buf, 1, stale, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  TAKYON_ONLY("type_size of a freed type", MPI_Type_size(stale, &size), MPI_ERR_TYPE);
  TAKYON_ONLY("free of a freed type", MPI_Type_free(&stale), MPI_ERR_TYPE);
  double garbage_storage[8] = {0};
  MPI_Datatype garbage = (MPI_Datatype)(void *)garbage_storage;
  TAKYON_ONLY("get_extent of a garbage handle", MPI_Type_get_extent(garbage, &lb, &extent), MPI_ERR_TYPE);
  TAKYON_ONLY("isend with a garbage handle", MPI_Isend(buf, 1, garbage, rank, 0, MPI_COMM_WORLD, &req),
              MPI_ERR_TYPE);

  /* The library still works: a committed type goes to self and back. */
  int src[4] = {1 + rank, -1, 3 + rank, -1}, dst[4] = {-5, -5, -5, -5};
  CHECK_MPI(MPI_Sendrecv(src, 1, t, rank, 1, dst, 1, t, rank, 1, MPI_COMM_WORLD, &st));
  CHECK(dst[0] == 1 + rank && dst[1] == -5 && dst[2] == 3 + rank && dst[3] == -5);
  CHECK_MPI(MPI_Type_free(&t));
  PRINT0("type_errors: done\n");
  MPI_Finalize();
  return 0;
}
