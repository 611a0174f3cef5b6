// SPDX-License-Identifier: MIT
// Datatype queries (see datatype.hpp). Predefined datatypes only for now: each is contiguous.
#include "datatype/datatype.hpp"

#include <cstring>

#include "datatype_basic.hpp"
#include "errors.hpp"

namespace takyon::mpi {

void check_type(MPI_Datatype dt, const char* fn) {
  if (basic_type(dt).size == 0) {
    fail(MPI_ERR_TYPE, fn, "invalid datatype");
  }
}

std::size_t type_size(MPI_Datatype dt) { return basic_type(dt).size; }

MPI_Aint type_lb(MPI_Datatype) { return 0; }

MPI_Aint type_extent(MPI_Datatype dt) { return static_cast<MPI_Aint>(basic_type(dt).size); }

bool type_is_contiguous(MPI_Datatype) { return true; }

void pack(const void* buf, std::size_t count, MPI_Datatype dt, void* out) {
  if (count != 0) {
    std::memcpy(out, buf, count * type_size(dt));
  }
}

void unpack(const void* in, std::size_t bytes, std::size_t, MPI_Datatype, void* buf) {
  if (bytes != 0) {
    std::memcpy(buf, in, bytes);
  }
}

}  // namespace takyon::mpi
