// SPDX-License-Identifier: MIT
// Handles as integers: the MPI-5 ABI's MPI_<Kind>_toint / _fromint, and the Fortran conversions
// MPI_<Kind>_c2f / _f2c (MPI_Fint is int in the ABI, so they are the same mapping). A predefined
// handle is its ABI constant (all below kFirstDynamic); a handle the library created (a pointer)
// gets the next integer of its kind the first time it is converted, and keeps it while the process
// lives. Converting an integer that no handle of the kind was given returns the kind's null handle.
#include <mutex>
#include <unordered_map>
#include <vector>

#include "api/export.hpp"

namespace takyon::mpi {
namespace {

constexpr int kFirstDynamic = 0x1000;  // above every predefined handle's ABI value

/// One kind's integers: the handle of integer kFirstDynamic + i is handles[i].
class HandleInts {
 public:
  int to_int(const void* handle) {
    const auto value = reinterpret_cast<std::intptr_t>(handle);
    if (value >= 0 && value < kFirstDynamic) return static_cast<int>(value);
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, added] = ints_.try_emplace(handle, kFirstDynamic + static_cast<int>(handles_.size()));
    if (added) handles_.push_back(handle);
    return it->second;
  }
  const void* from_int(int value, std::intptr_t null_value) {
    if (value >= 0 && value < kFirstDynamic)
      return reinterpret_cast<const void*>(static_cast<std::intptr_t>(value));
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto i = static_cast<std::size_t>(value) - kFirstDynamic;
    if (value < kFirstDynamic || i >= handles_.size()) return reinterpret_cast<const void*>(null_value);
    return handles_[i];
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, int> ints_;
  std::vector<const void*> handles_;
};

template <class Handle>
HandleInts& ints_of() {
  static HandleInts table;  // one per handle type
  return table;
}

template <class Handle>
int to_int(Handle h) {
  return ints_of<Handle>().to_int(reinterpret_cast<const void*>(h));
}

template <class Handle>
Handle from_int(int value, Handle null_handle) {
  return reinterpret_cast<Handle>(
      const_cast<void*>(ints_of<Handle>().from_int(value, reinterpret_cast<std::intptr_t>(null_handle))));
}

}  // namespace
}  // namespace takyon::mpi

using takyon::mpi::from_int;
using takyon::mpi::to_int;

// The four functions of each kind (Type is MPI_Datatype's).
#define TAKYON_MPI_HANDLE_INTS(Kind, Handle, null_handle) \
  extern "C" int PMPI_##Kind##_toint(Handle h) {          \
    return to_int(h);                                     \
  }                                                       \
  TAKYON_MPI_WEAK_ALIAS(Kind##_toint)                     \
  extern "C" Handle PMPI_##Kind##_fromint(int value) {    \
    return from_int<Handle>(value, null_handle);          \
  }                                                       \
  TAKYON_MPI_WEAK_ALIAS(Kind##_fromint)                   \
  extern "C" MPI_Fint PMPI_##Kind##_c2f(Handle h) {       \
    return to_int(h);                                     \
  }                                                       \
  TAKYON_MPI_WEAK_ALIAS(Kind##_c2f)                       \
  extern "C" Handle PMPI_##Kind##_f2c(MPI_Fint value) {   \
    return from_int<Handle>(value, null_handle);          \
  }                                                       \
  TAKYON_MPI_WEAK_ALIAS(Kind##_f2c)

TAKYON_MPI_HANDLE_INTS(Comm, MPI_Comm, MPI_COMM_NULL)
TAKYON_MPI_HANDLE_INTS(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL)
TAKYON_MPI_HANDLE_INTS(Group, MPI_Group, MPI_GROUP_NULL)
TAKYON_MPI_HANDLE_INTS(Info, MPI_Info, MPI_INFO_NULL)
TAKYON_MPI_HANDLE_INTS(Message, MPI_Message, MPI_MESSAGE_NULL)
TAKYON_MPI_HANDLE_INTS(Op, MPI_Op, MPI_OP_NULL)
TAKYON_MPI_HANDLE_INTS(Request, MPI_Request, MPI_REQUEST_NULL)
TAKYON_MPI_HANDLE_INTS(Session, MPI_Session, MPI_SESSION_NULL)
TAKYON_MPI_HANDLE_INTS(Type, MPI_Datatype, MPI_DATATYPE_NULL)
TAKYON_MPI_HANDLE_INTS(Win, MPI_Win, MPI_WIN_NULL)
