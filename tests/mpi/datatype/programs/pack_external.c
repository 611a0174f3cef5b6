/* SPDX-License-Identifier: MIT */
/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size ("external32"): big-endian bytes of
 * ints, shorts, floats, doubles, complex numbers and a pair type, a derived type with holes (packed
 * without them, unpacked without writing them), several packs at advancing positions, external32 bytes
 * sent to another rank as MPI_BYTE and unpacked there, and MPI_ERR_TRUNCATE for a short buffer. Under
 * libtakyon_mpi also the types whose external32 size differs from the native one (MPI_LONG and
 * MPI_UNSIGNED_LONG: 4 bytes, MPI_WCHAR: 2, MPI_LONG_DOUBLE: IEEE binary128; Open MPI 4.1 gets these
 * wrong), MPI_ERR_CONVERSION for a long beyond 32 bits and MPI_ERR_UNSUPPORTED_DATAREP. np 1-3. */
#include <stddef.h>
#include <wchar.h>

#include "test_util.h"

static MPI_Aint ext_size(int count, MPI_Datatype t) {
  MPI_Aint s = -1;
  CHECK_MPI(MPI_Pack_external_size("external32", count, t, &s));
  return s;
}

/* Packs `count` items of `t` at `in` and prints the bytes; returns how many. */
static MPI_Aint show(const char *what, const void *in, int count, MPI_Datatype t, unsigned char *out) {
  MPI_Aint pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", in, count, t, out, 256, &pos));
  CHECK(pos == ext_size(count, t));
  char line[1024];
  int at = snprintf(line, sizeof line, "%s (%ld bytes):", what, (long)pos);
  for (MPI_Aint i = 0; i < pos && at < (int)sizeof line - 4; ++i)
    at += snprintf(line + at, sizeof line - (size_t)at, " %02x", out[i]);
  PRINT0("%s\n", line);
  return pos;
}

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t n) {
  for (size_t i = 0; i < n; ++i) CHECK(got[i] == want[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  unsigned char out[256];

  PRINT0("sizes: int %ld, short %ld, 3 double %ld, float complex %ld, double_int %ld, 2int %ld, char %ld\n",
         (long)ext_size(1, MPI_INT), (long)ext_size(1, MPI_SHORT), (long)ext_size(3, MPI_DOUBLE),
         (long)ext_size(1, MPI_C_FLOAT_COMPLEX), (long)ext_size(1, MPI_DOUBLE_INT),
         (long)ext_size(1, MPI_2INT), (long)ext_size(1, MPI_CHAR));

  /* Predefined types: big-endian. */
  int ints[2] = {0x01020304, -2};
  show("int", ints, 2, MPI_INT, out);
  const unsigned char want_int[8] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
  expect_bytes(out, want_int, 8);
  short sh = 0x0a0b;
  show("short", &sh, 1, MPI_SHORT, out);
  CHECK(out[0] == 0x0a && out[1] == 0x0b);
  double d = 1.5;
  show("double", &d, 1, MPI_DOUBLE, out);
  const unsigned char want_d[8] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0};
  expect_bytes(out, want_d, 8);
  float fc[2] = {1.0f, -2.0f}; /* one MPI_C_FLOAT_COMPLEX: each part big-endian */
  show("float complex", fc, 1, MPI_C_FLOAT_COMPLEX, out);
  const unsigned char want_fc[8] = {0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0};
  expect_bytes(out, want_fc, 8);
  struct {
    double v;
    int i;
  } di = {2.0, 7};
  show("double_int", &di, 1, MPI_DOUBLE_INT, out);
  const unsigned char want_di[12] = {0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  expect_bytes(out, want_di, 12);

  /* A struct {char; double; short} with holes, 2 items: packed without padding, unpacked without
   * touching the holes. */
  struct S {
    char c;
    double v;
    short s;
  } in[2] = {{'a', -0.5, 0x1234}, {'b', 4.0, -3}}, back[2];
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct S, c), offsetof(struct S, v), offsetof(struct S, s)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, st;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &st));
  CHECK_MPI(MPI_Type_commit(&st));
  MPI_Aint n = show("struct x2", in, 2, st, out);
  CHECK(n == 2 * 11);
  const unsigned char want_s[11] = {'a', 0xbf, 0xe0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
  expect_bytes(out, want_s, 11);
  memset(back, 0x5a, sizeof back);
  MPI_Aint pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, n, &pos, back, 2, st));
  CHECK(pos == n);
  for (int i = 0; i < 2; ++i) CHECK(back[i].c == in[i].c && back[i].v == in[i].v && back[i].s == in[i].s);
  const unsigned char *raw = (const unsigned char *)back;
  for (size_t i = 1; i < offsetof(struct S, v); ++i) CHECK(raw[i] == 0x5a); /* the hole after c */
  PRINT0("struct round trip: ok\n");

  /* Several packs at advancing positions, then one unpack of each. */
  unsigned char buf[64];
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", ints, 2, MPI_INT, buf, 64, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, 64, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &sh, 1, MPI_SHORT, buf, 64, &pos));
  PRINT0("positions: end %ld\n", (long)pos);
  int ints2[2];
  double d2;
  short sh2;
  MPI_Aint upos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buf, pos, &upos, ints2, 2, MPI_INT));
  CHECK_MPI(MPI_Unpack_external("external32", buf, pos, &upos, &d2, 1, MPI_DOUBLE));
  CHECK_MPI(MPI_Unpack_external("external32", buf, pos, &upos, &sh2, 1, MPI_SHORT));
  CHECK(upos == pos && ints2[0] == ints[0] && ints2[1] == ints[1] && d2 == d && sh2 == sh);

  /* external32 travels as bytes: each rank sends its own values to the next. */
  int mine[3] = {rank, -rank, 1000 + rank}, theirs[3];
  unsigned char send[12], recv[12];
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", mine, 3, MPI_INT, send, 12, &pos));
  CHECK_MPI(MPI_Sendrecv(send, 12, MPI_BYTE, (rank + 1) % size, 0, recv, 12, MPI_BYTE,
                         (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  upos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", recv, 12, &upos, theirs, 3, MPI_INT));
  int prev = (rank + size - 1) % size;
  CHECK(theirs[0] == prev && theirs[1] == -prev && theirs[2] == 1000 + prev);
  PRINT0("sent as bytes: ok\n");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  pos = 0;
  expect_class("pack into 4 bytes", MPI_Pack_external("external32", ints, 2, MPI_INT, out, 4, &pos),
               MPI_ERR_TRUNCATE);
  upos = 0;
  expect_class("unpack from 6 bytes", MPI_Unpack_external("external32", buf, 6, &upos, ints2, 2, MPI_INT),
               MPI_ERR_TRUNCATE);

  if (takyon_mpi()) {
    CHECK(ext_size(1, MPI_LONG) == 4 && ext_size(1, MPI_UNSIGNED_LONG) == 4 && ext_size(1, MPI_WCHAR) == 2 &&
          ext_size(1, MPI_LONG_DOUBLE) == 16 && ext_size(1, MPI_LONG_INT) == 8 &&
          ext_size(1, MPI_C_LONG_DOUBLE_COMPLEX) == 32 && ext_size(1, MPI_AINT) == 8);
    long l[2] = {-3, 0x01020304L};
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", l, 2, MPI_LONG, out, 256, &pos));
    const unsigned char want_l[8] = {0xff, 0xff, 0xff, 0xfd, 1, 2, 3, 4};
    CHECK(pos == 8);
    expect_bytes(out, want_l, 8);
    long lback[2] = {0, 0};
    upos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", out, pos, &upos, lback, 2, MPI_LONG));
    CHECK(lback[0] == -3 && lback[1] == 0x01020304L);
    unsigned long ul = 0xfffffffeUL, ulback = 0;
    pos = upos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &ul, 1, MPI_UNSIGNED_LONG, out, 256, &pos));
    CHECK_MPI(MPI_Unpack_external("external32", out, pos, &upos, &ulback, 1, MPI_UNSIGNED_LONG));
    CHECK(pos == 4 && ulback == ul);
    wchar_t w[2] = {L'A', 0x20ac}, wback[2];
    pos = upos = 0;
    CHECK_MPI(MPI_Pack_external("external32", w, 2, MPI_WCHAR, out, 256, &pos));
    const unsigned char want_w[4] = {0, 0x41, 0x20, 0xac};
    CHECK(pos == 4);
    expect_bytes(out, want_w, 4);
    CHECK_MPI(MPI_Unpack_external("external32", out, pos, &upos, wback, 2, MPI_WCHAR));
    CHECK(wback[0] == w[0] && wback[1] == w[1]);
    long double ld[3] = {1.5L, -0.1L, 1e-4940L}, ldback[3];
    pos = upos = 0;
    CHECK_MPI(MPI_Pack_external("external32", ld, 3, MPI_LONG_DOUBLE, out, 256, &pos));
    const unsigned char want_ld[4] = {0x3f, 0xff, 0x80, 0};
    CHECK(pos == 48);
    expect_bytes(out, want_ld, 4);
    for (int i = 4; i < 16; ++i) CHECK(out[i] == 0);
    CHECK(out[16] == 0xbf && out[17] == 0xfb); /* -0.1: sign and exponent 0x3ffb */
    CHECK_MPI(MPI_Unpack_external("external32", out, pos, &upos, ldback, 3, MPI_LONG_DOUBLE));
    for (int i = 0; i < 3; ++i) CHECK(ldback[i] == ld[i]);
    long big = 1L << 40;
    pos = 0;
    expect_class("a long beyond 32 bits", MPI_Pack_external("external32", &big, 1, MPI_LONG, out, 256, &pos),
                 MPI_ERR_CONVERSION);
    expect_class("datarep native", MPI_Pack_external("native", ints, 1, MPI_INT, out, 256, &pos),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    PRINT0("long, unsigned long, wchar, long double: ok\n");
  } else {
    PRINT0(
        "a long beyond 32 bits: MPI_ERR_CONVERSION\ndatarep native: MPI_ERR_UNSUPPORTED_DATAREP\n"
        "long, unsigned long, wchar, long double: ok\n");
  }
  CHECK_MPI(MPI_Type_free(&st));
  MPI_Finalize();
  return 0;
}
