// SPDX-License-Identifier: MIT
// Predefined datatypes (see predefined.hpp). The ABI puts them all in 0x200..0x2ff.
#include "datatype/predefined.hpp"

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cwchar>

namespace takyon::mpi {
namespace {

constexpr std::intptr_t kBase = 0x200;

struct Entry {
  MPI_Datatype dt;
  BasicType info;
};

template <class A, class B>
struct Pair {
  A a;
  B b;
};

/// One basic element of `size` bytes, aligned like a C scalar of that size unless told.
constexpr BasicType simple(std::size_t size, const char* name, std::size_t align = 0) {
  BasicType t;
  t.size = size;
  t.extent = size;
  t.align = align != 0 ? align : size < 16 ? size : 16;
  t.name = name;
  return t;
}

/// The MINLOC/MAXLOC pair types: size is the sum of the members, extent the C struct's (padding).
template <class A, class B>
constexpr BasicType pair(const char* name, MPI_Datatype first_type, MPI_Datatype second_type) {
  using P = Pair<A, B>;
  BasicType t;
  t.size = sizeof(A) + sizeof(B);
  t.extent = sizeof(Pair<A, B>);
  t.first = sizeof(A);
  t.second_offset = offsetof(P, b);
  t.first_type = first_type;
  t.second_type = second_type;
  t.elements = 2;
  t.align = alignof(Pair<A, B>);
  t.name = name;
  return t;
}

std::array<BasicType, 256> build() {
  const Entry entries[] = {
      {MPI_AINT, simple(sizeof(MPI_Aint), "MPI_AINT")},
      {MPI_COUNT, simple(sizeof(MPI_Count), "MPI_COUNT")},
      {MPI_OFFSET, simple(sizeof(MPI_Offset), "MPI_OFFSET")},
      {MPI_PACKED, simple(1, "MPI_PACKED")},
      {MPI_SHORT, simple(sizeof(short), "MPI_SHORT")},
      {MPI_INT, simple(sizeof(int), "MPI_INT")},
      {MPI_LONG, simple(sizeof(long), "MPI_LONG")},
      // MPI_LONG_LONG_INT and MPI_C_COMPLEX are the same handles as MPI_LONG_LONG and
      // MPI_C_FLOAT_COMPLEX in the ABI; a named type's name is the older, named one of the two (what
      // Open MPI prints, and what MPICH's tests accept for either).
      {MPI_LONG_LONG, simple(sizeof(long long), "MPI_LONG_LONG_INT")},
      {MPI_UNSIGNED_SHORT, simple(sizeof(unsigned short), "MPI_UNSIGNED_SHORT")},
      {MPI_UNSIGNED, simple(sizeof(unsigned), "MPI_UNSIGNED")},
      {MPI_UNSIGNED_LONG, simple(sizeof(unsigned long), "MPI_UNSIGNED_LONG")},
      {MPI_UNSIGNED_LONG_LONG, simple(sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG")},
      {MPI_FLOAT, simple(sizeof(float), "MPI_FLOAT")},
      {MPI_C_FLOAT_COMPLEX, simple(sizeof(std::complex<float>), "MPI_C_COMPLEX", alignof(float))},
      {MPI_CXX_FLOAT_COMPLEX, simple(sizeof(std::complex<float>), "MPI_CXX_FLOAT_COMPLEX", alignof(float))},
      {MPI_DOUBLE, simple(sizeof(double), "MPI_DOUBLE")},
      {MPI_C_DOUBLE_COMPLEX, simple(sizeof(std::complex<double>), "MPI_C_DOUBLE_COMPLEX", alignof(double))},
      {MPI_CXX_DOUBLE_COMPLEX,
       simple(sizeof(std::complex<double>), "MPI_CXX_DOUBLE_COMPLEX", alignof(double))},
      {MPI_LOGICAL, simple(4, "MPI_LOGICAL")},
      {MPI_INTEGER, simple(4, "MPI_INTEGER")},
      {MPI_REAL, simple(4, "MPI_REAL")},
      {MPI_COMPLEX, simple(8, "MPI_COMPLEX", 4)},
      {MPI_DOUBLE_PRECISION, simple(8, "MPI_DOUBLE_PRECISION")},
      {MPI_DOUBLE_COMPLEX, simple(16, "MPI_DOUBLE_COMPLEX", 8)},
      {MPI_CHARACTER, simple(1, "MPI_CHARACTER")},
      {MPI_LONG_DOUBLE, simple(sizeof(long double), "MPI_LONG_DOUBLE")},
      {MPI_C_LONG_DOUBLE_COMPLEX,
       simple(sizeof(std::complex<long double>), "MPI_C_LONG_DOUBLE_COMPLEX", alignof(long double))},
      {MPI_CXX_LONG_DOUBLE_COMPLEX,
       simple(sizeof(std::complex<long double>), "MPI_CXX_LONG_DOUBLE_COMPLEX", alignof(long double))},
      {MPI_FLOAT_INT, pair<float, int>("MPI_FLOAT_INT", MPI_FLOAT, MPI_INT)},
      {MPI_DOUBLE_INT, pair<double, int>("MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT)},
      {MPI_LONG_INT, pair<long, int>("MPI_LONG_INT", MPI_LONG, MPI_INT)},
      {MPI_2INT, pair<int, int>("MPI_2INT", MPI_INT, MPI_INT)},
      {MPI_SHORT_INT, pair<short, int>("MPI_SHORT_INT", MPI_SHORT, MPI_INT)},
      {MPI_LONG_DOUBLE_INT, pair<long double, int>("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT)},
      {MPI_2REAL, pair<float, float>("MPI_2REAL", MPI_REAL, MPI_REAL)},
      {MPI_2DOUBLE_PRECISION,
       pair<double, double>("MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION)},
      {MPI_2INTEGER, pair<int, int>("MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER)},
      {MPI_C_BOOL, simple(sizeof(bool), "MPI_C_BOOL")},
      {MPI_CXX_BOOL, simple(sizeof(bool), "MPI_CXX_BOOL")},
      {MPI_WCHAR, simple(sizeof(wchar_t), "MPI_WCHAR")},
      {MPI_INT8_T, simple(1, "MPI_INT8_T")},
      {MPI_UINT8_T, simple(1, "MPI_UINT8_T")},
      {MPI_CHAR, simple(1, "MPI_CHAR")},
      {MPI_SIGNED_CHAR, simple(1, "MPI_SIGNED_CHAR")},
      {MPI_UNSIGNED_CHAR, simple(1, "MPI_UNSIGNED_CHAR")},
      {MPI_BYTE, simple(1, "MPI_BYTE")},
      {MPI_INT16_T, simple(2, "MPI_INT16_T")},
      {MPI_UINT16_T, simple(2, "MPI_UINT16_T")},
      {MPI_INT32_T, simple(4, "MPI_INT32_T")},
      {MPI_UINT32_T, simple(4, "MPI_UINT32_T")},
      {MPI_INT64_T, simple(8, "MPI_INT64_T")},
      {MPI_UINT64_T, simple(8, "MPI_UINT64_T")},
      {MPI_LOGICAL1, simple(1, "MPI_LOGICAL1")},
      {MPI_INTEGER1, simple(1, "MPI_INTEGER1")},
      {MPI_LOGICAL2, simple(2, "MPI_LOGICAL2")},
      {MPI_INTEGER2, simple(2, "MPI_INTEGER2")},
      {MPI_REAL2, simple(2, "MPI_REAL2")},
      {MPI_LOGICAL4, simple(4, "MPI_LOGICAL4")},
      {MPI_INTEGER4, simple(4, "MPI_INTEGER4")},
      {MPI_REAL4, simple(4, "MPI_REAL4")},
      {MPI_COMPLEX4, simple(4, "MPI_COMPLEX4", 2)},
      {MPI_LOGICAL8, simple(8, "MPI_LOGICAL8")},
      {MPI_INTEGER8, simple(8, "MPI_INTEGER8")},
      {MPI_REAL8, simple(8, "MPI_REAL8")},
      {MPI_COMPLEX8, simple(8, "MPI_COMPLEX8", 4)},
      {MPI_LOGICAL16, simple(16, "MPI_LOGICAL16")},
      {MPI_INTEGER16, simple(16, "MPI_INTEGER16")},
      {MPI_REAL16, simple(16, "MPI_REAL16")},
      {MPI_COMPLEX16, simple(16, "MPI_COMPLEX16", 8)},
      {MPI_COMPLEX32, simple(32, "MPI_COMPLEX32", 16)},
  };
  std::array<BasicType, 256> table{};
  for (const Entry& e : entries) {
    table[std::size_t(reinterpret_cast<std::intptr_t>(e.dt) - kBase)] = e.info;
  }
  return table;
}

/// Built on first use: datatype/type.cpp builds its own static table from this one at load time,
/// before this file's namespace-scope statics might be.
const std::array<BasicType, 256>& table() {
  static const std::array<BasicType, 256> t = build();
  return t;
}
const BasicType kInvalid{};

}  // namespace

const BasicType& basic_type(MPI_Datatype dt) {
  auto v = reinterpret_cast<std::intptr_t>(dt);
  if (v <= kBase || v >= kBase + 256) return kInvalid;
  return table()[std::size_t(v - kBase)];
}

}  // namespace takyon::mpi
