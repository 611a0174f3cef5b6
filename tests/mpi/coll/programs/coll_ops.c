/* SPDX-License-Identifier: MIT */
/* Every predefined reduction op on every C type it is defined for (MPI_Allreduce and MPI_Reduce,
 * checked against the same op computed locally), MINLOC/MAXLOC with ties, MPI_Reduce_local, and
 * user ops: a commutative sum and a non-commutative, associative one whose
 * result shows the order in which the ranks were combined. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#include "test_util.h"

/* Items per reduction: 5, or argv[1] (large counts take the rendezvous protocol, where receives fold
 * the arriving data into place, coll/schedule.cpp). */
static int N = 5;
static int rank_, size_;
static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes);
  CHECK(p != NULL);
  return p;
}

static long long val(MPI_Op op, int r, int i) {
  if (op == MPI_PROD) return 1 + (r + i) % 2;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return (r + i) % 3 != 0 ? 1 : 0;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return (r * 5 + i * 3 + 1) & 0x7f;
  return 1 + (r * 3 + i) % 5;
}

/* One C type: fill, MPI_Allreduce and MPI_Reduce (root size-1), compare with a local reduction. */
#define ARITH(a, b, op)                            \
  ((op) == MPI_SUM    ? (a) + (b)                  \
   : (op) == MPI_PROD ? (a) * (b)                  \
   : (op) == MPI_MIN  ? ((a) < (b) ? (a) : (b))    \
   : (op) == MPI_MAX  ? ((a) > (b) ? (a) : (b))    \
   : (op) == MPI_LAND ? (((a) != 0) && ((b) != 0)) \
   : (op) == MPI_LOR  ? (((a) != 0) || ((b) != 0)) \
                      : (((a) != 0) != ((b) != 0)))
#define BITS(a, b, op) ((op) == MPI_BAND ? ((a) & (b)) : (op) == MPI_BOR ? ((a) | (b)) : ((a) ^ (b)))

#define DEFINE_TEST(fname, T, COMBINE)                                           \
  static void fname(MPI_Datatype dt, MPI_Op op) {                                \
    T *s = xmalloc(sizeof(T) * (size_t)N), *r = xmalloc(sizeof(T) * (size_t)N);  \
    T *e = xmalloc(sizeof(T) * (size_t)N), *r2 = xmalloc(sizeof(T) * (size_t)N); \
    for (int i = 0; i < N; ++i) {                                                \
      s[i] = (T)val(op, rank_, i);                                               \
      e[i] = (T)val(op, 0, i);                                                   \
      for (int q = 1; q < size_; ++q) {                                          \
        T x = (T)val(op, q, i);                                                  \
        e[i] = (T)(COMBINE(e[i], x, op));                                        \
      }                                                                          \
    }                                                                            \
    CHECK_MPI(MPI_Allreduce(s, r, N, dt, op, MPI_COMM_WORLD));                   \
    for (int i = 0; i < N; ++i) CHECK(r[i] == e[i]);                             \
    CHECK_MPI(MPI_Reduce(s, r2, N, dt, op, size_ - 1, MPI_COMM_WORLD));          \
    if (rank_ == size_ - 1)                                                      \
      for (int i = 0; i < N; ++i) CHECK(r2[i] == e[i]);                          \
    free(s);                                                                     \
    free(r);                                                                     \
    free(e);                                                                     \
    free(r2);                                                                    \
  }

