// SPDX-License-Identifier: MIT
// The predefined datatypes of the MPI-5.0 ABI (derived datatypes arrive with part 2): size and how
// many basic elements one of them holds (2 for the MINLOC/MAXLOC pair types).
#pragma once

#include <cstddef>

#include "mpi.h"

namespace takyon::mpi {

struct BasicType {
  std::size_t size = 0;       ///< 0: not a valid datatype
  std::size_t first = 0;      ///< pair types: size of the first member (Get_elements of a partial pair)
  int elements = 1;           ///< basic elements per item
  const char* name = nullptr;
};

/// The predefined datatype `dt`, or a BasicType with size 0 if `dt` is none of them.
const BasicType& basic_type(MPI_Datatype dt);

}  // namespace takyon::mpi
