// SPDX-License-Identifier: MIT
// MPI_Type_get_envelope / MPI_Type_get_contents: the constructor of a derived type and its arguments,
// as recorded at construction (Type::contents).
#include <algorithm>
#include <string>

#include "api/export.hpp"
#include "api/guard.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  const char* fn = "MPI_Type_get_envelope";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr ||
        combiner == nullptr) {
      fail(MPI_ERR_ARG, fn, "an output argument is NULL");
    }
    check_any_type(datatype, fn, "datatype");
    const Type& t = *find_type(datatype);
    if (t.predefined || !t.contents) {
      *num_integers = *num_addresses = *num_datatypes = 0;
      *combiner = MPI_COMBINER_NAMED;
      return MPI_SUCCESS;
    }
    *num_integers = int(t.contents->ints.size());
    *num_addresses = int(t.contents->aints.size());
    *num_datatypes = int(t.contents->handles.size());
    *combiner = t.contents->combiner;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_envelope)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const char* fn = "MPI_Type_get_contents";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_any_type(datatype, fn, "datatype");
    const Type& t = *find_type(datatype);
    if (t.predefined || !t.contents) {
      fail(MPI_ERR_TYPE, fn, "a predefined datatype has no contents (combiner MPI_COMBINER_NAMED)");
    }
    const Contents& c = *t.contents;
    auto check_room = [&](std::size_t need, int max, const void* array, const char* what) {
      if (need > std::size_t(std::max(max, 0))) {
        fail(MPI_ERR_ARG, fn,
             std::string(what) + " holds " + std::to_string(max) + " entries, the type needs " +
                 std::to_string(need) + " (MPI_Type_get_envelope)");
      }
      if (need > 0 && array == nullptr) fail(MPI_ERR_ARG, fn, std::string(what) + " is NULL");
    };
    check_room(c.ints.size(), max_integers, array_of_integers, "array_of_integers");
    check_room(c.aints.size(), max_addresses, array_of_addresses, "array_of_addresses");
    check_room(c.handles.size(), max_datatypes, array_of_datatypes, "array_of_datatypes");
    std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
    std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
    for (std::size_t i = 0; i < c.handles.size(); ++i) {
      if (c.held[i] == nullptr) {
        array_of_datatypes[i] = c.handles[i];
      } else {  // a new handle of an equivalent type, which the caller frees
        auto copy = std::make_shared<Type>(*c.held[i]);
        copy->name.clear();
        array_of_datatypes[i] = register_type(std::move(copy));
      }
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_contents)
