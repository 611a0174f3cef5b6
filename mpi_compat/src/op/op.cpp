// SPDX-License-Identifier: MIT
// Reduction operations (see op.hpp). Each predefined datatype belongs to one of the standard's type
// groups (C integer, Fortran integer, floating point, complex, logical, byte, pair); each predefined
// op allows some groups. The kernels are templates over the C++ type of one item.
//
// Which pairs are accepted follows Open MPI 4.1, which programs are ported from (tests/mpi/coll's
// coll_op_table compares every pair with it): beyond the standard's table it reduces MPI_CHAR (as
// signed), MPI_CHARACTER and MPI_BYTE (as unsigned), MPI_INTEGER1/2/8 and MPI_LOGICAL1/2/8 as C
// integers (every integer, logical and bitwise op), and it refuses MPI_REPLACE and MPI_NO_OP outside
// one-sided accumulates. MPI_REAL16 and MPI_COMPLEX32 are IEEE binary128, gfortran's REAL(16) (Open
// MPI 4.1 reduces them as x87 long double).
#include "op/op.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "datatype/datatype.hpp"
#include "datatype/predefined.hpp"
#include "errors.hpp"
#include "op/user_op.hpp"

// IEEE binary128 for MPI_REAL16 / MPI_COMPLEX32: GCC's and Clang's __float128 on x86-64, long double
// where that is binary128 (AArch64); elsewhere the two types take no reduction.
#if defined(__SIZEOF_FLOAT128__) || (defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113)
#define TAKYON_MPI_HAVE_FLOAT128 1
#else
#define TAKYON_MPI_HAVE_FLOAT128 0
#endif

