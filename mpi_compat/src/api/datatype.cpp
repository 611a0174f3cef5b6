// SPDX-License-Identifier: MIT
// Derived datatypes: the MPI_Type_* constructors (each flattens its input into a Type, see
// datatype/type.hpp), commit, dup, free, and the size/extent/name queries.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/export.hpp"
#include "api/guard.hpp"
#include "datatype/darray.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"

namespace takyon::mpi {
namespace {

const Type& old_type(MPI_Datatype dt, const char* fn, const char* arg = "oldtype") {
  check_any_type(dt, fn, arg);
  return *find_type(dt);
}

void check_type_count(int count, const char* fn, const char* arg = "count") {
  if (count < 0)
    fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument " + arg + ")");
}

void check_blocklength(int bl, const char* fn, const std::string& arg) {
  if (bl < 0)
    fail(MPI_ERR_ARG, fn, "negative block length " + std::to_string(bl) + " (argument " + arg + ")");
}

template <class T>
void check_array(const T* a, int count, const char* fn, const char* arg) {
  if (count > 0 && a == nullptr) fail(MPI_ERR_ARG, fn, std::string(arg) + " is NULL");
}

void check_out(const MPI_Datatype* out, const char* fn) {
  if (out == nullptr) fail(MPI_ERR_ARG, fn, "newtype is NULL (argument newtype)");
}

std::string at(const char* arg, int i) {
  return std::string(arg) + "[" + std::to_string(i) + "]";
}

/// Records how the new type `t` was made (MPI_Type_get_contents).
void describe(MPI_Datatype t, int combiner, std::vector<int> ints, std::vector<MPI_Aint> aints,
              const MPI_Datatype* types, int ntypes) {
  auto c = std::make_shared<Contents>();
  c->combiner = combiner;
  c->ints = std::move(ints);
  c->aints = std::move(aints);
  for (int i = 0; i < ntypes; ++i) {
    std::shared_ptr<Type> d = find_derived(types[i]);
    c->handles.push_back(d ? nullptr : types[i]);
    c->held.push_back(std::move(d));
  }
  find_derived(t)->contents = std::move(c);
}

/// {count, a[0..count), b[0..count)} (b may be absent).
std::vector<int> ints_of(int count, const int* a, const int* b = nullptr) {
  std::vector<int> v{count};
  if (a != nullptr) v.insert(v.end(), a, a + count);
  if (b != nullptr) v.insert(v.end(), b, b + count);
  return v;
}

/// Blocks of `count` groups of `per` blocks, saturated past the limit.
std::size_t copies_blocks(std::size_t per, int count) {
  auto n = std::size_t(std::max(1, count));
  return per > kMaxFlatEntries / n ? kMaxFlatEntries + 1 : per * n;
}

/// Throws TypeOverflow unless the size of `items` copies of `old` fits MPI_Count: checked before the
/// flattening limit (TypeBuilder::expect), whose error would otherwise hide this one.
void check_size(const Type& old, std::size_t items) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(old.size, items, &bytes) || bytes > std::size_t(kMaxTypeValue)) {
    throw TypeOverflow("the new type's size overflows MPI_Count: " + std::to_string(items) + " x " +
                       std::to_string(old.size) + " bytes");
  }
}

int publish(TypeBuilder& b, MPI_Datatype* newtype) {
  *newtype = register_type(b.build());
  return MPI_SUCCESS;
}

