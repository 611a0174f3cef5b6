// SPDX-License-Identifier: MIT
// Attributes of communicators and datatypes, over the one model of attributes.hpp: keyvals
// (Comm_/Type_create_keyval, free_keyval, and the deprecated MPI-1 names of the communicator
// ones: Keyval_create/free, Attr_put/get/delete), set_attr, get_attr (for communicators also the predefined
// MPI_TAG_UB... on every communicator), delete_attr. Copy callbacks run on Comm_dup / Type_dup; delete
// callbacks on delete_attr, on overwriting a value, on Comm_free / Type_free and, for MPI_COMM_SELF, at
// MPI_Finalize.
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "attributes.hpp"
#include "datatype/datatype.hpp"

namespace takyon::mpi {
namespace {

bool is_predefined(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
         keyval == MPI_APPNUM || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_LASTUSEDCODE;
}

/// A user keyval a communicator's value may be set or deleted for (`freed_ok`: also one freed while
/// values of it remain, which may still be deleted, as in other MPI libraries); throws MPI_ERR_KEYVAL
/// naming `fn`.
void check_comm_keyval(int keyval, const char* fn, bool freed_ok = false) {
  if (is_predefined(keyval)) {
    fail(MPI_ERR_KEYVAL, fn,
         "keyval " + std::to_string(keyval) +
             " is predefined and cannot be set or deleted (argument comm_keyval)");
  }
  check_keyval(AttrKind::kComm, keyval, fn, "comm_keyval", freed_ok);
}

void* handle_of(CommInfo& c) {
  return static_cast<void*>(c.handle);
}

// The communicator entry points' bodies, shared by the MPI-2 names and the deprecated MPI-1 ones
// (MPI_Keyval_create, MPI_Attr_put...), whose C bindings are the same; errors name the function called.
int comm_create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy_fn,
                       MPI_Comm_delete_attr_function* delete_fn, int* keyval, void* extra_state) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (keyval == nullptr) fail(MPI_ERR_ARG, fn, "comm_keyval is NULL (argument comm_keyval)");
    AttrCallbacks cb;
    cb.comm_copy = copy_fn;
    cb.comm_delete = delete_fn;
    *keyval = create_keyval(AttrKind::kComm, cb, extra_state);
    return MPI_SUCCESS;
  });
}

int comm_free_keyval(const char* fn, int* keyval) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (keyval == nullptr) fail(MPI_ERR_ARG, fn, "comm_keyval is NULL (argument comm_keyval)");
    if (is_predefined(*keyval)) check_comm_keyval(*keyval, fn);
    free_keyval(AttrKind::kComm, keyval, fn, "comm_keyval");
    return MPI_SUCCESS;
  });
}

int comm_set_attr(const char* fn, MPI_Comm comm, int keyval, void* attribute_val) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_comm_keyval(keyval, fn);
    set_attr(AttrKind::kComm, handle_of(c), c.attrs, keyval, attribute_val, fn);
    return MPI_SUCCESS;
  });
}

int comm_delete_attr(const char* fn, MPI_Comm comm, int keyval) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_comm_keyval(keyval, fn, /*freed_ok=*/true);
    delete_attr(AttrKind::kComm, handle_of(c), c.attrs, keyval, fn);
    return MPI_SUCCESS;
  });
}

int comm_get_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    static int tag_ub = kTagUb;
    static int universe = 0;
    static int appnum = 0;
    static int wtime_global = 0;
    static int host = MPI_PROC_NULL;
    static int io = MPI_ANY_SOURCE;
    static int lastusedcode = MPI_ERR_LASTCODE;
    int* value = nullptr;
    switch (comm_keyval) {
      case MPI_TAG_UB:
        value = &tag_ub;
        break;
      case MPI_UNIVERSE_SIZE:
        universe = engine().size();
        value = &universe;
        break;
      case MPI_APPNUM:
        value = &appnum;
        break;
      case MPI_WTIME_IS_GLOBAL:
        value = &wtime_global;
        break;
      case MPI_HOST:
        value = &host;
        break;
      case MPI_IO:
        value = &io;
        break;
      case MPI_LASTUSEDCODE:
        lastusedcode = last_used_code();  // follows MPI_Add_error_class/code
        value = &lastusedcode;
        break;
      default: {
        check_keyval(AttrKind::kComm, comm_keyval, fn, "comm_keyval", /*freed_ok=*/true);
        void* v = nullptr;
        *flag = get_attr(c.attrs, comm_keyval, &v) ? 1 : 0;
        if (*flag != 0) *static_cast<void**>(attribute_val) = v;
        return MPI_SUCCESS;
      }
    }
    *static_cast<int**>(attribute_val) = value;
    *flag = 1;
    return MPI_SUCCESS;
  });
}

}  // namespace

