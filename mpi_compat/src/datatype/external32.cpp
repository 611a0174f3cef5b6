// SPDX-License-Identifier: MIT
// "external32" conversions (see external32.hpp).
#include "datatype/external32.hpp"

#include <bit>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <string>

namespace takyon::mpi {
namespace {

static_assert(std::endian::native == std::endian::little, "external32: only little-endian hosts");
// long double is x87 extended (converted) or already IEEE binary128 (byte-swapped).
static_assert(LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113, "external32: long double of an unknown format");
constexpr bool kX87LongDouble = LDBL_MANT_DIG == 64;

/// How one basic element converts.
enum class Conv : unsigned char {
  kSwap,        ///< same size, byte order reversed (parts: each part separately)
  kLong,        ///< 8-byte signed native, 4 bytes external
  kULong,       ///< 8-byte unsigned native, 4 bytes external
  kWchar,       ///< 4-byte native, 2 bytes external
  kLongDouble,  ///< x87 80-bit extended in 16 bytes native, IEEE binary128 external
};

struct Rule {
  Conv conv = Conv::kSwap;
  std::size_t ext_size = 0;  ///< external bytes of one element
  int parts = 1;             ///< complex types: 2
};

bool is(MPI_Datatype a, MPI_Datatype b) {
  return a == b;
}

Rule rule_of(MPI_Datatype dt, std::size_t native) {
  if (is(dt, MPI_LONG)) return {sizeof(long) == 8 ? Conv::kLong : Conv::kSwap, 4};
  if (is(dt, MPI_UNSIGNED_LONG)) return {sizeof(long) == 8 ? Conv::kULong : Conv::kSwap, 4};
  if (is(dt, MPI_WCHAR)) return {sizeof(wchar_t) == 4 ? Conv::kWchar : Conv::kSwap, 2};
  const Conv ld = kX87LongDouble ? Conv::kLongDouble : Conv::kSwap;
  if (is(dt, MPI_LONG_DOUBLE)) return {ld, 16};
  if (is(dt, MPI_C_LONG_DOUBLE_COMPLEX) || is(dt, MPI_CXX_LONG_DOUBLE_COMPLEX)) return {ld, 32, 2};
  const MPI_Datatype complex[] = {MPI_C_FLOAT_COMPLEX,    MPI_C_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX,
                                  MPI_CXX_DOUBLE_COMPLEX, MPI_COMPLEX,          MPI_DOUBLE_COMPLEX,
                                  MPI_COMPLEX4,           MPI_COMPLEX8,         MPI_COMPLEX16,
                                  MPI_COMPLEX32};
  for (MPI_Datatype c : complex) {
    if (is(dt, c)) return {Conv::kSwap, native, 2};
  }
  return {Conv::kSwap, native};  // every other predefined type has its native size in external32
}

void reverse_into(char* dst, const char* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[n - 1 - i];
}

/// x87 extended (little-endian, 10 significant bytes) to binary128 (little-endian words).
void x87_to_quad(const char* src, unsigned char quad[16]) {
  std::uint64_t mant = 0;
  std::uint16_t se = 0;
  std::memcpy(&mant, src, 8);
  std::memcpy(&se, src + 8, 2);
  // Same sign and exponent bias; the integer bit is explicit in x87 and implied in binary128.
  const std::uint64_t frac = mant & ~(std::uint64_t(1) << 63);
  const std::uint64_t lo = frac << 49;
  const std::uint64_t hi = (std::uint64_t(se) << 48) | (frac >> 15);
  std::memcpy(quad, &lo, 8);
  std::memcpy(quad + 8, &hi, 8);
}

/// binary128 to x87 extended, rounding the 112-bit fraction to 63 bits (to nearest, ties to even).
void quad_to_x87(const unsigned char quad[16], char* dst) {
  std::uint64_t lo = 0, hi = 0;
  std::memcpy(&lo, quad, 8);
  std::memcpy(&hi, quad + 8, 8);
  std::uint16_t se = std::uint16_t(hi >> 48);
  const std::uint16_t exp = se & 0x7fff;
  std::uint64_t frac = ((hi & 0xffffffffffffULL) << 15) | (lo >> 49);  // top 63 fraction bits
  const std::uint64_t rest = lo & ((std::uint64_t(1) << 49) - 1);
  const std::uint64_t half = std::uint64_t(1) << 48;
  if (exp != 0x7fff && (rest > half || (rest == half && (frac & 1) != 0))) {
    if (++frac == (std::uint64_t(1) << 63)) {  // the fraction overflowed into the next binade
      frac = 0;
      se = std::uint16_t(se + 1);
    }
  }
  const bool normal = (se & 0x7fff) != 0;
  const std::uint64_t mant = frac | (normal ? std::uint64_t(1) << 63 : 0);
  std::memcpy(dst, &mant, 8);
  std::memcpy(dst + 8, &se, 2);
  std::memset(dst + 10, 0, 6);
}

/// Converts one element; `out` receives rule.ext_size bytes (to) or `native` bytes (from).
void convert(const Rule& r, std::size_t native, const char* src, char* dst, bool to_ext) {
  const std::size_t npart = native / std::size_t(r.parts);
  const std::size_t epart = r.ext_size / std::size_t(r.parts);
  for (int p = 0; p < r.parts; ++p, src += to_ext ? npart : epart, dst += to_ext ? epart : npart) {
    switch (r.conv) {
      case Conv::kSwap:
        reverse_into(dst, src, npart);
        break;
      case Conv::kLong:
      case Conv::kULong:
      case Conv::kWchar: {
        const bool is_signed = r.conv == Conv::kLong;
        if (to_ext) {
          std::uint64_t v = 0;
          std::memcpy(&v, src, npart);
          const bool fits = is_signed ? std::int64_t(v) >= INT32_MIN && std::int64_t(v) <= INT32_MAX
                                      : v < (std::uint64_t(1) << (8 * epart));
          if (!fits) {
            throw ConversionError(
                "the value " + (is_signed ? std::to_string(std::int64_t(v)) : std::to_string(v)) +
                " does not fit the " + std::to_string(epart) + " bytes of its external32 type");
          }
          reverse_into(dst, src, epart);  // the low bytes, big-endian
        } else {
          std::uint64_t v = 0;
          for (std::size_t i = 0; i < epart; ++i) v = (v << 8) | std::uint8_t(src[i]);
          if (is_signed && (v >> (8 * epart - 1)) != 0) v |= ~std::uint64_t(0) << (8 * epart);
          std::memcpy(dst, &v, npart);
        }
        break;
      }
      case Conv::kLongDouble: {
        unsigned char quad[16];
        if (to_ext) {
          x87_to_quad(src, quad);
          reverse_into(dst, reinterpret_cast<const char*>(quad), 16);
        } else {
          reverse_into(reinterpret_cast<char*>(quad), src, 16);
          quad_to_x87(quad, dst);
        }
        break;
      }
    }
  }
}

template <class Fn>
void each_element(const Type& t, std::size_t count, const Fn& fn) {
  for (std::size_t i = 0; i < count; ++i) {
    for (const ElemRun& run : t.elems) {
      const Rule r = rule_of(run.basic, run.size);
      for (std::size_t k = 0; k < run.count; ++k) fn(r, run.size);
    }
  }
}

}  // namespace

std::size_t external32_item_size(const Type& t) {
  std::size_t bytes = 0;
  for (const ElemRun& run : t.elems) bytes += run.count * rule_of(run.basic, run.size).ext_size;
  return bytes;
}

void to_external32(const Type& t, std::size_t count, const char* native, char* out) {
  each_element(t, count, [&](const Rule& r, std::size_t size) {
    convert(r, size, native, out, true);
    native += size;
    out += r.ext_size;
  });
}

void from_external32(const Type& t, std::size_t count, const char* in, char* native) {
  each_element(t, count, [&](const Rule& r, std::size_t size) {
    convert(r, size, in, native, false);
    in += r.ext_size;
    native += size;
  });
}

}  // namespace takyon::mpi
