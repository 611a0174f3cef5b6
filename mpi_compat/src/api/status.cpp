// SPDX-License-Identifier: MIT
// What a status says: Get_count, Get_elements, Test_cancelled and the Status_set_* setters.
#include <climits>

#include "api/common.hpp"
#include "api/export.hpp"
#include "datatype/datatype.hpp"
#include "datatype/pack.hpp"
#include "datatype/type.hpp"

namespace takyon::mpi {
namespace {

const Type& status_type(const char* fn, MPI_Datatype dt) {
  check_type(dt, fn);
  return *find_type(dt);
}

/// Items (or basic elements) in `bytes` of type t; -1 if the bytes are no whole number of them.
long long count_of(const Type& t, std::size_t bytes, bool elements) {
  if (elements) return elements_in(t, bytes);
  if (t.size == 0) return 0;
  return bytes % t.size == 0 ? static_cast<long long>(bytes / t.size) : -1;
}

int int_or_undefined(long long n) {
  return n < 0 || n > INT_MAX ? MPI_UNDEFINED : int(n);
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return guarded("MPI_Get_count", MPI_COMM_WORLD, [&] {
    if (status == nullptr || count == nullptr) fail(MPI_ERR_ARG, "MPI_Get_count", "status or count is NULL");
    *count = int_or_undefined(count_of(status_type("MPI_Get_count", datatype), status_bytes(status), false));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_count)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return guarded("MPI_Get_elements", MPI_COMM_WORLD, [&] {
    if (status == nullptr || count == nullptr)
      fail(MPI_ERR_ARG, "MPI_Get_elements", "status or count is NULL");
    *count =
        int_or_undefined(count_of(status_type("MPI_Get_elements", datatype), status_bytes(status), true));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_elements)

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return guarded("MPI_Get_elements_x", MPI_COMM_WORLD, [&] {
    if (status == nullptr || count == nullptr)
      fail(MPI_ERR_ARG, "MPI_Get_elements_x", "status or count is NULL");
    long long n = count_of(status_type("MPI_Get_elements_x", datatype), status_bytes(status), true);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_elements_x)

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return guarded("MPI_Status_set_elements_x", MPI_COMM_WORLD, [&] {
    if (status == nullptr) fail(MPI_ERR_ARG, "MPI_Status_set_elements_x", "status is NULL");
    if (count < 0) fail(MPI_ERR_COUNT, "MPI_Status_set_elements_x", "negative count (argument count)");
    const Type& t = status_type("MPI_Status_set_elements_x", datatype);
    const std::size_t bytes = bytes_of_elements(t, std::size_t(count));
    if (bytes > std::size_t(kMaxTypeValue)) {
      fail(MPI_ERR_COUNT, "MPI_Status_set_elements_x",
           std::to_string(count) + " elements of a datatype of size " + std::to_string(t.size) +
               " bytes overflow MPI_Count (argument count)");
    }
    status_set_bytes(status, bytes);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Status_set_elements_x)

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return PMPI_Status_set_elements_x(status, datatype, count);
}
TAKYON_MPI_WEAK_ALIAS(Status_set_elements)

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  return guarded("MPI_Status_set_cancelled", MPI_COMM_WORLD, [&] {
    if (status == nullptr) fail(MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    status->MPI_internal[2] = flag != 0 ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Status_set_cancelled)

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  return guarded("MPI_Test_cancelled", MPI_COMM_WORLD, [&] {
    if (status == nullptr || flag == nullptr)
      fail(MPI_ERR_ARG, "MPI_Test_cancelled", "status or flag is NULL");
    *flag = status->MPI_internal[2] != 0 ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Test_cancelled)