int copy_attrs(CommInfo& from, CommInfo& to) {
  return copy_attrs(AttrKind::kComm, handle_of(from), from.attrs, to.attrs);
}

int delete_attrs(CommInfo& c) {
  return delete_attrs(AttrKind::kComm, handle_of(c), c.attrs);
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                       void* extra_state) {
  return comm_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                            extra_state);
}
TAKYON_MPI_WEAK_ALIAS(Comm_create_keyval)

extern "C" int PMPI_Comm_free_keyval(int* comm_keyval) {
  return comm_free_keyval("MPI_Comm_free_keyval", comm_keyval);
}
TAKYON_MPI_WEAK_ALIAS(Comm_free_keyval)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return comm_set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
TAKYON_MPI_WEAK_ALIAS(Comm_set_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return comm_delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}
TAKYON_MPI_WEAK_ALIAS(Comm_delete_attr)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return comm_get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
TAKYON_MPI_WEAK_ALIAS(Comm_get_attr)

// The MPI-1 names, deprecated but still in MPI-5 (and its ABI): MPI_Copy_function and
// MPI_Delete_function are MPI_Comm_copy_attr_function and MPI_Comm_delete_attr_function, and
// MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN have the values of the MPI_COMM_ ones.
extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                  void* extra_state) {
  return comm_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
TAKYON_MPI_WEAK_ALIAS(Keyval_create)

extern "C" int PMPI_Keyval_free(int* keyval) {
  return comm_free_keyval("MPI_Keyval_free", keyval);
}
TAKYON_MPI_WEAK_ALIAS(Keyval_free)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return comm_set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
TAKYON_MPI_WEAK_ALIAS(Attr_put)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return comm_get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
TAKYON_MPI_WEAK_ALIAS(Attr_get)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return comm_delete_attr("MPI_Attr_delete", comm, keyval);
}
TAKYON_MPI_WEAK_ALIAS(Attr_delete)

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                       MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                       void* extra_state) {
  return guarded("MPI_Type_create_keyval", MPI_COMM_WORLD, [&] {
    if (type_keyval == nullptr)
      fail(MPI_ERR_ARG, "MPI_Type_create_keyval", "type_keyval is NULL (argument type_keyval)");
    AttrCallbacks cb;
    cb.type_copy = type_copy_attr_fn;
    cb.type_delete = type_delete_attr_fn;
    *type_keyval = create_keyval(AttrKind::kType, cb, extra_state);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_keyval)

extern "C" int PMPI_Type_free_keyval(int* type_keyval) {
  return guarded("MPI_Type_free_keyval", MPI_COMM_WORLD, [&] {
    if (type_keyval == nullptr)
      fail(MPI_ERR_ARG, "MPI_Type_free_keyval", "type_keyval is NULL (argument type_keyval)");
    free_keyval(AttrKind::kType, type_keyval, "MPI_Type_free_keyval", "type_keyval");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_free_keyval)

extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  constexpr const char* fn = "MPI_Type_set_attr";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_any_type(datatype, fn, "datatype");
    check_keyval(AttrKind::kType, type_keyval, fn, "type_keyval");
    set_attr(AttrKind::kType, static_cast<void*>(datatype), type_attrs(datatype), type_keyval, attribute_val,
             fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "MPI_Type_get_attr";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_any_type(datatype, fn, "datatype");
    if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    check_keyval(AttrKind::kType, type_keyval, fn, "type_keyval", /*freed_ok=*/true);
    void* v = nullptr;
    *flag = get_attr(type_attrs(datatype), type_keyval, &v) ? 1 : 0;
    if (*flag != 0) *static_cast<void**>(attribute_val) = v;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  constexpr const char* fn = "MPI_Type_delete_attr";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_any_type(datatype, fn, "datatype");
    check_keyval(AttrKind::kType, type_keyval, fn, "type_keyval", /*freed_ok=*/true);
    delete_attr(AttrKind::kType, static_cast<void*>(datatype), type_attrs(datatype), type_keyval, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_delete_attr)
