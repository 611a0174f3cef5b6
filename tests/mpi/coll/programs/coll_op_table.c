/* SPDX-License-Identifier: MIT */
/* Every (predefined op, predefined datatype) pair through MPI_Allreduce and MPI_Reduce_local: whether
 * the library accepts it and, where it does, the result. Rank 0 prints one line per pair; the test
 * compares the lines with those of the same source built with Open MPI's mpicc, so the pairs accepted
 * and the results are Open MPI 4.1's (a program ported from it, e.g. a benchmark reducing MPI_CHAR,
 * must run unchanged). The datatypes are those both libraries define. Results are printed as the
 * bytes of each item (integers), in hexadecimal floating point (exact), or as value and index
 * (MINLOC/MAXLOC), except MPI_REAL16 and MPI_COMPLEX32: Open MPI 4.1 reduces those as x87 long double
 * while gfortran's REAL(16) is IEEE binary128, which libtakyon_mpi computes; for them only the
 * acceptance is compared. */
#include <complex.h>
#include <stdbool.h>

#include "test_util.h"

#define COUNT 3

enum Kind {
  kInt,    /* an integer (or a character or byte, reduced as an integer by both) of `size` bytes */
  kFloat,  /* float */
  kDouble, /* double */
  kLongDouble,
  kComplexF,
  kComplexD,
  kComplexLD,
  kBool,       /* C _Bool */
  kFLogical,   /* Fortran LOGICAL of `size` bytes: 0 or 1 */
  kOnlyAccept, /* no result compared (see the top of this file) */
  kPairFloatInt,
  kPairDoubleInt,
  kPairLongInt,
  kPair2Int,
  kPairShortInt,
  kPairLongDoubleInt,
  kPair2Float,
  kPair2Double,
};

struct Type {
  const char *name;
  MPI_Datatype dt;
  enum Kind kind;
  int size; /* bytes of one item in memory */
};

#define T(dt, kind, size) \
  { #dt, dt, kind, size }

static const struct Type kTypes[] = {
    T(MPI_CHAR, kInt, 1),
    T(MPI_SIGNED_CHAR, kInt, 1),
    T(MPI_UNSIGNED_CHAR, kInt, 1),
    T(MPI_BYTE, kInt, 1),
    T(MPI_WCHAR, kInt, (int)sizeof(wchar_t)),
    T(MPI_PACKED, kInt, 1),
    T(MPI_SHORT, kInt, (int)sizeof(short)),
    T(MPI_UNSIGNED_SHORT, kInt, (int)sizeof(short)),
    T(MPI_INT, kInt, (int)sizeof(int)),
    T(MPI_UNSIGNED, kInt, (int)sizeof(int)),
    T(MPI_LONG, kInt, (int)sizeof(long)),
    T(MPI_UNSIGNED_LONG, kInt, (int)sizeof(long)),
    T(MPI_LONG_LONG, kInt, (int)sizeof(long long)),
    T(MPI_LONG_LONG_INT, kInt, (int)sizeof(long long)),
    T(MPI_UNSIGNED_LONG_LONG, kInt, (int)sizeof(long long)),
    T(MPI_INT8_T, kInt, 1),
    T(MPI_INT16_T, kInt, 2),
    T(MPI_INT32_T, kInt, 4),
    T(MPI_INT64_T, kInt, 8),
    T(MPI_UINT8_T, kInt, 1),
    T(MPI_UINT16_T, kInt, 2),
    T(MPI_UINT32_T, kInt, 4),
    T(MPI_UINT64_T, kInt, 8),
    T(MPI_AINT, kInt, (int)sizeof(MPI_Aint)),
    T(MPI_OFFSET, kInt, (int)sizeof(MPI_Offset)),
    T(MPI_COUNT, kInt, (int)sizeof(MPI_Count)),
    T(MPI_FLOAT, kFloat, 4),
    T(MPI_DOUBLE, kDouble, 8),
    T(MPI_LONG_DOUBLE, kLongDouble, (int)sizeof(long double)),
    T(MPI_C_BOOL, kBool, (int)sizeof(bool)),
    T(MPI_CXX_BOOL, kBool, (int)sizeof(bool)),
    T(MPI_C_COMPLEX, kComplexF, (int)sizeof(float complex)),
    T(MPI_C_FLOAT_COMPLEX, kComplexF, (int)sizeof(float complex)),
    T(MPI_C_DOUBLE_COMPLEX, kComplexD, (int)sizeof(double complex)),
    T(MPI_C_LONG_DOUBLE_COMPLEX, kComplexLD, (int)sizeof(long double complex)),
    T(MPI_CXX_FLOAT_COMPLEX, kComplexF, (int)sizeof(float complex)),
    T(MPI_CXX_DOUBLE_COMPLEX, kComplexD, (int)sizeof(double complex)),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, kComplexLD, (int)sizeof(long double complex)),
    T(MPI_CHARACTER, kInt, 1),
    T(MPI_INTEGER, kInt, 4),
    T(MPI_INTEGER1, kInt, 1),
    T(MPI_INTEGER2, kInt, 2),
    T(MPI_INTEGER4, kInt, 4),
    T(MPI_INTEGER8, kInt, 8),
    T(MPI_LOGICAL, kFLogical, 4),
    T(MPI_LOGICAL1, kFLogical, 1),
    T(MPI_LOGICAL2, kFLogical, 2),
    T(MPI_LOGICAL4, kFLogical, 4),
    T(MPI_LOGICAL8, kFLogical, 8),
    T(MPI_REAL, kFloat, 4),
    T(MPI_REAL4, kFloat, 4),
    T(MPI_DOUBLE_PRECISION, kDouble, 8),
    T(MPI_REAL8, kDouble, 8),
    T(MPI_REAL16, kOnlyAccept, 16),
    T(MPI_COMPLEX, kComplexF, 8),
    T(MPI_COMPLEX8, kComplexF, 8),
    T(MPI_DOUBLE_COMPLEX, kComplexD, 16),
    T(MPI_COMPLEX16, kComplexD, 16),
    T(MPI_COMPLEX32, kOnlyAccept, 32),
    T(MPI_FLOAT_INT, kPairFloatInt, 0),
    T(MPI_DOUBLE_INT, kPairDoubleInt, 0),
    T(MPI_LONG_INT, kPairLongInt, 0),
    T(MPI_2INT, kPair2Int, 0),
    T(MPI_SHORT_INT, kPairShortInt, 0),
    T(MPI_LONG_DOUBLE_INT, kPairLongDoubleInt, 0),
    T(MPI_2REAL, kPair2Float, 0),
    T(MPI_2DOUBLE_PRECISION, kPair2Double, 0),
    T(MPI_2INTEGER, kPair2Int, 0),
};