DEFINE_TEST(t_schar, signed char, ARITH)
DEFINE_TEST(t_uchar, unsigned char, ARITH)
DEFINE_TEST(t_short, short, ARITH)
DEFINE_TEST(t_ushort, unsigned short, ARITH)
DEFINE_TEST(t_int, int, ARITH)
DEFINE_TEST(t_uint, unsigned, ARITH)
DEFINE_TEST(t_long, long, ARITH)
DEFINE_TEST(t_ulong, unsigned long, ARITH)
DEFINE_TEST(t_llong, long long, ARITH)
DEFINE_TEST(t_ullong, unsigned long long, ARITH)
DEFINE_TEST(t_i8, int8_t, ARITH)
DEFINE_TEST(t_u8, uint8_t, ARITH)
DEFINE_TEST(t_i16, int16_t, ARITH)
DEFINE_TEST(t_u16, uint16_t, ARITH)
DEFINE_TEST(t_i32, int32_t, ARITH)
DEFINE_TEST(t_u32, uint32_t, ARITH)
DEFINE_TEST(t_i64, int64_t, ARITH)
DEFINE_TEST(t_u64, uint64_t, ARITH)
DEFINE_TEST(t_float, float, ARITH)
DEFINE_TEST(t_double, double, ARITH)
DEFINE_TEST(t_ldouble, long double, ARITH)
DEFINE_TEST(t_bool, bool, ARITH)
#define CARITH(a, b, op) ((op) == MPI_SUM ? (a) + (b) : (a) * (b))
DEFINE_TEST(t_cfloat, float _Complex, CARITH)
DEFINE_TEST(t_cdouble, double _Complex, CARITH)
DEFINE_TEST(t_cldouble, long double _Complex, CARITH)
DEFINE_TEST(b_schar, signed char, BITS)
DEFINE_TEST(b_uchar, unsigned char, BITS)
DEFINE_TEST(b_short, short, BITS)
DEFINE_TEST(b_ushort, unsigned short, BITS)
DEFINE_TEST(b_int, int, BITS)
DEFINE_TEST(b_uint, unsigned, BITS)
DEFINE_TEST(b_long, long, BITS)
DEFINE_TEST(b_ulong, unsigned long, BITS)
DEFINE_TEST(b_llong, long long, BITS)
DEFINE_TEST(b_ullong, unsigned long long, BITS)
DEFINE_TEST(b_i8, int8_t, BITS)
DEFINE_TEST(b_u8, uint8_t, BITS)
DEFINE_TEST(b_i16, int16_t, BITS)
DEFINE_TEST(b_u16, uint16_t, BITS)
DEFINE_TEST(b_i32, int32_t, BITS)
DEFINE_TEST(b_u32, uint32_t, BITS)
DEFINE_TEST(b_i64, int64_t, BITS)
DEFINE_TEST(b_u64, uint64_t, BITS)

typedef void (*TestFn)(MPI_Datatype, MPI_Op);
struct Case {
  const char *name;
  MPI_Datatype dt;
  TestFn arith, bits;
  int group; /* 0 C integer, 1 floating, 2 complex, 3 logical, 4 byte */
};

