// SPDX-License-Identifier: MIT
// Predefined datatypes (see datatype_basic.hpp). The ABI puts them all in 0x200..0x2ff.
#include "datatype_basic.hpp"

#include <array>
#include <complex>
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

std::array<BasicType, 256> build() {
  const Entry entries[] = {
      {MPI_AINT, {sizeof(MPI_Aint), 0, 1, "MPI_AINT"}},
      {MPI_COUNT, {sizeof(MPI_Count), 0, 1, "MPI_COUNT"}},
      {MPI_OFFSET, {sizeof(MPI_Offset), 0, 1, "MPI_OFFSET"}},
      {MPI_PACKED, {1, 0, 1, "MPI_PACKED"}},
      {MPI_SHORT, {sizeof(short), 0, 1, "MPI_SHORT"}},
      {MPI_INT, {sizeof(int), 0, 1, "MPI_INT"}},
      {MPI_LONG, {sizeof(long), 0, 1, "MPI_LONG"}},
      {MPI_LONG_LONG, {sizeof(long long), 0, 1, "MPI_LONG_LONG"}},
      {MPI_UNSIGNED_SHORT, {sizeof(unsigned short), 0, 1, "MPI_UNSIGNED_SHORT"}},
      {MPI_UNSIGNED, {sizeof(unsigned), 0, 1, "MPI_UNSIGNED"}},
      {MPI_UNSIGNED_LONG, {sizeof(unsigned long), 0, 1, "MPI_UNSIGNED_LONG"}},
      {MPI_UNSIGNED_LONG_LONG, {sizeof(unsigned long long), 0, 1, "MPI_UNSIGNED_LONG_LONG"}},
      {MPI_FLOAT, {sizeof(float), 0, 1, "MPI_FLOAT"}},
      {MPI_C_FLOAT_COMPLEX, {sizeof(std::complex<float>), 0, 1, "MPI_C_FLOAT_COMPLEX"}},
      {MPI_CXX_FLOAT_COMPLEX, {sizeof(std::complex<float>), 0, 1, "MPI_CXX_FLOAT_COMPLEX"}},
      {MPI_DOUBLE, {sizeof(double), 0, 1, "MPI_DOUBLE"}},
      {MPI_C_DOUBLE_COMPLEX, {sizeof(std::complex<double>), 0, 1, "MPI_C_DOUBLE_COMPLEX"}},
      {MPI_CXX_DOUBLE_COMPLEX, {sizeof(std::complex<double>), 0, 1, "MPI_CXX_DOUBLE_COMPLEX"}},
      {MPI_LOGICAL, {4, 0, 1, "MPI_LOGICAL"}},
      {MPI_INTEGER, {4, 0, 1, "MPI_INTEGER"}},
      {MPI_REAL, {4, 0, 1, "MPI_REAL"}},
      {MPI_COMPLEX, {8, 0, 1, "MPI_COMPLEX"}},
      {MPI_DOUBLE_PRECISION, {8, 0, 1, "MPI_DOUBLE_PRECISION"}},
      {MPI_DOUBLE_COMPLEX, {16, 0, 1, "MPI_DOUBLE_COMPLEX"}},
      {MPI_CHARACTER, {1, 0, 1, "MPI_CHARACTER"}},
      {MPI_LONG_DOUBLE, {sizeof(long double), 0, 1, "MPI_LONG_DOUBLE"}},
      {MPI_C_LONG_DOUBLE_COMPLEX, {sizeof(std::complex<long double>), 0, 1, "MPI_C_LONG_DOUBLE_COMPLEX"}},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, {sizeof(std::complex<long double>), 0, 1, "MPI_CXX_LONG_DOUBLE_COMPLEX"}},
      {MPI_FLOAT_INT, {sizeof(Pair<float, int>), sizeof(float), 2, "MPI_FLOAT_INT"}},
      {MPI_DOUBLE_INT, {sizeof(Pair<double, int>), sizeof(double), 2, "MPI_DOUBLE_INT"}},
      {MPI_LONG_INT, {sizeof(Pair<long, int>), sizeof(long), 2, "MPI_LONG_INT"}},
      {MPI_2INT, {sizeof(Pair<int, int>), sizeof(int), 2, "MPI_2INT"}},
      {MPI_SHORT_INT, {sizeof(Pair<short, int>), sizeof(short), 2, "MPI_SHORT_INT"}},
      {MPI_LONG_DOUBLE_INT, {sizeof(Pair<long double, int>), sizeof(long double), 2, "MPI_LONG_DOUBLE_INT"}},
      {MPI_2REAL, {8, 4, 2, "MPI_2REAL"}},
      {MPI_2DOUBLE_PRECISION, {16, 8, 2, "MPI_2DOUBLE_PRECISION"}},
      {MPI_2INTEGER, {8, 4, 2, "MPI_2INTEGER"}},
      {MPI_C_BOOL, {sizeof(bool), 0, 1, "MPI_C_BOOL"}},
      {MPI_CXX_BOOL, {sizeof(bool), 0, 1, "MPI_CXX_BOOL"}},
      {MPI_WCHAR, {sizeof(wchar_t), 0, 1, "MPI_WCHAR"}},
      {MPI_INT8_T, {1, 0, 1, "MPI_INT8_T"}},
      {MPI_UINT8_T, {1, 0, 1, "MPI_UINT8_T"}},
      {MPI_CHAR, {1, 0, 1, "MPI_CHAR"}},
      {MPI_SIGNED_CHAR, {1, 0, 1, "MPI_SIGNED_CHAR"}},
      {MPI_UNSIGNED_CHAR, {1, 0, 1, "MPI_UNSIGNED_CHAR"}},
      {MPI_BYTE, {1, 0, 1, "MPI_BYTE"}},
      {MPI_INT16_T, {2, 0, 1, "MPI_INT16_T"}},
      {MPI_UINT16_T, {2, 0, 1, "MPI_UINT16_T"}},
      {MPI_INT32_T, {4, 0, 1, "MPI_INT32_T"}},
      {MPI_UINT32_T, {4, 0, 1, "MPI_UINT32_T"}},
      {MPI_INT64_T, {8, 0, 1, "MPI_INT64_T"}},
      {MPI_UINT64_T, {8, 0, 1, "MPI_UINT64_T"}},
      {MPI_LOGICAL1, {1, 0, 1, "MPI_LOGICAL1"}},
      {MPI_INTEGER1, {1, 0, 1, "MPI_INTEGER1"}},
      {MPI_LOGICAL2, {2, 0, 1, "MPI_LOGICAL2"}},
      {MPI_INTEGER2, {2, 0, 1, "MPI_INTEGER2"}},
      {MPI_REAL2, {2, 0, 1, "MPI_REAL2"}},
      {MPI_LOGICAL4, {4, 0, 1, "MPI_LOGICAL4"}},
      {MPI_INTEGER4, {4, 0, 1, "MPI_INTEGER4"}},
      {MPI_REAL4, {4, 0, 1, "MPI_REAL4"}},
      {MPI_COMPLEX4, {4, 0, 1, "MPI_COMPLEX4"}},
      {MPI_LOGICAL8, {8, 0, 1, "MPI_LOGICAL8"}},
      {MPI_INTEGER8, {8, 0, 1, "MPI_INTEGER8"}},
      {MPI_REAL8, {8, 0, 1, "MPI_REAL8"}},
      {MPI_COMPLEX8, {8, 0, 1, "MPI_COMPLEX8"}},
      {MPI_LOGICAL16, {16, 0, 1, "MPI_LOGICAL16"}},
      {MPI_INTEGER16, {16, 0, 1, "MPI_INTEGER16"}},
      {MPI_REAL16, {16, 0, 1, "MPI_REAL16"}},
      {MPI_COMPLEX16, {16, 0, 1, "MPI_COMPLEX16"}},
      {MPI_COMPLEX32, {32, 0, 1, "MPI_COMPLEX32"}},
  };
  std::array<BasicType, 256> table{};
  for (const Entry& e : entries) {
    table[std::size_t(reinterpret_cast<std::intptr_t>(e.dt) - kBase)] = e.info;
  }
  return table;
}

const std::array<BasicType, 256> kTable = build();
const BasicType kInvalid{};

}  // namespace

const BasicType& basic_type(MPI_Datatype dt) {
  auto v = reinterpret_cast<std::intptr_t>(dt);
  if (v <= kBase || v >= kBase + 256) return kInvalid;
  return kTable[std::size_t(v - kBase)];
}

}  // namespace takyon::mpi
