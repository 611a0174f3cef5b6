// SPDX-License-Identifier: MIT
// Functions a program may link against that this version does not implement yet:
// datatype keyvals and attributes. Each one raises
// MPI_ERR_UNSUPPORTED_OPERATION through the error handler with a message naming it. The table is
// every function mpi.h declares that no other file under api/ defines; docs/mpi.md lists the same names.
#include "api/export.hpp"
#include "api/guard.hpp"

namespace {

int unsupported(const char *fn) {
  return takyon::mpi::raise_error(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION,
                                  std::string(fn) +
                                      ": not supported by this version of libtakyon_mpi "
                                      "(see docs/mpi.md for what is not implemented yet)");
}

}  // namespace

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define TAKYON_MPI_UNSUPPORTED(name, params) \
  extern "C" int PMPI_##name params {        \
    return unsupported("MPI_" #name);        \
  }                                          \
  TAKYON_MPI_WEAK_ALIAS(name)

// The refused functions keep the standard's parameter names, for readers.
// clang-format off
// NOLINTBEGIN(misc-unused-parameters)
TAKYON_MPI_UNSUPPORTED(Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
TAKYON_MPI_UNSUPPORTED(Type_free_keyval, (int *type_keyval))
TAKYON_MPI_UNSUPPORTED(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
TAKYON_MPI_UNSUPPORTED(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
TAKYON_MPI_UNSUPPORTED(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
// NOLINTEND(misc-unused-parameters)
// clang-format on