static void test_predefined(void) {
  const struct Case cases[] = {
      {"MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, t_schar, b_schar, 0},
      {"MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, t_uchar, b_uchar, 0},
      {"MPI_SHORT", MPI_SHORT, t_short, b_short, 0},
      {"MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, t_ushort, b_ushort, 0},
      {"MPI_INT", MPI_INT, t_int, b_int, 0},
      {"MPI_UNSIGNED", MPI_UNSIGNED, t_uint, b_uint, 0},
      {"MPI_LONG", MPI_LONG, t_long, b_long, 0},
      {"MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, t_ulong, b_ulong, 0},
      {"MPI_LONG_LONG", MPI_LONG_LONG, t_llong, b_llong, 0},
      {"MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, t_ullong, b_ullong, 0},
      {"MPI_INT8_T", MPI_INT8_T, t_i8, b_i8, 0},
      {"MPI_UINT8_T", MPI_UINT8_T, t_u8, b_u8, 0},
      {"MPI_INT16_T", MPI_INT16_T, t_i16, b_i16, 0},
      {"MPI_UINT16_T", MPI_UINT16_T, t_u16, b_u16, 0},
      {"MPI_INT32_T", MPI_INT32_T, t_i32, b_i32, 0},
      {"MPI_UINT32_T", MPI_UINT32_T, t_u32, b_u32, 0},
      {"MPI_INT64_T", MPI_INT64_T, t_i64, b_i64, 0},
      {"MPI_UINT64_T", MPI_UINT64_T, t_u64, b_u64, 0},
      {"MPI_FLOAT", MPI_FLOAT, t_float, NULL, 1},
      {"MPI_DOUBLE", MPI_DOUBLE, t_double, NULL, 1},
      {"MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, t_ldouble, NULL, 1},
      {"MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, t_cfloat, NULL, 2},
      {"MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, t_cdouble, NULL, 2},
      {"MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, t_cldouble, NULL, 2},
      {"MPI_C_BOOL", MPI_C_BOOL, t_bool, NULL, 3},
      {"MPI_BYTE", MPI_BYTE, NULL, b_uchar, 4},
  };
  const struct {
    MPI_Op op;
    const char *name;
    unsigned groups; /* bit per group */
    int bits;
  } ops[] = {
      {MPI_SUM, "MPI_SUM", 1 | 2 | 4, 0}, {MPI_PROD, "MPI_PROD", 1 | 2 | 4, 0},
      {MPI_MIN, "MPI_MIN", 1 | 2, 0},     {MPI_MAX, "MPI_MAX", 1 | 2, 0},
      {MPI_LAND, "MPI_LAND", 1 | 8, 0},   {MPI_LOR, "MPI_LOR", 1 | 8, 0},
      {MPI_LXOR, "MPI_LXOR", 1 | 8, 0},   {MPI_BAND, "MPI_BAND", 1 | 16, 1},
      {MPI_BOR, "MPI_BOR", 1 | 16, 1},    {MPI_BXOR, "MPI_BXOR", 1 | 16, 1},
  };
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      if ((ops[o].groups & (1u << cases[c].group)) == 0) continue;
      TestFn f = ops[o].bits ? cases[c].bits : cases[c].arith;
      CHECK(f != NULL);
      f(cases[c].dt, ops[o].op);
      ++n;
    }
    PRINT0("%-10s ok on %d types\n", ops[o].name, n);
  }
}

/* MINLOC / MAXLOC: values with ties (the smaller index wins a tie). */
#define DEFINE_LOC(fname, V, I)                                                                         \
  static void fname(MPI_Datatype dt) {                                                                  \
    typedef struct {                                                                                    \
      V v;                                                                                              \
      I i;                                                                                              \
    } Pair;                                                                                             \
    Pair *s = xmalloc(sizeof(Pair) * (size_t)N), *r = xmalloc(sizeof(Pair) * (size_t)N);                \
    Pair *emin = xmalloc(sizeof(Pair) * (size_t)N), *emax = xmalloc(sizeof(Pair) * (size_t)N);          \
    for (int k = 0; k < N; ++k) {                                                                       \
      s[k].v = (V)((rank_ * 7 + k) % 3);                                                                \
      s[k].i = (I)(rank_ * 2 + k);                                                                      \
      for (int q = 0; q < size_; ++q) {                                                                 \
        V v = (V)((q * 7 + k) % 3);                                                                     \
        I i = (I)(q * 2 + k);                                                                           \
        if (q == 0 || v < emin[k].v || (v == emin[k].v && i < emin[k].i)) emin[k].v = v, emin[k].i = i; \
        if (q == 0 || v > emax[k].v || (v == emax[k].v && i < emax[k].i)) emax[k].v = v, emax[k].i = i; \
      }                                                                                                 \
    }                                                                                                   \
    CHECK_MPI(MPI_Allreduce(s, r, N, dt, MPI_MINLOC, MPI_COMM_WORLD));                                  \
    for (int k = 0; k < N; ++k) CHECK(r[k].v == emin[k].v && r[k].i == emin[k].i);                      \
    CHECK_MPI(MPI_Allreduce(s, r, N, dt, MPI_MAXLOC, MPI_COMM_WORLD));                                  \
    for (int k = 0; k < N; ++k) CHECK(r[k].v == emax[k].v && r[k].i == emax[k].i);                      \
    free(s);                                                                                            \
    free(r);                                                                                            \
    free(emin);                                                                                         \
    free(emax);                                                                                         \
  }
DEFINE_LOC(l_float_int, float, int)
DEFINE_LOC(l_double_int, double, int)
DEFINE_LOC(l_long_int, long, int)
DEFINE_LOC(l_2int, int, int)
DEFINE_LOC(l_short_int, short, int)
DEFINE_LOC(l_ldouble_int, long double, int)

static void test_loc(void) {
  l_float_int(MPI_FLOAT_INT);
  l_double_int(MPI_DOUBLE_INT);
  l_long_int(MPI_LONG_INT);
  l_2int(MPI_2INT);
  l_short_int(MPI_SHORT_INT);
  l_ldouble_int(MPI_LONG_DOUBLE_INT);
  PRINT0("MPI_MINLOC/MPI_MAXLOC ok on 6 pair types (ties: smallest index)\n");
}

/* Fortran and multi-language types (Open MPI's C build may lack the Fortran ones: libtakyon_mpi only;
 * the same line is printed either way). */
static void test_other_types(void) {
#ifdef TAKYON_MPI_H_
  t_i32(MPI_INTEGER, MPI_SUM);
  t_i32(MPI_INTEGER4, MPI_PROD);
  t_i64(MPI_INTEGER8, MPI_MAX);
  t_i16(MPI_INTEGER2, MPI_MIN);
  b_i8(MPI_INTEGER1, MPI_BXOR);
  t_float(MPI_REAL, MPI_SUM);
  t_double(MPI_DOUBLE_PRECISION, MPI_MAX);
  t_float(MPI_REAL4, MPI_PROD);
  t_double(MPI_REAL8, MPI_MIN);
  t_cfloat(MPI_COMPLEX, MPI_PROD);
  t_cdouble(MPI_DOUBLE_COMPLEX, MPI_SUM);
  t_i32(MPI_LOGICAL, MPI_LAND);
  t_i32(MPI_LOGICAL4, MPI_LOR);
  t_i8(MPI_LOGICAL1, MPI_LXOR);
  t_bool(MPI_CXX_BOOL, MPI_LAND);
  t_llong(MPI_AINT, MPI_SUM);
  t_llong(MPI_OFFSET, MPI_MAX);
  t_llong(MPI_COUNT, MPI_PROD);
  l_2int(MPI_2INTEGER);
  {
    /* MPI_INTEGER16: 128-bit sums that carry out of the low 64 bits */
    unsigned long long s[2] = {0xffffffffffffffffULL, 0}, r[2];
    CHECK_MPI(MPI_Allreduce(s, r, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(r[0] == 0xffffffffffffffffULL * (unsigned long long)size_ &&
          r[1] == (unsigned long long)(size_ - 1));
  }
#if defined(__SIZEOF_FLOAT128__)
  {
    /* MPI_REAL16 / MPI_COMPLEX32 are gfortran's REAL(16): IEEE binary128 (1/3 has 113 bits there) */
    __extension__ typedef __float128 q_t;
    q_t x = (q_t)1 / 3 + rank_, sum = 0, cx[2] = {(q_t)1 / 3, (q_t)rank_ + 1}, c[2] = {0, 0},
        cprod[2] = {1, 0};
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    q_t want = 0;
    for (int r = 0; r < size_; ++r) want += (q_t)1 / 3 + r;
    CHECK((sum - want) * (sum - want) <= want * want * (q_t)1e-60); /* any order of the sum */
    CHECK_MPI(MPI_Allreduce(cx, c, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD));
    for (int r = 0; r < size_; ++r) { /* in rank order; within 1e-30 (binary128: ~1e-34, x87: ~1e-19) */
      q_t re = cprod[0] * ((q_t)1 / 3) - cprod[1] * (q_t)(r + 1);
      q_t im = cprod[0] * (q_t)(r + 1) + cprod[1] * ((q_t)1 / 3);
      cprod[0] = re;
      cprod[1] = im;
    }
    q_t dre = c[0] - cprod[0], dim = c[1] - cprod[1];
    CHECK(dre * dre + dim * dim <= (cprod[0] * cprod[0] + cprod[1] * cprod[1]) * (q_t)1e-60);
  }
#endif
#endif
  PRINT0("Fortran and multi-language types ok\n");
}

static void test_local(void) {
  int in[4] = {1, 2, 3, 4}, io[4] = {10, 20, 30, 40};
  CHECK_MPI(MPI_Reduce_local(in, io, 4, MPI_INT, MPI_SUM));
  CHECK(io[0] == 11 && io[3] == 44);
  for (int i = 0; i < 4; ++i) io[i] = in[i];
  double din[2] = {1.5, -2.0}, dio[2] = {2.0, 4.0};
  CHECK_MPI(MPI_Reduce_local(din, dio, 2, MPI_DOUBLE, MPI_PROD));
  CHECK(dio[0] == 3.0 && dio[1] == -8.0);
  {
    /* unaligned buffers (packed data may sit anywhere) */
    enum { M = 300 };
    unsigned char *x = (unsigned char *)malloc(M * sizeof(double) + 1),
                  *y = (unsigned char *)malloc(M * sizeof(double) + 3);
    for (int i = 0; i < M; ++i) {
      double u = i, v = 2 * i + 1;
      memcpy(x + 1 + i * sizeof(double), &u, sizeof u);
      memcpy(y + 3 + i * sizeof(double), &v, sizeof v);
    }
    CHECK_MPI(MPI_Reduce_local(x + 1, y + 3, M, MPI_DOUBLE, MPI_SUM));
    for (int i = 0; i < M; ++i) {
      double v;
      memcpy(&v, y + 3 + i * sizeof(double), sizeof v);
      CHECK(v == 3.0 * i + 1);
    }
    free(x);
    free(y);
  }
  PRINT0("MPI_Reduce_local ok (SUM, NO_OP, REPLACE, PROD, unaligned)\n");
}

/* User ops. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  CHECK(*dt == MPI_INT);
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

/* (a, b) is x -> a x + b; in op inout = "first in, then inout" (associative, not commutative). */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt) {
  CHECK(*dt == MPI_2INT);
  int *f = (int *)in, *g = (int *)inout;
  for (int i = 0; i < *len; ++i) {
    int a = g[2 * i] * f[2 * i];
    int b = g[2 * i] * f[2 * i + 1] + g[2 * i + 1];
    g[2 * i] = a;
    g[2 * i + 1] = b;
  }
}

static void affine(int r, int i, int *ab) {
  ab[0] = 1 + (r + i) % 2;
  ab[1] = r * 3 + i + 1;
}

/* The composition of ranks lo..hi-1 (in order) for item i. */
static void expect_compose(int lo, int hi, int i, int *ab) {
  ab[0] = 1;
  ab[1] = 0;
  for (int q = lo; q < hi; ++q) {
    int f[2];
    affine(q, i, f);
    int a = f[0] * ab[0], b = f[0] * ab[1] + f[1];
    ab[0] = a;
    ab[1] = b;
  }
}

static void test_user(void) {
  MPI_Op sum, comp;
  int commute = -1;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &sum));
  CHECK_MPI(MPI_Op_create(compose, 0, &comp));
  CHECK_MPI(MPI_Op_commutative(sum, &commute));
  CHECK(commute == 1);
  CHECK_MPI(MPI_Op_commutative(comp, &commute));
  CHECK(commute == 0);
  CHECK_MPI(MPI_Op_commutative(MPI_MAXLOC, &commute));
  CHECK(commute == 1);
  /* commutative user op, small and large (the large-vector algorithms) */
  for (int n = 1; n <= 30000; n += 29999) {
    int *s = (int *)malloc((size_t)n * sizeof(int)), *r = (int *)malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; ++i) s[i] = rank_ + i;
    CHECK_MPI(MPI_Allreduce(s, r, n, MPI_INT, sum, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) CHECK(r[i] == size_ * i + size_ * (size_ - 1) / 2);
    free(s);
    free(r);
  }
  PRINT0("user op (commutative) ok\n");
  /* non-commutative: every reduction in rank order */
  enum { M = 6 };
  int s[2 * M], r[2 * M], e[2];
  for (int i = 0; i < M; ++i) affine(rank_, i, s + 2 * i);
  CHECK_MPI(MPI_Allreduce(s, r, M, MPI_2INT, comp, MPI_COMM_WORLD));
  for (int i = 0; i < M; ++i) {
    expect_compose(0, size_, i, e);
    CHECK(r[2 * i] == e[0] && r[2 * i + 1] == e[1]);
  }
  for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
    memset(r, 0, sizeof r);
    CHECK_MPI(MPI_Reduce(s, r, M, MPI_2INT, comp, root, MPI_COMM_WORLD));
    if (rank_ == root) {
      for (int i = 0; i < M; ++i) {
        expect_compose(0, size_, i, e);
        CHECK(r[2 * i] == e[0] && r[2 * i + 1] == e[1]);
      }
    }
    if (size_ == 1) break;
  }
  CHECK_MPI(MPI_Scan(s, r, M, MPI_2INT, comp, MPI_COMM_WORLD));
  for (int i = 0; i < M; ++i) {
    expect_compose(0, rank_ + 1, i, e);
    CHECK(r[2 * i] == e[0] && r[2 * i + 1] == e[1]);
  }
  CHECK_MPI(MPI_Exscan(s, r, M, MPI_2INT, comp, MPI_COMM_WORLD));
  for (int i = 0; i < M && rank_ > 0; ++i) {
    expect_compose(0, rank_, i, e);
    CHECK(r[2 * i] == e[0] && r[2 * i + 1] == e[1]);
  }
  if (M % size_ == 0 || 1) {
    /* Reduce_scatter_block: one item per rank */
    int *big = (int *)malloc((size_t)size_ * 2 * sizeof(int));
    for (int q = 0; q < size_; ++q) affine(rank_, q, big + 2 * q);
    CHECK_MPI(MPI_Reduce_scatter_block(big, r, 1, MPI_2INT, comp, MPI_COMM_WORLD));
    expect_compose(0, size_, rank_, e);
    CHECK(r[0] == e[0] && r[1] == e[1]);
    free(big);
  }
  PRINT0(
      "user op (non-commutative) ok: Allreduce, Reduce, Scan, Exscan, Reduce_scatter_block in rank order\n");
  CHECK_MPI(MPI_Op_free(&sum));
  CHECK_MPI(MPI_Op_free(&comp));
  CHECK(sum == MPI_OP_NULL && comp == MPI_OP_NULL);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (argc > 1) N = atoi(argv[1]);
  CHECK(N > 0);
  PRINT0("coll_ops: %d ranks, %d items\n", size_, N);
  test_predefined();
  test_loc();
  test_other_types();
  test_local();
  test_user();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
