// SPDX-License-Identifier: MIT
// mpi.h compiled as C++ (C++17 and C++20 builds of this file), with the project's strict warnings on,
// with the opt-in MPI-1 declarations.
#define TAKYON_MPI_ENABLE_MPI1_COMPAT 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <type_traits>

// decltype does not odr-use the function, so these checks need no library.
#define CHECK_FN(name, type)                                                        \
  static_assert(std::is_same_v<decltype(&MPI_##name), type>, "MPI_" #name " type"); \
  static_assert(std::is_same_v<decltype(&PMPI_##name), type>, "PMPI_" #name " type")

CHECK_FN(Send, int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm));
CHECK_FN(Recv, int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*));
CHECK_FN(Get_count, int (*)(const MPI_Status*, MPI_Datatype, int*));
CHECK_FN(Wtime, double (*)());
CHECK_FN(Pcontrol, int (*)(int, ...));
CHECK_FN(Waitsome, int (*)(int, MPI_Request*, int*, int*, MPI_Status*));
CHECK_FN(Bcast, int (*)(void*, int, MPI_Datatype, int, MPI_Comm));
CHECK_FN(Alltoallv, int (*)(const void*, const int*, const int*, MPI_Datatype, void*, const int*, const int*,
                            MPI_Datatype, MPI_Comm));
CHECK_FN(Ibarrier, int (*)(MPI_Comm, MPI_Request*));
CHECK_FN(Comm_split_type, int (*)(MPI_Comm, int, int, MPI_Info, MPI_Comm*));
CHECK_FN(Type_get_envelope, int (*)(MPI_Datatype, int*, int*, int*, int*));
CHECK_FN(Aint_diff, MPI_Aint (*)(MPI_Aint, MPI_Aint));
CHECK_FN(Status_set_elements_x, int (*)(MPI_Status*, MPI_Datatype, MPI_Count));
CHECK_FN(Type_create_darray, int (*)(int, int, int, const int*, const int*, const int*, const int*, int,
                                     MPI_Datatype, MPI_Datatype*));
CHECK_FN(Pack_external, int (*)(const char*, const void*, int, MPI_Datatype, void*, MPI_Aint, MPI_Aint*));
CHECK_FN(Type_match_size, int (*)(int, int, MPI_Datatype*));
CHECK_FN(Type_get_extent_x, int (*)(MPI_Datatype, MPI_Count*, MPI_Count*));
CHECK_FN(Type_hvector, int (*)(int, int, MPI_Aint, MPI_Datatype, MPI_Datatype*));
CHECK_FN(Type_struct, int (*)(int, int*, MPI_Aint*, MPI_Datatype*, MPI_Datatype*));
CHECK_FN(Address, int (*)(void*, MPI_Aint*));

static_assert(std::is_pointer_v<MPI_Comm> && std::is_pointer_v<MPI_Request>, "handles are pointers");
static_assert(!std::is_same_v<MPI_Comm, MPI_Group>, "handle types are distinct");
static_assert(std::is_same_v<MPI_Aint, std::intptr_t> && std::is_same_v<MPI_Count, std::int64_t>,
              "int types");
static_assert(sizeof(MPI_Status) == 8 * sizeof(int), "status is eight ints");
static_assert(MPI_VERSION == 5 && MPI_SUBVERSION == 0, "MPI 5.0");

namespace {
int null_delete(MPI_Comm, int, void*, void*) {
  return MPI_SUCCESS;
}
}  // namespace

int main() {
  int failures = 0;
  const MPI_Comm world = MPI_COMM_WORLD;
  MPI_Comm_copy_attr_function* copy_fn = MPI_COMM_DUP_FN;
  MPI_Comm_delete_attr_function* delete_fn = MPI_COMM_NULL_DELETE_FN;
  if (reinterpret_cast<std::intptr_t>(world) != 0x101) failures++;
  if (copy_fn == MPI_COMM_NULL_COPY_FN || delete_fn != nullptr) failures++;
  delete_fn = null_delete;
  if (delete_fn == MPI_COMM_NULL_DELETE_FN) failures++;
  if (MPI_STATUS_IGNORE != nullptr || MPI_BOTTOM != nullptr || MPI_IN_PLACE == nullptr) failures++;
  if (MPI_DATATYPE_NULL == MPI_BYTE || MPI_OP_NULL == MPI_SUM || MPI_INFO_NULL == MPI_INFO_ENV) failures++;
  if (MPI_ERRORS_RETURN == MPI_ERRORS_ARE_FATAL) failures++;
  MPI_Status status{};
  status.MPI_internal[0] = 1;
  if (status.MPI_SOURCE != 0) failures++;
  if (failures != 0) {
    std::printf("mpi.h C++ check: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("mpi.h C++ check (C++ %ld): ok\n", static_cast<long>(__cplusplus));
  return 0;
}
