// SPDX-License-Identifier: MIT
// Datatype queries for the rest of the library (see datatype.hpp), on the Type objects of type.hpp.
#include "datatype/datatype.hpp"

#include <string>
#include <unordered_map>

#include "datatype/pack.hpp"
#include "datatype/type.hpp"
#include "errors.hpp"

namespace takyon::mpi {
namespace {

const Type& valid(MPI_Datatype dt, const char* fn, const char* arg) {
  const Type* t = find_type(dt);
  if (t == nullptr) {
    fail(MPI_ERR_TYPE, fn,
         dt == MPI_DATATYPE_NULL ? std::string("invalid datatype MPI_DATATYPE_NULL (argument ") + arg + ")"
                                 : std::string("invalid datatype (argument ") + arg +
                                       "): not a predefined datatype nor a live derived one (freed?)");
  }
  return *t;
}

/// Attribute lists by handle: predefined types have no object of their own to keep one in.
std::unordered_map<const void*, AttrList>& attr_lists() {
  static std::unordered_map<const void*, AttrList> lists;
  return lists;
}

/// For handles already checked by the caller (maybe freed since, by a program that may: the operation
/// that uses it holds it).
const Type& get(MPI_Datatype dt) {
  const Type* t = find_type_in_use(dt);
  if (t == nullptr) fail(MPI_ERR_TYPE, "libtakyon_mpi", "invalid datatype");
  return *t;
}

}  // namespace

void check_type(MPI_Datatype dt, const char* fn) {
  const Type& t = valid(dt, fn, "datatype");
  if (!t.committed) fail(MPI_ERR_TYPE, fn, "datatype is not committed (MPI_Type_commit) (argument datatype)");
}

void check_any_type(MPI_Datatype dt, const char* fn, const char* arg) {
  valid(dt, fn, arg);
}

std::size_t type_size(MPI_Datatype dt) {
  return get(dt).size;
}

bool items_fit(MPI_Datatype dt, std::size_t count) noexcept {
  return count <= type_max_items(dt);
}

std::size_t type_max_items(MPI_Datatype dt) noexcept {
  const Type* t = find_type_in_use(dt);
  return t != nullptr ? t->max_items : 0;
}

std::size_t items_bytes(MPI_Datatype dt, std::size_t count, const char* fn, const char* count_arg) {
  const Type& t = get(dt);
  if (count > t.max_items) {
    fail(MPI_ERR_COUNT, fn,
         std::to_string(count) + " items of a datatype of size " + std::to_string(t.size) +
             " bytes and extent " + std::to_string(t.extent()) +
             " overflow 64 bits: one buffer holds at most " + std::to_string(t.max_items) + " (argument " +
             count_arg + ")");
  }
  return count * t.size;
}

MPI_Aint type_lb(MPI_Datatype dt) {
  return get(dt).lb;
}

MPI_Aint type_extent(MPI_Datatype dt) {
  return get(dt).extent();
}

MPI_Aint type_true_lb(MPI_Datatype dt) {
  return get(dt).true_lb;
}

MPI_Aint type_true_extent(MPI_Datatype dt) {
  const Type& t = get(dt);
  return t.true_ub - t.true_lb;
}

bool type_is_contiguous(MPI_Datatype dt) {
  return get(dt).contiguous;
}

void pack(const void* buf, std::size_t count, MPI_Datatype dt, void* out) {
  pack_items(buf, count, get(dt), out);
}

void unpack(const void* in, std::size_t bytes, std::size_t count, MPI_Datatype dt, void* buf) {
  unpack_items(in, bytes, count, get(dt), buf);
}

std::shared_ptr<const void> hold_type(MPI_Datatype dt) {
  if (find_predefined(dt) != nullptr) return nullptr;  // an index: every collective step asks
  return find_derived(dt);
}

AttrList& type_attrs(MPI_Datatype dt) {
  return attr_lists()[static_cast<const void*>(dt)];
}

void drop_type_attrs(MPI_Datatype dt) {
  attr_lists().erase(static_cast<const void*>(dt));
}

long long type_elements_in(MPI_Datatype dt, std::size_t bytes) {
  return elements_in(get(dt), bytes);
}

}  // namespace takyon::mpi
