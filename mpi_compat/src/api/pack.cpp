// SPDX-License-Identifier: MIT
// MPI_Pack, MPI_Unpack, MPI_Pack_size: the packed form is the type's data bytes in typemap order
// (the same bytes point-to-point moves), so packed data of one rank unpacks on another.
// MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the same elements in the portable
// "external32" representation (datatype/external32.hpp), through a native packed copy.
#include <climits>
#include <cstring>
#include <memory>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "datatype/datatype.hpp"
#include "datatype/external32.hpp"
#include "datatype/type.hpp"

namespace takyon::mpi {
namespace {

std::size_t checked_bytes(const char* fn, int count, const char* count_arg, MPI_Datatype dt, MPI_Comm comm) {
  check_comm(comm, fn);
  if (count < 0)
    fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument " + count_arg + ")");
  check_type(dt, fn);
  return items_bytes(dt, std::size_t(count), fn, count_arg);
}

void check_position(const char* fn, const int* position, int size, const char* size_arg) {
  if (position == nullptr) fail(MPI_ERR_ARG, fn, "position is NULL (argument position)");
  if (size < 0) fail(MPI_ERR_ARG, fn, "negative " + std::string(size_arg) + " " + std::to_string(size));
  if (*position < 0 || *position > size) {
    fail(MPI_ERR_ARG, fn,
         "position " + std::to_string(*position) + " is outside the packed buffer of " +
             std::to_string(size) + " bytes (argument position)");
  }
}

void check_datarep(const char* fn, const char* datarep) {
  if (datarep == nullptr) fail(MPI_ERR_ARG, fn, "datarep is NULL (argument datarep)");
  if (std::strcmp(datarep, "external32") != 0) {
    fail(MPI_ERR_UNSUPPORTED_DATAREP, fn,
         "data representation '" + std::string(datarep) + "' is not supported (only \"external32\")");
  }
}

/// external32 bytes of `count` items of `dt` (checked), MPI_ERR_COUNT if they overflow.
std::size_t external_bytes(const char* fn, int count, const char* count_arg, MPI_Datatype dt) {
  if (count < 0)
    fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument " + count_arg + ")");
  check_type(dt, fn);
  (void)items_bytes(dt, std::size_t(count), fn, count_arg);
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(external32_item_size(*find_type(dt)), std::size_t(count), &bytes) ||
      bytes > std::size_t(INTPTR_MAX)) {
    fail(MPI_ERR_COUNT, fn,
         std::to_string(count) + " items overflow MPI_Aint in external32 (argument " + count_arg + ")");
  }
  return bytes;
}

void check_aint_position(const char* fn, const MPI_Aint* position, MPI_Aint size, const char* size_arg) {
  if (position == nullptr) fail(MPI_ERR_ARG, fn, "position is NULL (argument position)");
  if (size < 0) fail(MPI_ERR_ARG, fn, "negative " + std::string(size_arg) + " " + std::to_string(size));
  if (*position < 0 || *position > size) {
    fail(MPI_ERR_ARG, fn,
         "position " + std::to_string(*position) + " is outside the buffer of " + std::to_string(size) +
             " bytes (argument position)");
  }
}

/// A value that external32 (or the native type) cannot hold is MPI_ERR_CONVERSION naming `fn`.
template <class Body>
void converting(const char* fn, const Body& body) {
  try {
    body();
  } catch (const ConversionError& e) {
    fail(MPI_ERR_CONVERSION, fn, e.what());
  }
}

/// A pack's checks once its byte count is known: `bytes` fit in outbuf from `position` on
/// (MPI_ERR_TRUNCATE), and both buffers are there unless nothing moves. False: nothing to pack.
template <class Size>
bool pack_room(const char* fn, std::size_t bytes, int incount, Size outsize, Size position, const void* inbuf,
               const void* outbuf) {
  if (bytes > std::size_t(outsize - position)) {
    fail(MPI_ERR_TRUNCATE, fn,
         std::to_string(bytes) + " bytes do not fit at position " + std::to_string(position) +
             " of outbuf (" + std::to_string(outsize) + " bytes)");
  }
  if (bytes == 0) return false;
  if (inbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "inbuf is NULL with incount " + std::to_string(incount));
  if (outbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "outbuf is NULL");
  return true;
}