namespace takyon::mpi {
namespace {

#if defined(__SIZEOF_FLOAT128__)
__extension__ using Float128 = __float128;
#elif TAKYON_MPI_HAVE_FLOAT128
using Float128 = long double;
#endif

enum Group : unsigned {
  kNone = 0,
  kCInt = 1,
  kFInt = 2,
  kFloat = 4,
  kComplex = 8,
  kLogical = 16,
  kPair = 32,
};

/// How an item of a datatype is reduced: its group and the kernel selector (the C++ type).
enum class Repr : std::uint8_t {
  kNone,
  kI8,
  kI16,
  kI32,
  kI64,
  kI128,
  kU8,
  kU16,
  kU32,
  kU64,
  kF32,
  kF64,
  kFLD,
  kF128,  ///< IEEE binary128 (MPI_REAL16)
  kC32,
  kC64,
  kCLD,
  kC128,  ///< two binary128 (MPI_COMPLEX32)
  kBool,
  kPFloatInt,
  kPDoubleInt,
  kPLongInt,
  kP2Int,
  kPShortInt,
  kPLongDoubleInt,
  kP2Float,
  kP2Double,
};

struct TypeInfo {
  unsigned group = kNone;
  Repr repr = Repr::kNone;
};

template <class T>
constexpr Repr signed_repr() {
  return sizeof(T) == 1 ? Repr::kI8 : sizeof(T) == 2 ? Repr::kI16 : sizeof(T) == 4 ? Repr::kI32 : Repr::kI64;
}
template <class T>
constexpr Repr unsigned_repr() {
  return sizeof(T) == 1 ? Repr::kU8 : sizeof(T) == 2 ? Repr::kU16 : sizeof(T) == 4 ? Repr::kU32 : Repr::kU64;
}

TypeInfo type_info(MPI_Datatype dt) {
  struct Row {
    MPI_Datatype dt;
    TypeInfo info;
  };
  static const Row rows[] = {
    {MPI_SHORT, {kCInt, signed_repr<short>()}},
    {MPI_INT, {kCInt, signed_repr<int>()}},
    {MPI_LONG, {kCInt, signed_repr<long>()}},
    {MPI_LONG_LONG, {kCInt, signed_repr<long long>()}},
    {MPI_SIGNED_CHAR, {kCInt, Repr::kI8}},
    {MPI_UNSIGNED_CHAR, {kCInt, Repr::kU8}},
    {MPI_UNSIGNED_SHORT, {kCInt, unsigned_repr<unsigned short>()}},
    {MPI_UNSIGNED, {kCInt, unsigned_repr<unsigned>()}},
    {MPI_UNSIGNED_LONG, {kCInt, unsigned_repr<unsigned long>()}},
    {MPI_UNSIGNED_LONG_LONG, {kCInt, unsigned_repr<unsigned long long>()}},
    {MPI_INT8_T, {kCInt, Repr::kI8}},
    {MPI_INT16_T, {kCInt, Repr::kI16}},
    {MPI_INT32_T, {kCInt, Repr::kI32}},
    {MPI_INT64_T, {kCInt, Repr::kI64}},
    {MPI_UINT8_T, {kCInt, Repr::kU8}},
    {MPI_UINT16_T, {kCInt, Repr::kU16}},
    {MPI_UINT32_T, {kCInt, Repr::kU32}},
    {MPI_UINT64_T, {kCInt, Repr::kU64}},
    {MPI_AINT, {kCInt, signed_repr<MPI_Aint>()}},
    {MPI_OFFSET, {kCInt, signed_repr<MPI_Offset>()}},
    {MPI_COUNT, {kCInt, signed_repr<MPI_Count>()}},
    {MPI_CHAR, {kCInt, Repr::kI8}},
    {MPI_CHARACTER, {kCInt, Repr::kU8}},
    {MPI_INTEGER, {kFInt, Repr::kI32}},
    {MPI_INTEGER1, {kCInt, Repr::kI8}},
    {MPI_INTEGER2, {kCInt, Repr::kI16}},
    {MPI_INTEGER4, {kFInt, Repr::kI32}},
    {MPI_INTEGER8, {kCInt, Repr::kI64}},
    {MPI_INTEGER16, {kFInt, Repr::kI128}},
    {MPI_FLOAT, {kFloat, Repr::kF32}},
    {MPI_DOUBLE, {kFloat, Repr::kF64}},
    {MPI_LONG_DOUBLE, {kFloat, Repr::kFLD}},
    {MPI_REAL, {kFloat, Repr::kF32}},
    {MPI_DOUBLE_PRECISION, {kFloat, Repr::kF64}},
    {MPI_REAL4, {kFloat, Repr::kF32}},
    {MPI_REAL8, {kFloat, Repr::kF64}},
#if TAKYON_MPI_HAVE_FLOAT128
    {MPI_REAL16, {kFloat, Repr::kF128}},
    {MPI_COMPLEX32, {kComplex, Repr::kC128}},
#endif
    {MPI_C_FLOAT_COMPLEX, {kComplex, Repr::kC32}},
    {MPI_CXX_FLOAT_COMPLEX, {kComplex, Repr::kC32}},
    {MPI_C_DOUBLE_COMPLEX, {kComplex, Repr::kC64}},
    {MPI_CXX_DOUBLE_COMPLEX, {kComplex, Repr::kC64}},
    {MPI_C_LONG_DOUBLE_COMPLEX, {kComplex, Repr::kCLD}},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, {kComplex, Repr::kCLD}},
    {MPI_COMPLEX, {kComplex, Repr::kC32}},
    {MPI_DOUBLE_COMPLEX, {kComplex, Repr::kC64}},
    {MPI_COMPLEX8, {kComplex, Repr::kC32}},
    {MPI_COMPLEX16, {kComplex, Repr::kC64}},
    {MPI_C_BOOL, {kLogical, Repr::kBool}},
    {MPI_CXX_BOOL, {kLogical, Repr::kBool}},
    {MPI_LOGICAL, {kLogical, Repr::kI32}},
    {MPI_LOGICAL1, {kCInt, Repr::kI8}},
    {MPI_LOGICAL2, {kCInt, Repr::kI16}},
    {MPI_LOGICAL4, {kLogical, Repr::kI32}},
    {MPI_LOGICAL8, {kCInt, Repr::kI64}},
    {MPI_LOGICAL16, {kLogical, Repr::kI128}},
    {MPI_BYTE, {kCInt, Repr::kU8}},
    {MPI_FLOAT_INT, {kPair, Repr::kPFloatInt}},
    {MPI_DOUBLE_INT, {kPair, Repr::kPDoubleInt}},
    {MPI_LONG_INT, {kPair, Repr::kPLongInt}},
    {MPI_2INT, {kPair, Repr::kP2Int}},
    {MPI_SHORT_INT, {kPair, Repr::kPShortInt}},
    {MPI_LONG_DOUBLE_INT, {kPair, Repr::kPLongDoubleInt}},
    {MPI_2REAL, {kPair, Repr::kP2Float}},
    {MPI_2DOUBLE_PRECISION, {kPair, Repr::kP2Double}},
    {MPI_2INTEGER, {kPair, Repr::kP2Int}},
  };
  // Predefined datatypes are 0x200..0x2ff in the ABI: one table lookup per call.
  static const std::array<TypeInfo, 256> table = [] {
    std::array<TypeInfo, 256> t{};
    for (const Row& r : rows) t[std::size_t(reinterpret_cast<std::uintptr_t>(r.dt) - 0x200)] = r.info;
    return t;
  }();
  auto v = reinterpret_cast<std::uintptr_t>(dt);
  return v >= 0x200 && v < 0x300 ? table[std::size_t(v - 0x200)] : TypeInfo{};
}

struct PredefinedOp {
  MPI_Op op;
  const char* name;
  unsigned groups;               ///< the type groups it is defined for
  bool accumulate_only = false;  ///< MPI_REPLACE, MPI_NO_OP: one-sided accumulates only
};

constexpr unsigned kAllGroups = kCInt | kFInt | kFloat | kComplex | kLogical | kPair;

const PredefinedOp kPredefined[] = {
    {MPI_SUM, "MPI_SUM", kCInt | kFInt | kFloat | kComplex},
    {MPI_PROD, "MPI_PROD", kCInt | kFInt | kFloat | kComplex},
    {MPI_MIN, "MPI_MIN", kCInt | kFInt | kFloat},
    {MPI_MAX, "MPI_MAX", kCInt | kFInt | kFloat},
    {MPI_LAND, "MPI_LAND", kCInt | kLogical},
    {MPI_LOR, "MPI_LOR", kCInt | kLogical},
    {MPI_LXOR, "MPI_LXOR", kCInt | kLogical},
    {MPI_BAND, "MPI_BAND", kCInt | kFInt},
    {MPI_BOR, "MPI_BOR", kCInt | kFInt},
    {MPI_BXOR, "MPI_BXOR", kCInt | kFInt},
    {MPI_MINLOC, "MPI_MINLOC", kPair},
    {MPI_MAXLOC, "MPI_MAXLOC", kPair},
    {MPI_REPLACE, "MPI_REPLACE", kAllGroups, true},
    {MPI_NO_OP, "MPI_NO_OP", kAllGroups, true},
};

const PredefinedOp* find_predefined(MPI_Op op) {
  for (const PredefinedOp& p : kPredefined) {
    if (p.op == op) return &p;
  }
  return nullptr;
}

// --- kernels -------------------------------------------------------------------------------------

__extension__ using Int128 = __int128;  // MPI_INTEGER16, MPI_LOGICAL16
__extension__ using UInt128 = unsigned __int128;

#if TAKYON_MPI_HAVE_FLOAT128
/// MPI_COMPLEX32's item: std::complex is specified for the standard floating types only.
struct Complex128 {
  Float128 re;
  Float128 im;
};
inline Complex128 operator+(Complex128 a, Complex128 b) {
  return {a.re + b.re, a.im + b.im};
}
inline Complex128 operator*(Complex128 a, Complex128 b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
#endif

/// Integer sums and products wrap around (two's complement) instead of overflowing: computed in an
/// unsigned type at least as wide as unsigned int (so that nothing is promoted to a signed int).
template <class T>
struct Wrap {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <>
struct Wrap<Int128> {
  using type = UInt128;
};
template <class T>
T plus(T a, T b) {
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, Int128>) {
    using U = typename Wrap<T>::type;
    return T(U(a) + U(b));
  } else {
    return a + b;
  }
}
template <class T>
T times(T a, T b) {
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, Int128>) {
    using U = typename Wrap<T>::type;
    return T(U(a) * U(b));
  } else {
    return a * b;
  }
}

template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};
#if TAKYON_MPI_HAVE_FLOAT128
template <>
struct IsComplex<Complex128> : std::true_type {};
#endif