/// Element displacements (in items of oldtype) of `count` blocks given in items or in bytes.
template <class Disp>
int blocks(const char* fn, int count, const int* bls, int one_bl, const Disp* disps, bool bytes,
           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  check_type_count(count, fn);
  check_out(newtype, fn);
  if (bls == nullptr) check_blocklength(one_bl, fn, "blocklength");
  check_array(disps, count, fn, "array_of_displacements");
  if (bls != nullptr || one_bl < 0) check_array(bls, count, fn, "array_of_blocklengths");
  const Type& old = old_type(oldtype, fn);
  TypeBuilder b;
  if (bls == nullptr) {
    check_size(old, std::size_t(count) * std::size_t(one_bl));
    std::size_t per = TypeBuilder::blocks_of(old, std::size_t(one_bl));
    b.expect(copies_blocks(per, count));
  }
  for (int i = 0; i < count; ++i) {
    int bl = bls != nullptr ? bls[i] : one_bl;
    check_blocklength(bl, fn, at("array_of_blocklengths", i));
    MPI_Aint d = bytes ? MPI_Aint(disps[i]) : mul_or_throw(MPI_Aint(disps[i]), old.extent(), "displacement");
    b.add(old, d, std::size_t(bl));
  }
  return publish(b, newtype);
}

int vector(const char* fn, int count, int bl, MPI_Aint stride, bool bytes, MPI_Datatype oldtype,
           MPI_Datatype* newtype) {
  check_type_count(count, fn);
  check_blocklength(bl, fn, "blocklength");
  check_out(newtype, fn);
  const Type& old = old_type(oldtype, fn);
  MPI_Aint step = bytes ? stride : mul_or_throw(stride, old.extent(), "stride (stride x extent)");
  check_size(old, std::size_t(count) * std::size_t(bl));
  MPI_Aint run = 0;  // the bytes one block of bl items spans
  const bool gapless = !__builtin_mul_overflow(MPI_Aint(bl), old.extent(), &run) && step == run;
  TypeBuilder b;
  if (gapless) {
    b.add(old, 0, std::size_t(count) * std::size_t(bl));  // no gaps: one run of items
  } else {
    if (count > 0) (void)mul_or_throw(MPI_Aint(count - 1), step, "displacement");
    std::size_t per = TypeBuilder::blocks_of(old, std::size_t(bl));
    b.expect(copies_blocks(per, count));
    for (int i = 0; i < count; ++i)
      b.add(old, mul_or_throw(MPI_Aint(i), step, "displacement"), std::size_t(bl));
  }
  return publish(b, newtype);
}

const Type& any_type(MPI_Datatype dt, const char* fn) {
  return old_type(dt, fn, "datatype");
}

/// Names given to predefined types with MPI_Type_set_name (their Type objects are immutable).
std::unordered_map<const void*, std::string>& predefined_names() {
  static std::unordered_map<const void*, std::string> names;
  return names;
}