/// An unpack's checks once its byte count is known: `bytes` fit in inbuf from `position` on
/// (MPI_ERR_TRUNCATE), and both buffers are there unless nothing moves. False: nothing to unpack.
template <class Size>
bool unpack_room(const char* fn, std::size_t bytes, int outcount, Size insize, Size position,
                 const void* inbuf, const void* outbuf) {
  if (bytes > std::size_t(insize - position)) {
    fail(MPI_ERR_TRUNCATE, fn,
         std::to_string(outcount) + " items need " + std::to_string(bytes) + " bytes; inbuf holds " +
             std::to_string(insize - position) + " from position " + std::to_string(position));
  }
  if (bytes == 0) return false;
  if (inbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "inbuf is NULL");
  if (outbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "outbuf is NULL with outcount " + std::to_string(outcount));
  return true;
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  const char* fn = "MPI_Pack";
  return guarded(fn, comm, [&] {
    std::size_t bytes = checked_bytes(fn, incount, "incount", datatype, comm);
    check_position(fn, position, outsize, "outsize");
    if (!pack_room(fn, bytes, incount, outsize, *position, inbuf, outbuf)) return MPI_SUCCESS;
    pack(inbuf, std::size_t(incount), datatype, static_cast<char*>(outbuf) + *position);
    *position += int(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Pack)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  const char* fn = "MPI_Unpack";
  return guarded(fn, comm, [&] {
    std::size_t bytes = checked_bytes(fn, outcount, "outcount", datatype, comm);
    check_position(fn, position, insize, "insize");
    if (!unpack_room(fn, bytes, outcount, insize, *position, inbuf, outbuf)) return MPI_SUCCESS;
    unpack(static_cast<const char*>(inbuf) + *position, bytes, std::size_t(outcount), datatype, outbuf);
    *position += int(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Unpack)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  const char* fn = "MPI_Pack_size";
  return guarded(fn, comm, [&] {
    std::size_t bytes = checked_bytes(fn, incount, "incount", datatype, comm);
    if (size == nullptr) fail(MPI_ERR_ARG, fn, "size is NULL (argument size)");
    if (bytes > std::size_t(INT_MAX)) {
      fail(MPI_ERR_VALUE_TOO_LARGE, fn,
           std::to_string(bytes) + " bytes overflow the int argument size (at most " +
               std::to_string(INT_MAX) + ")");
    }
    *size = int(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Pack_size)

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  const char* fn = "MPI_Pack_external";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_datarep(fn, datarep);
    std::size_t bytes = external_bytes(fn, incount, "incount", datatype);
    check_aint_position(fn, position, outsize, "outsize");
    if (!pack_room(fn, bytes, incount, outsize, *position, inbuf, outbuf)) return MPI_SUCCESS;
    auto native = std::make_unique_for_overwrite<char[]>(type_size(datatype) * std::size_t(incount));
    pack(inbuf, std::size_t(incount), datatype, native.get());
    converting(fn, [&] {
      to_external32(*find_type(datatype), std::size_t(incount), native.get(),
                    static_cast<char*>(outbuf) + *position);
    });
    *position += MPI_Aint(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype) {
  const char* fn = "MPI_Unpack_external";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_datarep(fn, datarep);
    std::size_t bytes = external_bytes(fn, outcount, "outcount", datatype);
    check_aint_position(fn, position, insize, "insize");
    if (!unpack_room(fn, bytes, outcount, insize, *position, inbuf, outbuf)) return MPI_SUCCESS;
    const std::size_t native_bytes = type_size(datatype) * std::size_t(outcount);
    auto native = std::make_unique_for_overwrite<char[]>(native_bytes);
    converting(fn, [&] {
      from_external32(*find_type(datatype), std::size_t(outcount),
                      static_cast<const char*>(inbuf) + *position, native.get());
    });
    unpack(native.get(), native_bytes, std::size_t(outcount), datatype, outbuf);
    *position += MPI_Aint(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Unpack_external)

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  const char* fn = "MPI_Pack_external_size";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_datarep(fn, datarep);
    std::size_t bytes = external_bytes(fn, incount, "incount", datatype);
    if (size == nullptr) fail(MPI_ERR_ARG, fn, "size is NULL (argument size)");
    *size = MPI_Aint(bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Pack_external_size)
