// SPDX-License-Identifier: MIT
// What the rest of libtakyon_mpi needs to know about any datatype, predefined or derived: its size,
// extent and layout, and how to pack `count` items of it into contiguous bytes and back.
// Point-to-point and the collectives move packed bytes; a contiguous type moves in place.
#pragma once

#include <cstddef>
#include <memory>

#include "attributes.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// Throws MpiError(MPI_ERR_TYPE) naming `fn` unless `dt` is a valid datatype usable for
/// communication (predefined, or derived and committed, not freed).
void check_type(MPI_Datatype dt, const char* fn);
/// Throws MpiError(MPI_ERR_TYPE) naming `fn` and `arg` unless `dt` is a valid datatype (committed or
/// not: the constructors and queries accept uncommitted ones).
void check_any_type(MPI_Datatype dt, const char* fn, const char* arg);
/// Bytes of data in one item of `dt` (MPI_Type_size).
std::size_t type_size(MPI_Datatype dt);
/// Whether a buffer of `count` items of `dt` is addressable: its data bytes fit MPI_Count and its span
/// ((count - 1) extents plus the true extent) fits MPI_Aint. Never throws (a valid handle is assumed).
bool items_fit(MPI_Datatype dt, std::size_t count) noexcept;
/// The largest count items_fit accepts for `dt` (0 for an invalid handle).
std::size_t type_max_items(MPI_Datatype dt) noexcept;
/// type_size(dt) * count, for a checked `dt`; throws MpiError(MPI_ERR_COUNT) naming `fn`, `count_arg`
/// and the type's size and extent unless items_fit(dt, count): a count that overflows is an error,
/// never a wrapped size.
std::size_t items_bytes(MPI_Datatype dt, std::size_t count, const char* fn, const char* count_arg);
/// Lower bound and extent of `dt` (MPI_Type_get_extent): item i starts at buf + lb + i * extent.
MPI_Aint type_lb(MPI_Datatype dt);
MPI_Aint type_extent(MPI_Datatype dt);
/// True lower bound and true extent of `dt` (MPI_Type_get_true_extent): the bytes its data covers.
MPI_Aint type_true_lb(MPI_Datatype dt);
MPI_Aint type_true_extent(MPI_Datatype dt);
/// Whether `count` items at `buf` are exactly the type_size(dt) * count bytes starting at buf + lb
/// (no holes, extent == size): such buffers are sent and received in place.
bool type_is_contiguous(MPI_Datatype dt);
/// Copies the data of `count` items at `buf` into `out` (type_size(dt) * count bytes).
void pack(const void* buf, std::size_t count, MPI_Datatype dt, void* out);
/// Copies `bytes` packed bytes (at most type_size(dt) * count) from `in` into `count` items at `buf`;
/// a partial trailing item is written as far as the bytes go.
void unpack(const void* in, std::size_t bytes, std::size_t count, MPI_Datatype dt, void* buf);
/// Keeps a derived datatype alive after MPI_Type_free while an operation uses it (nullptr for a
/// predefined one). The pointer is opaque; reset it when the operation is over.
std::shared_ptr<const void> hold_type(MPI_Datatype dt);
/// The attributes cached on `dt`, a valid handle (predefined or derived); created empty on first use.
AttrList& type_attrs(MPI_Datatype dt);
/// Forgets `dt`'s attributes (MPI_Type_free, once their delete callbacks ran).
void drop_type_attrs(MPI_Datatype dt);
/// Basic elements in `bytes` packed bytes of `dt` (MPI_Get_elements); -1 if the bytes end inside one.
long long type_elements_in(MPI_Datatype dt, std::size_t bytes);

}  // namespace takyon::mpi