/// out[i] = f(x[i], y[i]) for i < n (apply_op: out == y). Written so that -O2 vectorizes it (GCC's
/// very-cheap cost model at -O2 only vectorizes loops without alias checks whose trip count is a
/// multiple of the vector length): non-overlapping buffers (every collective's) go through restrict
/// pointers in blocks of a fixed 64 items; overlapping ones (MPI_Reduce_local given one buffer twice)
/// one by one. On x86-64 the loops are also compiled for AVX2 and that copy runs where the CPU has it
/// (the baseline build targets SSE2: half the vector width, and a reduction of data in cache is bound
/// by it).
template <class T, class F>
[[gnu::always_inline]] inline void each_disjoint_body(const T* __restrict in, T* __restrict io, std::size_t n,
                                                      F f) {
  constexpr std::size_t kBlock = 64;
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t j = 0; j < kBlock; ++j) io[i + j] = f(in[i + j], io[i + j]);
  }
  for (; i < n; ++i) io[i] = f(in[i], io[i]);
}
template <class T, class F>
[[gnu::always_inline]] inline void each_disjoint3_body(const T* __restrict x, const T* __restrict y,
                                                       T* __restrict out, std::size_t n, F f) {
  constexpr std::size_t kBlock = 64;
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t j = 0; j < kBlock; ++j) out[i + j] = f(x[i + j], y[i + j]);
  }
  for (; i < n; ++i) out[i] = f(x[i], y[i]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") != 0;
  return yes;
}
template <class T, class F>
[[gnu::target("avx2")]] void each_disjoint_avx2(const T* __restrict in, T* __restrict io, std::size_t n,
                                                F f) {
  each_disjoint_body(in, io, n, f);
}
template <class T, class F>
[[gnu::target("avx2")]] void each_disjoint3_avx2(const T* __restrict x, const T* __restrict y,
                                                 T* __restrict out, std::size_t n, F f) {
  each_disjoint3_body(x, y, out, n, f);
}
#endif

