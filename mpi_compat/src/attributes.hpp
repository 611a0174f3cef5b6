// SPDX-License-Identifier: MIT
// Attribute caching, one model for every kind of object that caches attributes (communicators,
// datatypes, windows): keyvals with their copy and delete callbacks, and an object's list of (keyval, value).
// Keyvals of all kinds share one number space; a keyval made for one kind is MPI_ERR_KEYVAL on
// another. A freed keyval lives on while objects still hold a value for it. Copy callbacks run when
// an object is duplicated, delete callbacks when a value is deleted, overwritten, or its object freed.
#pragma once

#include <utility>
#include <vector>

#include "mpi.h"

namespace takyon::mpi {

enum class AttrKind { kComm, kType, kWin };

/// An object's attributes: (keyval, value) in the order they were set.
using AttrList = std::vector<std::pair<int, void*>>;

/// The callbacks of one keyval, of the kind's function types (the others nullptr).
struct AttrCallbacks {
  MPI_Comm_copy_attr_function* comm_copy = nullptr;
  MPI_Comm_delete_attr_function* comm_delete = nullptr;
  MPI_Type_copy_attr_function* type_copy = nullptr;
  MPI_Type_delete_attr_function* type_delete = nullptr;
  MPI_Win_copy_attr_function* win_copy = nullptr;  ///< never called: windows are not duplicated
  MPI_Win_delete_attr_function* win_delete = nullptr;
};

/// A new keyval of `kind` (MPI_Comm_create_keyval, MPI_Type_create_keyval).
int create_keyval(AttrKind kind, const AttrCallbacks& callbacks, void* extra_state);
/// Marks `*keyval` freed and sets it to MPI_KEYVAL_INVALID; throws MPI_ERR_KEYVAL naming `fn` and `arg`
/// unless it is a live keyval of `kind`.
void free_keyval(AttrKind kind, int* keyval, const char* fn, const char* arg);
/// Throws MPI_ERR_KEYVAL naming `fn` and `arg` unless `keyval` is a keyval of `kind` (freed ones too when
/// `freed_ok`: MPI_*_get_attr of a value set before the free).
void check_keyval(AttrKind kind, int keyval, const char* fn, const char* arg, bool freed_ok = false);

/// MPI_*_set_attr on `object` (the handle the callbacks get): deletes the old value first (its delete
/// callback failing is that error code, raised naming `fn`).
void set_attr(AttrKind kind, void* object, AttrList& attrs, int keyval, void* value, const char* fn);
/// MPI_*_get_attr of a user keyval: whether `attrs` has a value for it, and the value.
bool get_attr(const AttrList& attrs, int keyval, void** value);
/// MPI_*_delete_attr: runs the delete callback and removes the value; MPI_ERR_KEYVAL if there is none.
void delete_attr(AttrKind kind, void* object, AttrList& attrs, int keyval, const char* fn);

/// Duplication of `object`: runs the copy callbacks of its attributes into `to`; MPI_SUCCESS or the
/// first failing callback's code.
int copy_attrs(AttrKind kind, void* object, const AttrList& from, AttrList& to);
/// Freeing an object: runs the delete callbacks, last attribute set first, removing each value;
/// MPI_SUCCESS or the first failing callback's code (the values not yet deleted stay).
int delete_attrs(AttrKind kind, void* object, AttrList& attrs);

}  // namespace takyon::mpi
