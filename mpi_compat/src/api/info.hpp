// SPDX-License-Identifier: MIT
// Info objects (MPI_Info_*): what other entry points that take an MPI_Info argument need to check it.
#pragma once

#include "mpi.h"

namespace takyon::mpi {

/// Checks an info argument that a function only accepts (hints are ignored): MPI_INFO_NULL,
/// MPI_INFO_ENV or a live info object. Throws MPI_ERR_INFO naming `fn` otherwise (freed or garbage
/// handles are looked up, never dereferenced). Any thread.
void check_info_arg(MPI_Info info, const char* fn);

}  // namespace takyon::mpi