template <class T, class F>
void each_disjoint(const T* __restrict in, T* __restrict io, std::size_t n, F f) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (have_avx2()) {
    each_disjoint_avx2(in, io, n, f);
    return;
  }
#endif
  each_disjoint_body(in, io, n, f);
}
template <class T, class F>
void each_disjoint3(const T* __restrict x, const T* __restrict y, T* __restrict out, std::size_t n, F f) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (have_avx2()) {
    each_disjoint3_avx2(x, y, out, n, f);
    return;
  }
#endif
  each_disjoint3_body(x, y, out, n, f);
}
template <class T>
bool disjoint(const T* a, const T* b, std::size_t n) {
  auto p = reinterpret_cast<std::uintptr_t>(a);
  auto q = reinterpret_cast<std::uintptr_t>(b);
  return p + n * sizeof(T) <= q || q + n * sizeof(T) <= p;
}
template <class T, class F>
void each(const T* x, const T* y, T* out, std::size_t n, F f) {
  if (out == y && disjoint(x, y, n)) {
    each_disjoint(x, out, n, f);
    return;
  }
  if (disjoint(x, y, n) && disjoint(x, static_cast<const T*>(out), n) &&
      disjoint(y, static_cast<const T*>(out), n)) {
    each_disjoint3(x, y, out, n, f);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

template <class T>
void kernel(MPI_Op op, const T* x, const T* y, T* out, std::size_t n) {
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_complex = IsComplex<T>::value;
  constexpr bool is_integer = std::is_integral_v<T> && !is_bool;
  constexpr bool is_int128 = std::is_same_v<T, Int128>;
  if constexpr (!is_bool) {
    if (op == MPI_SUM) {
      each(x, y, out, n, [](T a, T b) { return T(plus<T>(a, b)); });
      return;
    }
    if (op == MPI_PROD) {
      each(x, y, out, n, [](T a, T b) { return T(times<T>(a, b)); });
      return;
    }
  }
  if constexpr (!is_bool && !is_complex) {
    if (op == MPI_MIN) {
      each(x, y, out, n, [](T a, T b) { return T(a < b ? a : b); });
      return;
    }
    if (op == MPI_MAX) {
      each(x, y, out, n, [](T a, T b) { return T(a > b ? a : b); });
      return;
    }
  }
  if constexpr (is_integer || is_bool || is_int128) {
    if (op == MPI_LAND) {
      each(x, y, out, n, [](T a, T b) { return T((a != 0) && (b != 0)); });
      return;
    }
    if (op == MPI_LOR) {
      each(x, y, out, n, [](T a, T b) { return T((a != 0) || (b != 0)); });
      return;
    }
    if (op == MPI_LXOR) {
      each(x, y, out, n, [](T a, T b) { return T((a != 0) != (b != 0)); });
      return;
    }
  }
  if constexpr (is_integer || is_int128) {
    if (op == MPI_BAND) {
      each(x, y, out, n, [](T a, T b) { return T(a & b); });
      return;
    }
    if (op == MPI_BOR) {
      each(x, y, out, n, [](T a, T b) { return T(a | b); });
      return;
    }
    if (op == MPI_BXOR) {
      each(x, y, out, n, [](T a, T b) { return T(a ^ b); });
      return;
    }
  }
}

/// out = x op y; straight on the buffers when all are aligned for T (the usual case), else through
/// copies (packed collective buffers may have any alignment).
template <class T>
void typed(MPI_Op op, const void* x, const void* y, void* out, std::size_t count) {
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0; };
  if (aligned(x) && aligned(y) && aligned(out)) {
    kernel<T>(op, static_cast<const T*>(x), static_cast<const T*>(y), static_cast<T*>(out), count);
    return;
  }
  constexpr std::size_t kChunk = 256;
  T a[kChunk];
  T b[kChunk];
  const char* xs = static_cast<const char*>(x);
  const char* ys = static_cast<const char*>(y);
  char* dst = static_cast<char*>(out);
  for (std::size_t done = 0; done < count; done += kChunk) {
    std::size_t n = std::min(kChunk, count - done);
    std::memcpy(static_cast<void*>(a), xs + done * sizeof(T), n * sizeof(T));
    std::memcpy(static_cast<void*>(b), ys + done * sizeof(T), n * sizeof(T));
    kernel<T>(op, a, b, b, n);
    std::memcpy(dst + done * sizeof(T), static_cast<const void*>(b), n * sizeof(T));
  }
}

/// MINLOC / MAXLOC on packed pairs (value at 0, index right after it, no padding: what the
/// collectives move; the pair types' padding is a hole of the datatype): the smaller (larger) value
/// wins; on a tie the smaller index.
template <class V, class I>
void pair_loc(MPI_Op op, const void* in, void* inout, std::size_t count) {
  constexpr std::size_t kItem = sizeof(V) + sizeof(I);
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(inout);
  bool is_min = op == MPI_MINLOC;
  for (std::size_t k = 0; k < count; ++k) {
    V av;
    V bv;
    I ai;
    I bi;
    std::memcpy(&av, src + k * kItem, sizeof(V));
    std::memcpy(&ai, src + k * kItem + sizeof(V), sizeof(I));
    std::memcpy(&bv, dst + k * kItem, sizeof(V));
    std::memcpy(&bi, dst + k * kItem + sizeof(V), sizeof(I));
    bool take = is_min ? av < bv : av > bv;
    if (take) {
      std::memcpy(dst + k * kItem, &av, sizeof(V));
      std::memcpy(dst + k * kItem + sizeof(V), &ai, sizeof(I));
    } else if (av == bv && ai < bi) {
      std::memcpy(dst + k * kItem + sizeof(V), &ai, sizeof(I));
    }
  }
}

}  // namespace

