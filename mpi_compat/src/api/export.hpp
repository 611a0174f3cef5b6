// SPDX-License-Identifier: MIT
// The profiling interface: every entry point is defined as PMPI_<name>; MPI_<name> is a weak alias
// of it, so a tool can define MPI_<name> and call PMPI_<name>. Only MPI_* and PMPI_* leave the
// library (hidden visibility plus exports.map).
#pragma once

#include "mpi.h"

#define TAKYON_MPI_WEAK_ALIAS(name) \
  extern "C" __attribute__((weak, alias("PMPI_" #name))) decltype(PMPI_##name) MPI_##name;
