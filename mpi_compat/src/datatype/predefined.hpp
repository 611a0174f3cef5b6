// SPDX-License-Identifier: MIT
// The predefined datatypes of the MPI-5.0 ABI: size, extent, layout of the pair types and how many
// basic elements one of them holds (2 for the MINLOC/MAXLOC pair types). datatype/ builds its
// type objects for them from this table.
#pragma once

#include <cstddef>

#include "mpi.h"

namespace takyon::mpi {

struct BasicType {
  std::size_t size = 0;           ///< bytes of data; 0: not a valid datatype
  std::size_t extent = 0;         ///< pair types: with the C struct's padding (MPI_DOUBLE_INT: 12 / 16)
  std::size_t first = 0;          ///< pair types: size of the first member
  std::size_t second_offset = 0;  ///< pair types: offset of the second member
  MPI_Datatype first_type = MPI_DATATYPE_NULL;  ///< pair types: the members' predefined types
  MPI_Datatype second_type = MPI_DATATYPE_NULL;
  int elements = 1;       ///< basic elements per item
  std::size_t align = 1;  ///< alignment (a struct's extent is rounded up to it)
  const char* name = nullptr;
};

/// The predefined datatype `dt`, or a BasicType with size 0 if `dt` is none of them.
const BasicType& basic_type(MPI_Datatype dt);

}  // namespace takyon::mpi