bool is_predefined_op(MPI_Op op) {
  return find_predefined(op) != nullptr;
}

void check_op_handle(MPI_Op op, const char* fn) {
  if (op == MPI_OP_NULL) fail(MPI_ERR_OP, fn, "invalid op MPI_OP_NULL (argument op)");
  if (find_user(op) == nullptr && find_predefined(op) == nullptr) {
    fail(MPI_ERR_OP, fn, "invalid op (argument op): not a predefined op or a live user op (freed?)");
  }
}

void check_op(MPI_Op op, MPI_Datatype dt, const char* fn) {
  check_op_handle(op, fn);
  if (find_user(op) != nullptr) return;
  const PredefinedOp* p = find_predefined(op);
  if (p->accumulate_only) {
    fail(MPI_ERR_OP, fn,
         std::string(p->name) + " is defined only for one-sided accumulate operations (argument op)");
  }
  TypeInfo t = type_info(dt);
  if ((t.group & p->groups) == 0) {
    static const char* const group_names[] = {"C integers", "Fortran integers", "floating point",
                                              "complex",    "logicals",         "pair types"};
    std::string takes;
    for (unsigned g = 0; g < 6; ++g) {
      if ((p->groups & (1U << g)) != 0) takes += (takes.empty() ? "" : ", ") + std::string(group_names[g]);
    }
    fail(MPI_ERR_OP, fn,
         std::string(p->name) + " is not defined for this datatype (argument datatype; it takes " + takes +
             ")");
  }
}

