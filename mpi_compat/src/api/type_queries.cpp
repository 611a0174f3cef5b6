// SPDX-License-Identifier: MIT
// Datatype queries beyond api/datatype.cpp's: the MPI_Count forms of the extents
// (MPI_Type_get_extent_x, MPI_Type_get_true_extent_x) and MPI_Type_match_size.
#include "api/export.hpp"
#include "api/guard.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"

using namespace takyon::mpi;

namespace {

const Type& queried(MPI_Datatype dt, const char* fn) {
  check_any_type(dt, fn, "datatype");
  return *find_type(dt);
}

/// The predefined type MPI_Type_match_size answers for (typeclass, size), or MPI_DATATYPE_NULL. The
/// Fortran types (the function serves Fortran's KIND parameters), the default kinds where their size
/// matches, as Open MPI answers.
MPI_Datatype match(int typeclass, int size) {
  struct Row {
    int typeclass;
    MPI_Datatype dt;
  };
  static const Row rows[] = {
      {MPI_TYPECLASS_INTEGER, MPI_INTEGER},   {MPI_TYPECLASS_INTEGER, MPI_INTEGER1},
      {MPI_TYPECLASS_INTEGER, MPI_INTEGER2},  {MPI_TYPECLASS_INTEGER, MPI_INTEGER8},
      {MPI_TYPECLASS_INTEGER, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, MPI_REAL},
      {MPI_TYPECLASS_REAL, MPI_REAL2},        {MPI_TYPECLASS_REAL, MPI_REAL8},
      {MPI_TYPECLASS_REAL, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX},
      {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX4},  {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX32},
  };
  for (const Row& r : rows) {
    if (r.typeclass == typeclass && type_size(r.dt) == std::size_t(size)) return r.dt;
  }
  return MPI_DATATYPE_NULL;
}

}  // namespace

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  constexpr const char* fn = "MPI_Type_get_extent_x";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (lb == nullptr || extent == nullptr) fail(MPI_ERR_ARG, fn, "lb or extent is NULL");
    const Type& t = queried(datatype, fn);
    *lb = MPI_Count(t.lb);
    *extent = MPI_Count(t.extent());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_extent_x)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  constexpr const char* fn = "MPI_Type_get_true_extent_x";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (true_lb == nullptr || true_extent == nullptr) fail(MPI_ERR_ARG, fn, "true_lb or true_extent is NULL");
    const Type& t = queried(datatype, fn);
    *true_lb = MPI_Count(t.true_lb);
    *true_extent = MPI_Count(t.true_ub - t.true_lb);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_true_extent_x)

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  constexpr const char* fn = "MPI_Type_match_size";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (datatype == nullptr) fail(MPI_ERR_ARG, fn, "datatype is NULL (argument datatype)");
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX) {
      fail(MPI_ERR_ARG, fn,
           "invalid typeclass " + std::to_string(typeclass) +
               " (argument typeclass: MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL or MPI_TYPECLASS_COMPLEX)");
    }
    MPI_Datatype dt = match(typeclass, size);
    if (dt == MPI_DATATYPE_NULL) {
      const char* cls = typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                        : typeclass == MPI_TYPECLASS_REAL  ? "real"
                                                           : "complex";
      fail(MPI_ERR_ARG, fn,
           std::string("no predefined ") + cls + " datatype has size " + std::to_string(size) +
               " (argument size)");
    }
    *datatype = dt;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_match_size)
