// SPDX-License-Identifier: MIT
// User ops (MPI_Op_create) inside op/: the registry of live ones, the freed ones a pending reduction
// still holds, and applying one to packed items of any datatype. op.hpp is the interface the rest of
// the library uses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi.h"

namespace takyon::mpi {

struct UserOp {
  static constexpr std::uint32_t kMagic = 0x55534f50U;  // "USOP"
  std::uint32_t magic = kMagic;
  MPI_User_function* fn = nullptr;
  bool commute = true;
};

/// A live user op (MPI_Op_free not called), or nullptr: what argument checks accept.
UserOp* find_user(MPI_Op op);
/// find_user(), or a freed user op a pending reduction holds (hold_op): for applying it, never for
/// checks.
UserOp* find_user_in_use(MPI_Op op);
/// inout = in op inout for `count` packed items of `dt`: in place for a contiguous datatype, else laid
/// out as in the user's buffer for the function (which expects that layout) and packed back.
void apply_user_op(const UserOp& u, MPI_Datatype dt, const void* in, void* inout, std::size_t count);

}  // namespace takyon::mpi
