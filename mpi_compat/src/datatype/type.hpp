// SPDX-License-Identifier: MIT
// A datatype as libtakyon_mpi keeps it: one item flattened into the byte blocks it covers (in
// typemap order, adjacent blocks merged) plus its basic elements (for MPI_Get_elements), and its
// bounds. Predefined types have one static Type each; derived ones live on the heap, owned by the
// registry (the user's handle) and by the requests that use them (shared_ptr), so MPI_Type_free
// while a request is in flight is safe. A handle is valid only while it is in the registry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi.h"

namespace takyon::mpi {

/// `len` bytes at `disp` from the item's origin (the user's buffer address).
struct Block {
  MPI_Aint disp = 0;
  std::size_t len = 0;
};

/// `count` consecutive basic elements of `size` bytes each (typemap order), all of the predefined
/// type `basic` (what a conversion such as external32 needs to know of them).
struct ElemRun {
  std::size_t size = 0;
  std::size_t count = 0;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
};

struct Type;

/// How a derived type was made, for MPI_Type_get_envelope / MPI_Type_get_contents.
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> handles;              ///< the input types: predefined handles, else nullptr
  std::vector<std::shared_ptr<const Type>> held;  ///< the derived input types (kept alive), else nullptr
};

struct Type {
  std::vector<Block> blocks;
  std::vector<ElemRun> elems;
  std::size_t size = 0;      ///< data bytes per item
  std::size_t elements = 0;  ///< basic elements per item
  MPI_Aint lb = 0;
  MPI_Aint ub = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_ub = 0;
  std::size_t align = 1;
  bool explicit_lb = false;  ///< bounds set by MPI_Type_create_resized (they win over the data's)
  bool explicit_ub = false;
  bool committed = false;
  bool predefined = false;
  bool contiguous = false;  ///< one block at lb of extent bytes: moves in place
  /// The most items one buffer may hold: more would overflow MPI_Count in their data bytes or MPI_Aint
  /// in their span ((count - 1) extents plus the true extent). Set by finish().
  std::size_t max_items = 0;
  std::string name;
  std::shared_ptr<const Contents> contents;  ///< derived types: the constructor and its arguments

  [[nodiscard]] MPI_Aint extent() const { return ub - lb; }
  /// Checks that the extent and true extent fit MPI_Aint (TypeOverflow), then computes `contiguous`
  /// and `max_items` (after blocks and bounds are final).
  void finish();
};

/// Blocks plus element runs one flattened type may hold (16 bytes each: 1 GiB), so that a huge
/// irregular type fails cleanly instead of exhausting memory.
inline constexpr std::size_t kMaxFlatEntries = std::size_t(1) << 26;

/// Thrown by TypeBuilder::add when a type would exceed kMaxFlatEntries.
class TypeTooLarge : public std::length_error {
 public:
  using std::length_error::length_error;
};

/// Thrown when a type's size (MPI_Count), extent, bounds or true extent (MPI_Aint) would not fit in 64
/// signed bits: the message names the quantity and the operands.
class TypeOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

/// The largest size, extent or bound a type may have (MPI_Count and MPI_Aint are 64-bit).
inline constexpr MPI_Aint kMaxTypeValue = std::numeric_limits<MPI_Aint>::max();

/// a + b, a - b and a * b for the bounds of a type; throw TypeOverflow naming `what` and the operands.
MPI_Aint add_or_throw(MPI_Aint a, MPI_Aint b, const char* what);
MPI_Aint sub_or_throw(MPI_Aint a, MPI_Aint b, const char* what);
MPI_Aint mul_or_throw(MPI_Aint a, MPI_Aint b, const char* what);

/// Builds a derived type from copies of other types (every MPI_Type_* constructor).
class TypeBuilder {
 public:
  /// Appends `n` items of `old`, item i at `disp` + i * extent(old).
  void add(const Type& old, MPI_Aint disp, std::size_t n);
  /// Throws TypeTooLarge unless `entries` more blocks fit (constructors check their total up front).
  void expect(std::size_t entries) const;
  /// Blocks that `n` copies of `old` add at most.
  static std::size_t blocks_of(const Type& old, std::size_t n);
  /// The type; its extent is rounded up to the alignment unless an upper bound was explicit.
  std::shared_ptr<Type> build();

 private:
  void push_block(MPI_Aint disp, std::size_t len);
  void push_elems(const ElemRun& run);

  std::shared_ptr<Type> t_ = std::make_shared<Type>();
  bool any_ = false;       ///< some item added (bounds known)
  bool any_data_ = false;  ///< some data byte added (true bounds known)
  MPI_Aint lb_ = 0, ub_ = 0, xlb_ = 0, xub_ = 0;
};

/// The type behind a handle: a predefined one, or a derived one still in the registry; nullptr if
/// neither (MPI_DATATYPE_NULL, freed, garbage: never dereferenced).
const Type* find_type(MPI_Datatype dt);

namespace detail {
/// Predefined handles are kPredefinedBase + index (datatype/predefined.cpp); the table has one Type per
/// index.
inline constexpr std::intptr_t kPredefinedBase = 0x200;
inline constexpr std::size_t kPredefinedSlots = 256;
extern const Type* const g_predefined_types;
}  // namespace detail

/// The Type of a predefined handle, or nullptr (a derived handle, or none): an index, no lookup, no
/// call (the latency-bound argument checks use it; find_type() covers derived handles too).
inline const Type* find_predefined(MPI_Datatype dt) {
  auto v = reinterpret_cast<std::intptr_t>(dt);
  if (v <= detail::kPredefinedBase ||
      v >= detail::kPredefinedBase + std::intptr_t(detail::kPredefinedSlots)) {
    return nullptr;
  }
  const Type& t = detail::g_predefined_types[std::size_t(v - detail::kPredefinedBase)];
  return t.predefined ? &t : nullptr;
}
/// The owning pointer of a derived type (nullptr for predefined or invalid handles).
std::shared_ptr<Type> find_derived(MPI_Datatype dt);
/// Registers a new derived type and returns its handle.
MPI_Datatype register_type(std::shared_ptr<Type> t);
/// Removes a derived type's handle from the registry (requests that hold it keep it alive).
bool unregister_type(MPI_Datatype dt);
/// find_type(), and also a freed derived type that some operation still holds (hold_type): for the
/// internal steps of that operation, never for checking a user's argument.
const Type* find_type_in_use(MPI_Datatype dt);
/// How many derived types are registered (tests).
std::size_t registered_types();

}  // namespace takyon::mpi
