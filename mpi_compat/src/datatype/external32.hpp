// SPDX-License-Identifier: MIT
// The "external32" data representation (MPI_Pack_external): every basic element big-endian at the
// standard's size for its predefined type (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2,
// MPI_LONG_DOUBLE 16 as IEEE binary128, complex types as their two parts), elements in typemap order
// with no padding. Converts the native packed bytes of pack.hpp to it and back.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "datatype/type.hpp"

namespace takyon::mpi {

/// Thrown when a value cannot be represented on the other side (a long beyond 32 bits, a wide
/// character beyond 16): the message names the element.
class ConversionError : public std::range_error {
 public:
  using std::range_error::range_error;
};

/// Bytes of one item of `t` in external32.
std::size_t external32_item_size(const Type& t);
/// Converts `count` items of native packed bytes (pack_items' output) at `native` to external32 at
/// `out` (count x external32_item_size(t) bytes). Throws ConversionError.
void to_external32(const Type& t, std::size_t count, const char* native, char* out);
/// The reverse: `count` items of external32 at `in` to native packed bytes at `native`.
void from_external32(const Type& t, std::size_t count, const char* in, char* native);

}  // namespace takyon::mpi
