// SPDX-License-Identifier: MIT
// The MPI-1 datatype functions removed in MPI-3.0 that old codes (and MPICH's test library) still
// call: MPI_Address, Type_hvector, Type_hindexed, Type_struct, Type_extent, Type_lb, Type_ub. The
// MPI-5 ABI does not declare them; mpi.h does when TAKYON_MPI_ENABLE_MPI1_COMPAT is 1. Each is its
// MPI-2 replacement, whose checks and error messages it shares.
#define TAKYON_MPI_ENABLE_MPI1_COMPAT 1
#include "api/export.hpp"
#include "api/guard.hpp"
#include "datatype/datatype.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}
TAKYON_MPI_WEAK_ALIAS(Address)

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
TAKYON_MPI_WEAK_ALIAS(Type_hvector)

extern "C" int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}
TAKYON_MPI_WEAK_ALIAS(Type_hindexed)

extern "C" int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                                 newtype);
}
TAKYON_MPI_WEAK_ALIAS(Type_struct)

namespace {

/// MPI_Type_extent, lb, ub: one bound of the type, or its extent.
template <class Pick>
int bound(const char* fn, MPI_Datatype dt, MPI_Aint* out, const Pick& pick) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_any_type(dt, fn, "datatype");
    if (out == nullptr) fail(MPI_ERR_ARG, fn, "the result argument is NULL");
    *out = pick(type_lb(dt), type_extent(dt));
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  return bound("MPI_Type_extent", datatype, extent, [](MPI_Aint, MPI_Aint ext) { return ext; });
}
TAKYON_MPI_WEAK_ALIAS(Type_extent)

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  return bound("MPI_Type_lb", datatype, displacement, [](MPI_Aint lb, MPI_Aint) { return lb; });
}
TAKYON_MPI_WEAK_ALIAS(Type_lb)

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  return bound("MPI_Type_ub", datatype, displacement, [](MPI_Aint lb, MPI_Aint ext) { return lb + ext; });
}
TAKYON_MPI_WEAK_ALIAS(Type_ub)