struct Op {
  const char *name;
  MPI_Op op;
};
static const struct Op kOps[] = {
    {"MPI_SUM", MPI_SUM},         {"MPI_PROD", MPI_PROD},     {"MPI_MIN", MPI_MIN},
    {"MPI_MAX", MPI_MAX},         {"MPI_LAND", MPI_LAND},     {"MPI_LOR", MPI_LOR},
    {"MPI_LXOR", MPI_LXOR},       {"MPI_BAND", MPI_BAND},     {"MPI_BOR", MPI_BOR},
    {"MPI_BXOR", MPI_BXOR},       {"MPI_MINLOC", MPI_MINLOC}, {"MPI_MAXLOC", MPI_MAXLOC},
    {"MPI_REPLACE", MPI_REPLACE}, {"MPI_NO_OP", MPI_NO_OP},
};

/* Item i of rank r's vector: small values whose sums and products are exact, one item with the top
 * bit set (the signedness of MIN/MAX on bytes and characters shows), ties between ranks for the
 * MINLOC/MAXLOC indices. */
static long long int_value(int r, int i) {
  if (i == 2) return 0x7f + r; /* 0x7f, 0x80, ...: signed and unsigned minima differ */
  return 1 + r + 2 * i;
}
static double real_value(int r, int i) {
  return i == 2 ? -1.5 * (r + 1) : 0.5 + r + 0.25 * i;
}

/* Fills `count` items of type t for rank r. `buf` has room for COUNT items of 64 bytes. */
static void fill(const struct Type *t, int r, unsigned char *buf) {
  memset(buf, 0, COUNT * 64);
  for (int i = 0; i < COUNT; ++i) {
    switch (t->kind) {
      case kInt: {
        long long v = int_value(r, i);
        memcpy(buf + i * t->size, &v, (size_t)t->size); /* little-endian: the low bytes */
        break;
      }
      case kFloat:
        ((float *)buf)[i] = (float)real_value(r, i);
        break;
      case kDouble:
        ((double *)buf)[i] = real_value(r, i);
        break;
      case kLongDouble:
        ((long double *)buf)[i] = real_value(r, i);
        break;
      case kComplexF:
        ((float complex *)buf)[i] = (float)real_value(r, i) + (float)(i - r) * 0.5f * I;
        break;
      case kComplexD:
        ((double complex *)buf)[i] = real_value(r, i) + (i - r) * 0.5 * I;
        break;
      case kComplexLD:
        ((long double complex *)buf)[i] = real_value(r, i) + (i - r) * 0.5L * I;
        break;
      case kBool:
        ((bool *)buf)[i] = ((r + i) % 2) != 0 || (i == 2 && r == 0);
        break;
      case kFLogical: {
        long long v = ((r + i) % 2) != 0 || (i == 2 && r == 0);
        memcpy(buf + i * t->size, &v, (size_t)t->size);
        break;
      }
      case kOnlyAccept:
        break; /* zeros: a valid value of every type */
#define PAIR(kind, vtype, itype)                            \
  case kind: {                                              \
    struct {                                                \
      vtype v;                                              \
      itype k;                                              \
    } *p = (void *)buf;                                     \
    p[i].v = (vtype)(r % 2 == 0 ? 3 + i : 1 + i * (r + 1)); \
    p[i].k = (itype)(10 * r + i);                           \
    break;                                                  \
  }
        PAIR(kPairFloatInt, float, int)
        PAIR(kPairDoubleInt, double, int)
        PAIR(kPairLongInt, long, int)
        PAIR(kPair2Int, int, int)
        PAIR(kPairShortInt, short, int)
        PAIR(kPairLongDoubleInt, long double, int)
        PAIR(kPair2Float, float, float)
        PAIR(kPair2Double, double, double)
#undef PAIR
    }
  }
}

