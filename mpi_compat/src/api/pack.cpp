// SPDX-License-Identifier: MIT
// MPI_Pack, MPI_Unpack, MPI_Pack_size: the packed form is the type's data bytes in typemap order
// (the same bytes point-to-point moves), so packed data of one rank unpacks on another.
#include <climits>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "datatype/datatype.hpp"

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

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  const char* fn = "MPI_Pack";
  return guarded(fn, comm, [&] {
    std::size_t bytes = checked_bytes(fn, incount, "incount", datatype, comm);
    check_position(fn, position, outsize, "outsize");
    if (bytes > std::size_t(outsize - *position)) {
      fail(MPI_ERR_TRUNCATE, fn,
           std::to_string(bytes) + " bytes do not fit at position " + std::to_string(*position) +
               " of outbuf (" + std::to_string(outsize) + " bytes)");
    }
    if (bytes == 0) return MPI_SUCCESS;
    if (inbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "inbuf is NULL with incount " + std::to_string(incount));
    if (outbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "outbuf is NULL");
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
    if (bytes > std::size_t(insize - *position)) {
      fail(MPI_ERR_TRUNCATE, fn,
           std::to_string(outcount) + " items need " + std::to_string(bytes) + " bytes; inbuf holds " +
               std::to_string(insize - *position) + " from position " + std::to_string(*position));
    }
    if (bytes == 0) return MPI_SUCCESS;
    if (inbuf == nullptr) fail(MPI_ERR_BUFFER, fn, "inbuf is NULL");
    if (outbuf == nullptr)
      fail(MPI_ERR_BUFFER, fn, "outbuf is NULL with outcount " + std::to_string(outcount));
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
