/* SPDX-License-Identifier: MIT */
/* MPI_Pack / MPI_Unpack / MPI_Pack_size: round trips of predefined and derived types, several packs
 * into one buffer (position arithmetic), unpacking into a differently laid out type, packed data sent
 * as MPI_PACKED to another rank and unpacked there, and MPI_ERR_TRUNCATE when the buffer is short.
 * np 1-5. */
#include <stddef.h>

#include "test_util.h"

static int packed_size(int count, MPI_Datatype t) {
  int s = -1;
  CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &s));
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;

  /* A vector of ints (3 blocks of 2, stride 4) and a struct {char; double; short}. */
  MPI_Datatype vec, st;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  struct S {
    char c;
    double d;
    short s;
  } in[2] = {{'x', 1.25, 7}, {'y', -3.5, -9}}, out[2];
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct S, c), offsetof(struct S, d), offsetof(struct S, s)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &st));
  CHECK_MPI(MPI_Type_commit(&st));

  /* Pack_size is the data size (no headers in either library for these). */
  PRINT0("pack_size: 5 int %d, 2 vector %d, 2 struct %d, 0 double %d\n", packed_size(5, MPI_INT),
         packed_size(2, vec), packed_size(2, st), packed_size(0, MPI_DOUBLE));

  /* Several packs into one buffer, position advancing by each one's size. */
  int v[22];
  for (int i = 0; i < 22; ++i) v[i] = 100 * rank + i;
  double dd[3] = {0.5 + rank, 1.5, 2.5};
  int total = packed_size(2, vec) + packed_size(2, st) + packed_size(3, MPI_DOUBLE);
  char *buf = (char *)malloc((size_t)total);
  int pos = 0;
  CHECK_MPI(MPI_Pack(v, 2, vec, buf, total, &pos, MPI_COMM_WORLD));
  int after_vec = pos;
  CHECK_MPI(MPI_Pack(in, 2, st, buf, total, &pos, MPI_COMM_WORLD));
  int after_struct = pos;
  CHECK_MPI(MPI_Pack(dd, 3, MPI_DOUBLE, buf, total, &pos, MPI_COMM_WORLD));
  PRINT0("positions: %d %d %d of %d\n", after_vec, after_struct, pos, total);
  CHECK(pos == total);

  /* The packed vector is its elements in order: 0 1 4 5 8 9 | 11 12 15 16 19 20 (item 2 at extent 10). */
  const int want[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
  int flat[12];
  int p2 = 0;
  CHECK_MPI(MPI_Unpack(buf, total, &p2, flat, 12, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < 12; ++i) CHECK(flat[i] == 100 * rank + want[i]);
  CHECK(p2 == after_vec);

  /* Round trip back into the original layouts; holes keep their sentinels. */
  int rv[22];
  for (int i = 0; i < 22; ++i) rv[i] = -1;
  memset(out, 0x11, sizeof out);
  double rd[3] = {0, 0, 0};
  pos = 0;
  CHECK_MPI(MPI_Unpack(buf, total, &pos, rv, 2, vec, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, total, &pos, out, 2, st, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, total, &pos, rd, 3, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK(pos == total);
  for (int i = 0; i < 22; ++i) {
    int in_type = i < 20 && (i % 10) % 4 < 2;
    CHECK(rv[i] == (in_type ? v[i] : -1));
  }
  for (int i = 0; i < 2; ++i) {
    CHECK(out[i].c == in[i].c && out[i].d == in[i].d && out[i].s == in[i].s);
    const unsigned char *raw = (const unsigned char *)&out[i];
    for (size_t b = 1; b < offsetof(struct S, d); ++b) CHECK(raw[b] == 0x11);
  }
  CHECK(rd[0] == 0.5 + rank && rd[2] == 2.5);
  PRINT0("round trip: ok\n");

  /* Packed bytes travel as MPI_PACKED and unpack on the next rank. */
  char *rbuf = (char *)malloc((size_t)total);
  MPI_Request q[2];
  CHECK_MPI(MPI_Irecv(rbuf, total, MPI_PACKED, prev, 3, MPI_COMM_WORLD, &q[0]));
  CHECK_MPI(MPI_Isend(buf, total, MPI_PACKED, next, 3, MPI_COMM_WORLD, &q[1]));
  CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
  pos = 0;
  for (int i = 0; i < 22; ++i) rv[i] = -1;
  CHECK_MPI(MPI_Unpack(rbuf, total, &pos, rv, 2, vec, MPI_COMM_WORLD));
  for (int i = 0; i < 12; ++i) {
    int k = want[i];
    CHECK(rv[k] == 100 * prev + k);
  }
  /* A derived-type send received as MPI_PACKED unpacks like a local pack. */
  CHECK_MPI(MPI_Irecv(rbuf, total, MPI_PACKED, prev, 4, MPI_COMM_WORLD, &q[0]));
  CHECK_MPI(MPI_Isend(in, 2, st, next, 4, MPI_COMM_WORLD, &q[1]));
  MPI_Status statuses[2];
  CHECK_MPI(MPI_Waitall(2, q, statuses));
  int got = -1;
  CHECK_MPI(MPI_Get_count(&statuses[0], MPI_PACKED, &got));
  PRINT0("struct received as MPI_PACKED: %d bytes\n", got);
  pos = 0;
  memset(out, 0, sizeof out);
  CHECK_MPI(MPI_Unpack(rbuf, got, &pos, out, 2, st, MPI_COMM_WORLD));
  CHECK(out[1].c == 'y' && out[1].d == -3.5 && out[1].s == -9);

  /* Truncation: packing past outsize, unpacking more than insize holds. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  pos = total - 4;
  int rc = MPI_Pack(v, 2, vec, buf, total, &pos, MPI_COMM_WORLD);
  int cls = -1;
  CHECK(rc != MPI_SUCCESS);
  MPI_Error_class(rc, &cls);
  PRINT0("pack past the end: %s\n", cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE" : "other error");
  CHECK(pos == total - 4);
  pos = after_vec;
  rc = MPI_Unpack(buf, after_vec + 4, &pos, out, 1, st, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS);
  MPI_Error_class(rc, &cls);
  PRINT0("unpack past the end: %s\n", cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE" : "other error");

  free(buf);
  free(rbuf);
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&st));
  PRINT0("pack: done\n");
  MPI_Finalize();
  return 0;
}