/// Runs a constructor's body: a type too large to flatten is MPI_ERR_NO_MEM naming the function, one
/// whose size, extent or bounds would not fit 64 bits MPI_ERR_VALUE_TOO_LARGE (the standard's class for
/// a value an output cannot hold; no handle is returned, *newtype is left as it was).
template <class Body>
int constructor(const char* fn, const Body& body) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    try {
      return body();
    } catch (const TypeTooLarge& e) {
      fail(MPI_ERR_NO_MEM, fn, e.what());
    } catch (const TypeOverflow& e) {
      fail(MPI_ERR_VALUE_TOO_LARGE, fn, e.what());
    }
  });
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return constructor("MPI_Type_contiguous", [&] {
    int rc = vector("MPI_Type_contiguous", count, 1, 1, false, oldtype, newtype);
    describe(*newtype, MPI_COMBINER_CONTIGUOUS, {count}, {}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_contiguous)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return constructor("MPI_Type_vector", [&] {
    int rc = vector("MPI_Type_vector", count, blocklength, stride, false, oldtype, newtype);
    describe(*newtype, MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_vector)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  return constructor("MPI_Type_create_hvector", [&] {
    int rc = vector("MPI_Type_create_hvector", count, blocklength, stride, true, oldtype, newtype);
    describe(*newtype, MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_hvector)

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return constructor("MPI_Type_indexed", [&] {
    int rc = blocks("MPI_Type_indexed", count, array_of_blocklengths, -1, array_of_displacements, false,
                    oldtype, newtype);
    describe(*newtype, MPI_COMBINER_INDEXED, ints_of(count, array_of_blocklengths, array_of_displacements),
             {}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_indexed)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  return constructor("MPI_Type_create_hindexed", [&] {
    int rc = blocks("MPI_Type_create_hindexed", count, array_of_blocklengths, -1, array_of_displacements,
                    true, oldtype, newtype);
    describe(*newtype, MPI_COMBINER_HINDEXED, ints_of(count, array_of_blocklengths),
             {array_of_displacements, array_of_displacements + count}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return constructor("MPI_Type_create_indexed_block", [&] {
    int rc = blocks("MPI_Type_create_indexed_block", count, nullptr, blocklength, array_of_displacements,
                    false, oldtype, newtype);
    std::vector<int> ints{count, blocklength};
    ints.insert(ints.end(), array_of_displacements, array_of_displacements + count);
    describe(*newtype, MPI_COMBINER_INDEXED_BLOCK, std::move(ints), {}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                               MPI_Datatype* newtype) {
  return constructor("MPI_Type_create_hindexed_block", [&] {
    int rc = blocks("MPI_Type_create_hindexed_block", count, nullptr, blocklength, array_of_displacements,
                    true, oldtype, newtype);
    describe(*newtype, MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength},
             {array_of_displacements, array_of_displacements + count}, &oldtype, 1);
    return rc;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_struct";
  return constructor(fn, [&] {
    check_type_count(count, fn);
    check_out(newtype, fn);
    check_array(array_of_blocklengths, count, fn, "array_of_blocklengths");
    check_array(array_of_displacements, count, fn, "array_of_displacements");
    check_array(array_of_types, count, fn, "array_of_types");
    TypeBuilder b;
    for (int i = 0; i < count; ++i) {
      check_blocklength(array_of_blocklengths[i], fn, at("array_of_blocklengths", i));
      const Type& old = old_type(array_of_types[i], fn, at("array_of_types", i).c_str());
      b.add(old, array_of_displacements[i], std::size_t(array_of_blocklengths[i]));
    }
    publish(b, newtype);
    describe(*newtype, MPI_COMBINER_STRUCT, ints_of(count, array_of_blocklengths),
             {array_of_displacements, array_of_displacements + count}, array_of_types, count);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_struct)

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                         const int array_of_starts[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_subarray";
  return constructor(fn, [&] {
    if (ndims <= 0) fail(MPI_ERR_DIMS, fn, "invalid ndims " + std::to_string(ndims) + " (argument ndims)");
    check_out(newtype, fn);
    check_array(array_of_sizes, ndims, fn, "array_of_sizes");
    check_array(array_of_subsizes, ndims, fn, "array_of_subsizes");
    check_array(array_of_starts, ndims, fn, "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
      fail(MPI_ERR_ARG, fn, "invalid order " + std::to_string(order) + " (MPI_ORDER_C or MPI_ORDER_FORTRAN)");
    }
    const Type& old = old_type(oldtype, fn);
    // dims[0] varies fastest in memory.
    auto n = std::size_t(ndims);
    std::vector<int> size(n), sub(n), start(n);
    for (int i = 0; i < ndims; ++i) {
      int k = order == MPI_ORDER_C ? ndims - 1 - i : i;
      size[std::size_t(i)] = array_of_sizes[k];
      sub[std::size_t(i)] = array_of_subsizes[k];
      start[std::size_t(i)] = array_of_starts[k];
      if (array_of_sizes[k] <= 0 || array_of_subsizes[k] <= 0 || array_of_subsizes[k] > array_of_sizes[k] ||
          array_of_starts[k] < 0 || array_of_starts[k] > array_of_sizes[k] - array_of_subsizes[k]) {
        fail(MPI_ERR_ARG, fn,
             "dimension " + std::to_string(k) + ": size " + std::to_string(array_of_sizes[k]) + ", subsize " +
                 std::to_string(array_of_subsizes[k]) + ", start " + std::to_string(array_of_starts[k]) +
                 " (need 0 < subsize <= size, 0 <= start <= size - subsize)");
      }
    }
    MPI_Aint ext = old.extent();
    MPI_Aint total = 1;
    std::size_t items = 1;
    for (int d = 0; d < ndims; ++d) {
      total = mul_or_throw(total, size[std::size_t(d)], "element count (product of array_of_sizes)");
      items *= std::size_t(sub[std::size_t(d)]);  // <= total
    }
    const MPI_Aint ub = mul_or_throw(total, ext, "extent (product of array_of_sizes x extent)");
    check_size(old, items);
    std::vector<int> idx(std::size_t(ndims), 0);
    TypeBuilder b;
    std::size_t rows = 1;
    for (int d = 1; d < ndims; ++d)
      rows = std::min(rows * std::size_t(sub[std::size_t(d)]), kMaxFlatEntries + 1);
    std::size_t per = TypeBuilder::blocks_of(old, std::size_t(sub[0]));
    b.expect(per > kMaxFlatEntries / rows ? kMaxFlatEntries + 1 : per * rows);
    for (;;) {
      MPI_Aint offset = 0;
      MPI_Aint scale = 1;
      for (int d = 0; d < ndims; ++d) {
        offset = add_or_throw(
            offset,
            mul_or_throw(MPI_Aint(start[std::size_t(d)]) + idx[std::size_t(d)], scale, "displacement"),
            "displacement");
        scale = mul_or_throw(scale, size[std::size_t(d)], "element count (product of array_of_sizes)");
      }
      b.add(old, mul_or_throw(offset, ext, "displacement"), std::size_t(sub[0]));
      int d = 1;
      while (d < ndims && ++idx[std::size_t(d)] == sub[std::size_t(d)]) idx[std::size_t(d++)] = 0;
      if (d >= ndims) break;
    }
    auto t = b.build();
    t->lb = 0;
    t->ub = ub;
    t->explicit_lb = t->explicit_ub = true;
    t->finish();
    *newtype = register_type(std::move(t));
    std::vector<int> ints{ndims};
    for (const int* a : {array_of_sizes, array_of_subsizes, array_of_starts})
      ints.insert(ints.end(), a, a + ndims);
    ints.push_back(order);
    describe(*newtype, MPI_COMBINER_SUBARRAY, std::move(ints), {}, &oldtype, 1);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_subarray)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_darray";
  return constructor(fn, [&] {
    if (ndims <= 0) fail(MPI_ERR_DIMS, fn, "invalid ndims " + std::to_string(ndims) + " (argument ndims)");
    if (size <= 0 || rank < 0 || rank >= size) {
      fail(MPI_ERR_RANK, fn,
           "invalid rank " + std::to_string(rank) + " of size " + std::to_string(size) +
               " (arguments rank, size)");
    }
    check_out(newtype, fn);
    for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
      check_array(a, ndims, fn, "array_of_gsizes, array_of_distribs, array_of_dargs or array_of_psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
      fail(MPI_ERR_ARG, fn, "invalid order " + std::to_string(order) + " (MPI_ORDER_C or MPI_ORDER_FORTRAN)");
    }
    const Type& old = old_type(oldtype, fn);
    auto n = std::size_t(ndims);
    std::vector<DarrayDim> dims(n);  // in the arguments' order, then fastest first
    long long procs = 1;
    for (int i = 0; i < ndims; ++i) {
      DarrayDim& d = dims[std::size_t(i)];
      d.gsize = array_of_gsizes[i];
      d.distrib = array_of_distribs[i];
      d.psize = array_of_psizes[i];
      const int darg = array_of_dargs[i];
      const std::string dim = "dimension " + std::to_string(i) + ": ";
      if (d.gsize <= 0 || d.psize <= 0) {
        fail(MPI_ERR_ARG, fn,
             dim + "gsize " + std::to_string(d.gsize) + " and psize " + std::to_string(d.psize) +
                 " must be positive (arguments array_of_gsizes, array_of_psizes)");
      }
      if (procs <= size) procs *= d.psize;  // at most 2^62; past size it stays past it
      if (d.distrib == MPI_DISTRIBUTE_NONE) {
        if (d.psize != 1) {
          fail(MPI_ERR_ARG, fn,
               dim + "MPI_DISTRIBUTE_NONE needs psize 1, not " + std::to_string(d.psize) +
                   " (argument array_of_psizes)");
        }
      } else if (d.distrib == MPI_DISTRIBUTE_BLOCK) {
        long long dflt = (static_cast<long long>(d.gsize) + d.psize - 1) / d.psize;
        d.darg = darg == MPI_DISTRIBUTE_DFLT_DARG ? int(dflt) : darg;
        if (d.darg <= 0 || static_cast<long long>(d.darg) * d.psize < d.gsize) {
          fail(MPI_ERR_ARG, fn,
               dim + "block size " + std::to_string(darg) + " leaves elements of " + std::to_string(d.gsize) +
                   " to no process of " + std::to_string(d.psize) + " (argument array_of_dargs)");
        }
      } else if (d.distrib == MPI_DISTRIBUTE_CYCLIC) {
        d.darg = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (d.darg <= 0) {
          fail(MPI_ERR_ARG, fn,
               dim + "invalid cyclic block size " + std::to_string(darg) + " (argument array_of_dargs)");
        }
      } else {
        fail(MPI_ERR_ARG, fn,
             dim + "invalid distribution " + std::to_string(d.distrib) +
                 " (argument array_of_distribs: MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE)");
      }
    }
    if (procs != size) {
      fail(MPI_ERR_ARG, fn,
           "the process grid (array_of_psizes) has " + std::to_string(procs) + " processes, size is " +
               std::to_string(size));
    }
    // The process grid is row-major whatever the array's order: the last dimension varies fastest.
    for (int i = ndims - 1, rest = rank; i >= 0; --i) {
      dims[std::size_t(i)].coord = rest % dims[std::size_t(i)].psize;
      rest /= dims[std::size_t(i)].psize;
    }
    if (order == MPI_ORDER_C) std::reverse(dims.begin(), dims.end());
    std::size_t items = 1;
    for (const DarrayDim& d : dims) {
      std::size_t mine = 0;
      for (const auto& [first, last] : darray_runs(d)) mine += std::size_t(last - first);
      if (__builtin_mul_overflow(items, mine, &items)) items = std::size_t(kMaxTypeValue) + 1;
    }
    check_size(old, items);
    *newtype = register_type(build_darray(dims, old));
    std::vector<int> ints{size, rank, ndims};
    for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
      ints.insert(ints.end(), a, a + ndims);
    ints.push_back(order);
    describe(*newtype, MPI_COMBINER_DARRAY, std::move(ints), {}, &oldtype, 1);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_darray)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_resized";
  return constructor(fn, [&] {
    check_out(newtype, fn);
    auto t = std::make_shared<Type>(old_type(oldtype, fn));
    t->predefined = false;
    t->committed = false;
    t->name.clear();
    t->lb = lb;
    t->ub = add_or_throw(lb, extent, "upper bound (lb + extent)");
    t->explicit_lb = t->explicit_ub = true;
    t->finish();
    *newtype = register_type(std::move(t));
    describe(*newtype, MPI_COMBINER_RESIZED, {}, {lb, extent}, &oldtype, 1);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_create_resized)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_dup";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_out(newtype, fn);
    auto t = std::make_shared<Type>(old_type(oldtype, fn));
    t->predefined = false;  // a dup of a predefined type is committed (as its original) and freeable
    t->name.clear();
    MPI_Datatype dup = register_type(std::move(t));
    describe(dup, MPI_COMBINER_DUP, {}, {}, &oldtype, 1);
    int rc = copy_attrs(AttrKind::kType, static_cast<void*>(oldtype), type_attrs(oldtype), type_attrs(dup));
    if (rc != MPI_SUCCESS) {
      delete_attrs(AttrKind::kType, static_cast<void*>(dup), type_attrs(dup));
      drop_type_attrs(dup);
      unregister_type(dup);
      *newtype = MPI_DATATYPE_NULL;  // as MPICH answers (and MPI_Comm_dup in both libraries)
      fail(rc, fn, "an attribute's copy callback returned error code " + std::to_string(rc));
    }
    *newtype = dup;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_dup)

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  return guarded("MPI_Type_commit", MPI_COMM_WORLD, [&] {
    if (datatype == nullptr) fail(MPI_ERR_ARG, "MPI_Type_commit", "datatype is NULL (argument datatype)");
    any_type(*datatype, "MPI_Type_commit");
    if (auto t = find_derived(*datatype)) t->committed = true;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  return guarded("MPI_Type_free", MPI_COMM_WORLD, [&] {
    if (datatype == nullptr) fail(MPI_ERR_ARG, "MPI_Type_free", "datatype is NULL (argument datatype)");
    const Type& t = any_type(*datatype, "MPI_Type_free");
    if (t.predefined) {
      fail(MPI_ERR_TYPE, "MPI_Type_free",
           "cannot free the predefined datatype " + t.name + " (argument datatype)");
    }
    int rc = delete_attrs(AttrKind::kType, static_cast<void*>(*datatype), type_attrs(*datatype));
    if (rc != MPI_SUCCESS) {
      fail(rc, "MPI_Type_free", "an attribute's delete callback returned error code " + std::to_string(rc));
    }
    drop_type_attrs(*datatype);
    unregister_type(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_free)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return guarded("MPI_Type_size_x", MPI_COMM_WORLD, [&] {
    if (size == nullptr) fail(MPI_ERR_ARG, "MPI_Type_size_x", "size is NULL (argument size)");
    *size = MPI_Count(any_type(datatype, "MPI_Type_size_x").size);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_size_x)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return guarded("MPI_Type_size", MPI_COMM_WORLD, [&] {
    if (size == nullptr) fail(MPI_ERR_ARG, "MPI_Type_size", "size is NULL (argument size)");
    std::size_t s = any_type(datatype, "MPI_Type_size").size;
    *size = s > std::size_t(INT_MAX) ? MPI_UNDEFINED : int(s);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_size)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return guarded("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
    if (lb == nullptr || extent == nullptr) fail(MPI_ERR_ARG, "MPI_Type_get_extent", "lb or extent is NULL");
    const Type& t = any_type(datatype, "MPI_Type_get_extent");
    *lb = t.lb;
    *extent = t.extent();
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_extent)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return guarded("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
    if (true_lb == nullptr || true_extent == nullptr) {
      fail(MPI_ERR_ARG, "MPI_Type_get_true_extent", "true_lb or true_extent is NULL");
    }
    const Type& t = any_type(datatype, "MPI_Type_get_true_extent");
    *true_lb = t.true_lb;
    *true_extent = t.true_ub - t.true_lb;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_true_extent)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return guarded("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
    if (type_name == nullptr || resultlen == nullptr) {
      fail(MPI_ERR_ARG, "MPI_Type_get_name", "type_name or resultlen is NULL");
    }
    const Type& t = any_type(datatype, "MPI_Type_get_name");
    auto renamed = t.predefined ? predefined_names().find(datatype) : predefined_names().end();
    const std::string& name = renamed != predefined_names().end() ? renamed->second : t.name;
    std::size_t n = std::min(name.size(), std::size_t(MPI_MAX_OBJECT_NAME - 1));
    std::memcpy(type_name, name.data(), n);
    type_name[n] = '\0';
    *resultlen = int(n);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_get_name)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return guarded("MPI_Type_set_name", MPI_COMM_WORLD, [&] {
    if (type_name == nullptr)
      fail(MPI_ERR_ARG, "MPI_Type_set_name", "type_name is NULL (argument type_name)");
    const Type& t = any_type(datatype, "MPI_Type_set_name");
    std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
    if (t.predefined) {
      predefined_names()[datatype] = std::move(name);
    } else {
      find_derived(datatype)->name = std::move(name);
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Type_set_name)
