// SPDX-License-Identifier: MIT
// Reduction operations: the predefined ops on the predefined datatypes they are defined for, and user
// ops (MPI_Op_create). Ops work on packed items (predefined ops) or on a contiguous datatype's items
// (user ops); the collectives call apply_op().
#pragma once

#include <cstddef>
#include <memory>

#include "mpi.h"

namespace takyon::mpi {

/// Throws MpiError(MPI_ERR_OP) naming `fn` unless `op` is a predefined op or a live user op, and
/// (for a predefined op) `dt` is a predefined datatype the op is defined for.
void check_op(MPI_Op op, MPI_Datatype dt, const char* fn);
/// Throws MpiError(MPI_ERR_OP) naming `fn` unless `op` is a predefined op or a live user op.
void check_op_handle(MPI_Op op, const char* fn);
/// Whether `op` is commutative (predefined ops all are; user ops say so at MPI_Op_create).
bool op_commutative(MPI_Op op);
/// Whether a reduction of `dt` by `op` can run on packed items: any op on a contiguous datatype,
/// predefined ops on the predefined datatypes, including the pair types whose padding is a hole
/// (their kernels read packed pairs), and user ops on any datatype (apply_op lays the packed items out
/// as the user's buffer for the function, which expects that layout).
bool reduces_packed(MPI_Op op, MPI_Datatype dt);
/// inout[i] = in[i] op inout[i] for `count` items of `dt` (checked with check_op before).
void apply_op(MPI_Op op, MPI_Datatype dt, const void* in, void* inout, std::size_t count);
/// out[i] = x[i] op y[i] (apply_op is x = in, y = out = inout), one pass over the three buffers. With
/// out != y: predefined ops only (a user op combines in place; std::logic_error otherwise).
void apply_op_into(MPI_Op op, MPI_Datatype dt, const void* x, const void* y, void* out, std::size_t count);

/// MPI_Op_create / MPI_Op_free: user ops live until freed; a freed handle is invalid afterwards.
MPI_Op create_user_op(MPI_User_function* fn, bool commute);
void free_user_op(MPI_Op op, const char* fn);
/// Keeps a user op usable after MPI_Op_free while a pending reduction applies it (nullptr for a
/// predefined op). The pointer is opaque; reset it when the operation is over.
std::shared_ptr<const void> hold_op(MPI_Op op);
/// Whether `op` is a predefined op other than MPI_OP_NULL.
bool is_predefined_op(MPI_Op op);

}  // namespace takyon::mpi
