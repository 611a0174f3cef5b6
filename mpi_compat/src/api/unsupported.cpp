// SPDX-License-Identifier: MIT
// Functions a program may link against that this version does not implement yet (none at present:
// every function mpi.h declares is implemented). Each row raises MPI_ERR_UNSUPPORTED_OPERATION
// through the error handler with a message naming it. The table is every function mpi.h declares
// that no other file under api/ defines; docs/mpi.md lists the same names.
#include "api/export.hpp"
#include "api/guard.hpp"

namespace {

[[maybe_unused]] int unsupported(const char *fn) {
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
// NOLINTEND(misc-unused-parameters)
// clang-format on