/* Appends the printed form of COUNT result items to `out`. */
static void show(const struct Type *t, const unsigned char *buf, char *out, size_t room) {
  size_t used = strlen(out);
#define ADD(...) used += (size_t)snprintf(out + used, used < room ? room - used : 0, __VA_ARGS__)
  for (int i = 0; i < COUNT; ++i) {
    switch (t->kind) {
      case kInt:
      case kFLogical:
        ADD(" 0x");
        for (int b = t->size - 1; b >= 0; --b) ADD("%02x", buf[i * t->size + b]);
        break;
      case kBool:
        ADD(" %d", ((const bool *)buf)[i] ? 1 : 0);
        break;
      case kFloat:
        ADD(" %a", (double)((const float *)buf)[i]);
        break;
      case kDouble:
        ADD(" %a", ((const double *)buf)[i]);
        break;
      case kLongDouble:
        ADD(" %La", ((const long double *)buf)[i]);
        break;
      case kComplexF:
        ADD(" (%a,%a)", (double)crealf(((const float complex *)buf)[i]),
            (double)cimagf(((const float complex *)buf)[i]));
        break;
      case kComplexD:
        ADD(" (%a,%a)", creal(((const double complex *)buf)[i]), cimag(((const double complex *)buf)[i]));
        break;
      case kComplexLD:
        ADD(" (%La,%La)", creall(((const long double complex *)buf)[i]),
            cimagl(((const long double complex *)buf)[i]));
        break;
      case kOnlyAccept:
        break;
#define PAIR(kind, vtype, itype, fmt, cast)                  \
  case kind: {                                               \
    const struct {                                           \
      vtype v;                                               \
      itype k;                                               \
    } *p = (const void *)buf;                                \
    ADD(" (" fmt ",%lld)", (cast)p[i].v, (long long)p[i].k); \
    break;                                                   \
  }
        PAIR(kPairFloatInt, float, int, "%a", double)
        PAIR(kPairDoubleInt, double, int, "%a", double)
        PAIR(kPairLongInt, long, int, "%lld", long long)
        PAIR(kPair2Int, int, int, "%lld", long long)
        PAIR(kPairShortInt, short, int, "%lld", long long)
        PAIR(kPairLongDoubleInt, long double, int, "%La", long double)
        PAIR(kPair2Float, float, float, "%a", double)
        PAIR(kPair2Double, double, double, "%a", double)
#undef PAIR
    }
  }
#undef ADD
}

/* "ok <items>" or the error class, for one call's return code and result. */
static void outcome(const struct Type *t, int rc, const unsigned char *result, char *out, size_t room) {
  if (rc == MPI_SUCCESS) {
    snprintf(out, room, "ok");
    show(t, result, out, room);
    return;
  }
  int cls = -1;
  CHECK_MPI(MPI_Error_class(rc, &cls));
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(rc, text, &len));
  CHECK(len > 0);
  snprintf(out, room, "%s", error_class_name(cls));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank = world_rank();
  const int size = world_size();
  static unsigned char send[COUNT * 64], recv[COUNT * 64], local[COUNT * 64], mine[COUNT * 64];
  static char all_text[1024], local_text[1024];
  int accepted = 0;
  for (size_t t = 0; t < sizeof kTypes / sizeof kTypes[0]; ++t) {
    const struct Type *type = &kTypes[t];
    for (size_t o = 0; o < sizeof kOps / sizeof kOps[0]; ++o) {
      fill(type, rank, send);
      memset(recv, 0, sizeof recv);
      const int rc = MPI_Allreduce(send, recv, COUNT, type->dt, kOps[o].op, MPI_COMM_WORLD);
      outcome(type, rc, recv, all_text, sizeof all_text);
      accepted += rc == MPI_SUCCESS;
      /* MPI_Reduce_local: rank 0's vector combined into the last rank's, as one step of a reduction. */
      fill(type, 0, mine);
      fill(type, size - 1, local);
      const int rc_local = MPI_Reduce_local(mine, local, COUNT, type->dt, kOps[o].op);
      outcome(type, rc_local, local, local_text, sizeof local_text);
      CHECK((rc == MPI_SUCCESS) == (rc_local == MPI_SUCCESS));
      PRINT0("%s %s: allreduce %s; reduce_local %s\n", kOps[o].name, type->name, all_text, local_text);
    }
  }
  PRINT0("%d pairs accepted\n", accepted);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
