// SPDX-License-Identifier: MIT
// MPI_Type_create_darray's type map: the part of a global array that one process of a process grid
// owns under block, cyclic or no distribution of each dimension, as a Type. The caller checks the
// arguments (api/datatype.cpp); nothing here raises MPI errors.
#pragma once

#include <memory>
#include <vector>

#include "datatype/type.hpp"

namespace takyon::mpi {

/// One dimension of the global array, as this process sees it.
struct DarrayDim {
  int gsize = 1;                      ///< elements of the global array in this dimension
  int distrib = MPI_DISTRIBUTE_NONE;  ///< MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE
  int darg = 1;                       ///< block size (block: >= ceil(gsize / psize); cyclic: >= 1)
  int psize = 1;                      ///< processes in this dimension of the grid
  int coord = 0;                      ///< this process's coordinate in it
};

/// The runs [first, last) of indices of `d` this process owns, in increasing order.
std::vector<std::pair<int, int>> darray_runs(const DarrayDim& d);

/// The type of the owned elements of `old` (item i of the array at i x extent(old)), `dims` given with
/// the fastest-varying dimension first; its typemap runs through the owned elements in memory order,
/// and its bounds are 0 and the whole array's extent. Throws TypeTooLarge or TypeOverflow.
std::shared_ptr<Type> build_darray(const std::vector<DarrayDim>& dims, const Type& old);

}  // namespace takyon::mpi