bool op_commutative(MPI_Op op) {
  UserOp* u = find_user_in_use(op);
  return u == nullptr || u->commute;
}

bool reduces_packed(MPI_Op op, MPI_Datatype dt) {
  // User ops take any datatype (apply_op_into lays packed items out for them); predefined ops need
  // a contiguous or predefined one.
  return type_is_contiguous(dt) || find_user_in_use(op) != nullptr || basic_type(dt).size != 0;
}

void apply_op(MPI_Op op, MPI_Datatype dt, const void* in, void* inout, std::size_t count) {
  apply_op_into(op, dt, in, inout, inout, count);
}

void apply_op_into(MPI_Op op, MPI_Datatype dt, const void* x, const void* y, void* out, std::size_t count) {
  if (count == 0) return;
  TypeInfo t = type_info(dt);
  if (out != y && (op == MPI_NO_OP || op == MPI_REPLACE || t.repr >= Repr::kPFloatInt)) {
    // The pair kernels, REPLACE and NO_OP combine two operands: out takes y first.
    std::memmove(out, y, count * type_size(dt));
    y = out;
  }
  const void* in = x;
  void* inout = out;
  if (const UserOp* u = find_user_in_use(op)) {
    if (out != y) throw std::logic_error("apply_op_into: a user op needs out == y");
    apply_user_op(*u, dt, in, inout, count);
    return;
  }
  if (op == MPI_NO_OP) return;
  if (op == MPI_REPLACE) {
    std::memcpy(inout, in, count * type_size(dt));  // packed items
    return;
  }
  switch (t.repr) {
    case Repr::kI8:
      typed<std::int8_t>(op, x, y, out, count);
      break;
    case Repr::kI16:
      typed<std::int16_t>(op, x, y, out, count);
      break;
    case Repr::kI32:
      typed<std::int32_t>(op, x, y, out, count);
      break;
    case Repr::kI64:
      typed<std::int64_t>(op, x, y, out, count);
      break;
    case Repr::kI128:
      typed<Int128>(op, x, y, out, count);
      break;
    case Repr::kU8:
      typed<std::uint8_t>(op, x, y, out, count);
      break;
    case Repr::kU16:
      typed<std::uint16_t>(op, x, y, out, count);
      break;
    case Repr::kU32:
      typed<std::uint32_t>(op, x, y, out, count);
      break;
    case Repr::kU64:
      typed<std::uint64_t>(op, x, y, out, count);
      break;
    case Repr::kF32:
      typed<float>(op, x, y, out, count);
      break;
    case Repr::kF64:
      typed<double>(op, x, y, out, count);
      break;
    case Repr::kFLD:
      typed<long double>(op, x, y, out, count);
      break;
#if TAKYON_MPI_HAVE_FLOAT128
    case Repr::kF128:
      typed<Float128>(op, x, y, out, count);
      break;
    case Repr::kC128:
      typed<Complex128>(op, x, y, out, count);
      break;
#else
    case Repr::kF128:
    case Repr::kC128:
      break;
#endif
    case Repr::kC32:
      typed<std::complex<float>>(op, x, y, out, count);
      break;
    case Repr::kC64:
      typed<std::complex<double>>(op, x, y, out, count);
      break;
    case Repr::kCLD:
      typed<std::complex<long double>>(op, x, y, out, count);
      break;
    case Repr::kBool:
      typed<bool>(op, x, y, out, count);
      break;
    case Repr::kPFloatInt:
      pair_loc<float, int>(op, in, inout, count);
      break;
    case Repr::kPDoubleInt:
      pair_loc<double, int>(op, in, inout, count);
      break;
    case Repr::kPLongInt:
      pair_loc<long, int>(op, in, inout, count);
      break;
    case Repr::kP2Int:
      pair_loc<int, int>(op, in, inout, count);
      break;
    case Repr::kPShortInt:
      pair_loc<short, int>(op, in, inout, count);
      break;
    case Repr::kPLongDoubleInt:
      pair_loc<long double, int>(op, in, inout, count);
      break;
    case Repr::kP2Float:
      pair_loc<float, float>(op, in, inout, count);
      break;
    case Repr::kP2Double:
      pair_loc<double, double>(op, in, inout, count);
      break;
    case Repr::kNone:
      break;
  }
}

}  // namespace takyon::mpi
