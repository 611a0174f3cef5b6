// SPDX-License-Identifier: MIT
// Packing items of a Type (type.hpp) to contiguous bytes and back, and counting the basic elements
// a number of packed bytes holds. No MPI errors here: callers check their arguments first.
#pragma once

#include <cstddef>

#include "datatype/type.hpp"

namespace takyon::mpi {

/// Copies the data of `count` items at `buf` (item i at buf + i * extent) into `out`.
void pack_items(const void* buf, std::size_t count, const Type& t, void* out);
/// Copies min(bytes, count * size) packed bytes from `in` into `count` items at `buf`, typemap order;
/// a partial trailing item is written as far as the bytes go. Holes are never written.
void unpack_items(const void* in, std::size_t bytes, std::size_t count, const Type& t, void* buf);
/// Basic elements in `bytes` packed bytes of `t`; -1 if the bytes end inside an element.
long long elements_in(const Type& t, std::size_t bytes);
/// Packed bytes of the first `elements` basic elements of a sequence of items of `t` (SIZE_MAX if they
/// overflow).
std::size_t bytes_of_elements(const Type& t, std::size_t elements);

}  // namespace takyon::mpi
