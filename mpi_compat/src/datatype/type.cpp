// SPDX-License-Identifier: MIT
// Type objects, their construction by flattening, the registry of derived handles, and packing
// (see type.hpp, pack.hpp).
#include "datatype/type.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

#include "datatype/pack.hpp"
#include "datatype/predefined.hpp"

namespace takyon::mpi {
namespace {

constexpr std::intptr_t kBase = detail::kPredefinedBase;
constexpr std::size_t kSlots = detail::kPredefinedSlots;

std::array<Type, kSlots> build_predefined() {
  std::array<Type, kSlots> table{};
  for (std::size_t i = 1; i < kSlots; ++i) {
    const auto handle = reinterpret_cast<MPI_Datatype>(kBase + std::intptr_t(i));
    const BasicType& b = basic_type(handle);
    if (b.size == 0) continue;
    Type& t = table[i];
    t.predefined = true;
    t.committed = true;
    t.name = b.name;
    t.size = b.size;
    t.elements = std::size_t(b.elements);
    t.align = b.align;
    t.ub = MPI_Aint(b.extent);
    if (b.elements == 2) {
      std::size_t second = b.size - b.first;
      t.blocks.push_back({0, b.first});
      if (b.second_offset == b.first) {
        t.blocks[0].len = b.size;
      } else {
        t.blocks.push_back({MPI_Aint(b.second_offset), second});
      }
      if (b.first_type == b.second_type) {
        t.elems.push_back({b.first, 2, b.first_type});
      } else {
        t.elems.push_back({b.first, 1, b.first_type});
        t.elems.push_back({second, 1, b.second_type});
      }
      t.true_ub = MPI_Aint(b.second_offset + second);
    } else {
      t.blocks.push_back({0, b.size});
      t.elems.push_back({b.size, 1, handle});
      t.true_ub = MPI_Aint(b.size);
    }
    t.finish();
  }
  return table;
}

const std::array<Type, kSlots> kPredefined = build_predefined();

/// Derived handles: the key is the handle value, so a foreign pointer is looked up, never read.
std::unordered_map<const void*, std::shared_ptr<Type>>& registry() {
  static std::unordered_map<const void*, std::shared_ptr<Type>> r;
  return r;
}

/// Freed handles whose types a pending operation still holds (hold_type): the operation's steps
/// still name them by handle. A live type's address cannot be another's handle, so an entry can only
/// be found by the operation that holds it; expired entries are dropped at the next MPI_Type_free.
std::unordered_map<const void*, std::weak_ptr<Type>>& retired() {
  static std::unordered_map<const void*, std::weak_ptr<Type>> r;
  return r;
}

}  // namespace

const Type* const detail::g_predefined_types = kPredefined.data();

MPI_Aint add_or_throw(MPI_Aint a, MPI_Aint b, const char* what) {
  MPI_Aint r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw TypeOverflow(std::string("the new type's ") + what + " overflows MPI_Aint: " + std::to_string(a) +
                       " + " + std::to_string(b));
  }
  return r;
}

MPI_Aint sub_or_throw(MPI_Aint a, MPI_Aint b, const char* what) {
  MPI_Aint r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    throw TypeOverflow(std::string("the new type's ") + what + " overflows MPI_Aint: " + std::to_string(a) +
                       " - " + std::to_string(b));
  }
  return r;
}

MPI_Aint mul_or_throw(MPI_Aint a, MPI_Aint b, const char* what) {
  MPI_Aint r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw TypeOverflow(std::string("the new type's ") + what + " overflows MPI_Aint: " + std::to_string(a) +
                       " x " + std::to_string(b));
  }
  return r;
}

namespace {

/// The most items of `t` whose data bytes fit MPI_Count and whose span (from the first item's true
/// lower bound to the last item's true upper bound) fits MPI_Aint. Unsigned arithmetic: the bounds
/// themselves may be near the limits.
std::size_t max_items_of(const Type& t) {
  using U = std::uint64_t;
  const U max = U(kMaxTypeValue);
  U n = max;  // more than any count (an int or an MPI_Count)
  if (t.size != 0) n = std::min(n, max / U(t.size));
  const MPI_Aint ext = t.extent();  // fits: finish() checked it
  // Item i covers [i * ext + true_lb, i * ext + true_ub): for i up to n - 1, i * ext and both ends
  // stay in MPI_Aint (packing computes them so). The headroom is at most 2^63.
  if (ext > 0) {
    const U headroom = max - U(std::max<MPI_Aint>(t.true_ub, 0));
    n = std::min(n, headroom / U(ext) + 1);
  } else if (ext < 0) {
    const U headroom = U(std::min<MPI_Aint>(t.true_lb, 0)) - U(std::numeric_limits<MPI_Aint>::min());
    n = std::min(n, headroom / (U(0) - U(ext)) + 1);
  }
  return std::size_t(n);
}

}  // namespace

void Type::finish() {
  (void)sub_or_throw(ub, lb, "extent (upper bound - lower bound)");
  (void)sub_or_throw(true_ub, true_lb, "true extent");
  contiguous = size != 0 && blocks.size() == 1 && blocks[0].disp == lb && MPI_Aint(blocks[0].len) == extent();
  if (size == 0) contiguous = extent() == 0;
  max_items = max_items_of(*this);
}

void TypeBuilder::push_block(MPI_Aint disp, std::size_t len) {
  if (len == 0) return;
  std::vector<Block>& b = t_->blocks;
  if (!b.empty() && b.back().disp + MPI_Aint(b.back().len) == disp) {
    b.back().len += len;
  } else {
    b.push_back({disp, len});
  }
}

void TypeBuilder::push_elems(const ElemRun& run) {
  if (run.count == 0) return;
  std::vector<ElemRun>& e = t_->elems;
  if (!e.empty() && e.back().size == run.size && e.back().basic == run.basic) {
    e.back().count += run.count;
  } else {
    e.push_back(run);
  }
}

std::size_t TypeBuilder::blocks_of(const Type& old, std::size_t n) {
  if (n == 0) return 0;
  if (old.contiguous && old.extent() > 0) return 1;  // the copies merge into one block
  return old.blocks.size() > kMaxFlatEntries / n ? kMaxFlatEntries + 1 : old.blocks.size() * n;
}

void TypeBuilder::expect(std::size_t entries) const {
  if (entries > kMaxFlatEntries || t_->blocks.size() + t_->elems.size() + entries > kMaxFlatEntries) {
    throw TypeTooLarge("the flattened type would hold more than " + std::to_string(kMaxFlatEntries) +
                       " blocks (a huge irregular layout; libtakyon_mpi flattens every type)");
  }
}

void TypeBuilder::add(const Type& old, MPI_Aint disp, std::size_t n) {
  // Like Open MPI, copies of an empty type without explicit bounds leave no trace (not even bounds).
  if (n == 0 || (old.size == 0 && !old.explicit_lb && !old.explicit_ub)) return;
  MPI_Aint ext = old.extent();
  if (n - 1 > std::size_t(kMaxTypeValue)) {
    throw TypeOverflow("the new type's item count " + std::to_string(n) + " overflows MPI_Aint");
  }
  // Every bound and block of the copies lies between those of the first and the last copy, so these
  // checks cover the arithmetic below too.
  MPI_Aint last =
      add_or_throw(disp, mul_or_throw(MPI_Aint(n - 1), ext, "displacement (count x extent)"), "displacement");
  MPI_Aint lo = std::min(disp, last);
  MPI_Aint hi = std::max(disp, last);
  const MPI_Aint lo_lb = add_or_throw(lo, old.lb, "lower bound");
  const MPI_Aint hi_ub = add_or_throw(hi, old.ub, "upper bound");
  const MPI_Aint lo_true = add_or_throw(lo, old.true_lb, "true lower bound");
  const MPI_Aint hi_true = add_or_throw(hi, old.true_ub, "true upper bound");
  std::size_t bytes = 0;
  std::size_t size = 0;
  if (__builtin_mul_overflow(old.size, n, &bytes) || __builtin_add_overflow(t_->size, bytes, &size) ||
      size > std::size_t(kMaxTypeValue)) {
    throw TypeOverflow("the new type's size overflows MPI_Count: " + std::to_string(t_->size) + " + " +
                       std::to_string(n) + " x " + std::to_string(old.size) + " bytes");
  }
  auto widen = [](bool& any, MPI_Aint& a, MPI_Aint& b, MPI_Aint lo_v, MPI_Aint hi_v) {
    if (!any) {
      a = lo_v;
      b = hi_v;
      any = true;
    } else {
      a = std::min(a, lo_v);
      b = std::max(b, hi_v);
    }
  };
  expect(blocks_of(old, n) + (old.elems.size() == 1 ? 1 : old.elems.size() * n));
  bool natural = any_;
  widen(natural, lb_, ub_, lo_lb, hi_ub);
  if (old.explicit_lb) {
    xlb_ = t_->explicit_lb ? std::min(xlb_, lo_lb) : lo_lb;
    t_->explicit_lb = true;
  }
  if (old.explicit_ub) {
    xub_ = t_->explicit_ub ? std::max(xub_, hi_ub) : hi_ub;
    t_->explicit_ub = true;
  }
  any_ = true;
  if (old.size != 0) {
    bool data = any_data_;
    widen(data, t_->true_lb, t_->true_ub, lo_true, hi_true);
    any_data_ = true;
  }
  t_->align = std::max(t_->align, old.align);
  t_->size = size;
  t_->elements += old.elements * n;  // at most one element per byte: bounded by the size
  if (old.contiguous && ext > 0) {
    push_block(disp + old.lb, old.size * n);  // adjacent copies: one block
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      MPI_Aint base = disp + MPI_Aint(i) * ext;
      for (const Block& b : old.blocks) push_block(base + b.disp, b.len);
    }
  }
  if (old.elems.size() == 1) {
    push_elems({old.elems[0].size, old.elems[0].count * n, old.elems[0].basic});
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      for (const ElemRun& r : old.elems) push_elems(r);
    }
  }
}

std::shared_ptr<Type> TypeBuilder::build() {
  Type& t = *t_;
  t.lb = t.explicit_lb ? xlb_ : lb_;
  t.ub = t.explicit_ub ? xub_ : ub_;
  if (!t.explicit_ub && t.align > 1) {
    MPI_Aint ext = sub_or_throw(t.ub, t.lb, "extent (upper bound - lower bound)");
    MPI_Aint a = MPI_Aint(t.align);
    MPI_Aint rest = ((ext % a) + a) % a;
    if (rest != 0) t.ub = add_or_throw(t.ub, a - rest, "upper bound (rounded up to the alignment)");
  }
  if (!any_data_) {
    t.true_lb = 0;
    t.true_ub = 0;
  }
  t.finish();
  return t_;
}

const Type* find_type(MPI_Datatype dt) {
  auto v = reinterpret_cast<std::intptr_t>(dt);
  if (v > kBase && v < kBase + std::intptr_t(kSlots)) return find_predefined(dt);
  auto& reg = registry();
  auto it = reg.find(static_cast<const void*>(dt));
  return it == reg.end() ? nullptr : it->second.get();
}

std::shared_ptr<Type> find_derived(MPI_Datatype dt) {
  auto& reg = registry();
  auto it = reg.find(static_cast<const void*>(dt));
  return it == reg.end() ? nullptr : it->second;
}

MPI_Datatype register_type(std::shared_ptr<Type> t) {
  auto handle = reinterpret_cast<MPI_Datatype>(t.get());
  registry().emplace(static_cast<const void*>(t.get()), std::move(t));
  return handle;
}

bool unregister_type(MPI_Datatype dt) {
  auto& reg = registry();
  auto it = reg.find(static_cast<const void*>(dt));
  if (it == reg.end()) return false;
  auto& old = retired();
  std::erase_if(old, [](const auto& e) { return e.second.expired(); });
  if (it->second.use_count() > 1) old.emplace(it->first, it->second);
  reg.erase(it);
  return true;
}

const Type* find_type_in_use(MPI_Datatype dt) {
  if (const Type* t = find_type(dt)) return t;
  auto& old = retired();
  auto it = old.find(static_cast<const void*>(dt));
  if (it == old.end()) return nullptr;
  // The holder keeps it alive: the raw pointer stays valid while the operation that asks runs.
  return it->second.lock().get();
}

std::size_t registered_types() {
  return registry().size();
}

// ---- packing ----

namespace {

/// Copies one block of `len` bytes; small fixed sizes (a vector of doubles) avoid the memcpy call.
inline void copy_block(char* dst, const char* src, std::size_t len) {
  switch (len) {
    case 4:
      std::memcpy(dst, src, 4);
      break;
    case 8:
      std::memcpy(dst, src, 8);
      break;
    case 16:
      std::memcpy(dst, src, 16);
      break;
    default:
      std::memcpy(dst, src, len);
  }
}

}  // namespace

// Addresses are computed as integers: with MPI_BOTTOM (NULL) the displacements are absolute
// addresses, and a negative stride walks below the buffer's start.
namespace {

inline std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}
inline std::uintptr_t offset(std::uintptr_t base, MPI_Aint d) {
  return base + static_cast<std::uintptr_t>(d);
}
inline char* ptr(std::uintptr_t a) {
  return reinterpret_cast<char*>(a);
}

}  // namespace

void pack_items(const void* buf, std::size_t count, const Type& t, void* out) {
  std::uintptr_t in = address(buf);
  char* o = static_cast<char*>(out);
  if (t.contiguous) {
    if (count != 0 && t.size != 0) std::memcpy(o, ptr(offset(in, t.lb)), count * t.size);
    return;
  }
  MPI_Aint ext = t.extent();
  if (t.blocks.size() == 1) {
    const Block b = t.blocks[0];
    std::uintptr_t p = offset(in, b.disp);
    for (std::size_t i = 0; i < count; ++i, p = offset(p, ext), o += b.len) copy_block(o, ptr(p), b.len);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uintptr_t base = offset(in, MPI_Aint(i) * ext);
    for (const Block& b : t.blocks) {
      copy_block(o, ptr(offset(base, b.disp)), b.len);
      o += b.len;
    }
  }
}

void unpack_items(const void* in, std::size_t bytes, std::size_t count, const Type& t, void* buf) {
  const char* src = static_cast<const char*>(in);
  std::uintptr_t out = address(buf);
  bytes = std::min(bytes, count * t.size);
  if (bytes == 0) return;
  if (t.contiguous) {
    std::memcpy(ptr(offset(out, t.lb)), src, bytes);
    return;
  }
  MPI_Aint ext = t.extent();
  std::size_t whole = bytes / t.size;
  if (t.blocks.size() == 1) {
    const Block b = t.blocks[0];
    std::uintptr_t p = offset(out, b.disp);
    for (std::size_t i = 0; i < whole; ++i, p = offset(p, ext), src += b.len) copy_block(ptr(p), src, b.len);
  } else {
    for (std::size_t i = 0; i < whole; ++i) {
      std::uintptr_t base = offset(out, MPI_Aint(i) * ext);
      for (const Block& b : t.blocks) {
        copy_block(ptr(offset(base, b.disp)), src, b.len);
        src += b.len;
      }
    }
  }
  std::size_t rest = bytes - whole * t.size;
  std::uintptr_t base = offset(out, MPI_Aint(whole) * ext);
  for (const Block& b : t.blocks) {
    if (rest == 0) break;
    std::size_t n = std::min(rest, b.len);
    std::memcpy(ptr(offset(base, b.disp)), src, n);
    src += n;
    rest -= n;
  }
}

long long elements_in(const Type& t, std::size_t bytes) {
  if (t.size == 0) return 0;
  std::size_t whole = bytes / t.size;
  std::size_t rest = bytes % t.size;
  auto n = static_cast<long long>(whole) * static_cast<long long>(t.elements);
  for (const ElemRun& r : t.elems) {
    if (rest == 0) break;
    std::size_t k = std::min(r.count, rest / r.size);
    n += static_cast<long long>(k);
    rest -= k * r.size;
    if (k < r.count) break;
  }
  return rest == 0 ? n : -1;
}

std::size_t bytes_of_elements(const Type& t, std::size_t elements) {
  if (t.elements == 0) return 0;
  std::size_t whole = elements / t.elements;
  std::size_t rest = elements % t.elements;
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(whole, t.size, &bytes)) return SIZE_MAX;
  for (const ElemRun& r : t.elems) {
    if (rest == 0) break;
    std::size_t k = std::min(r.count, rest);
    if (__builtin_add_overflow(bytes, k * r.size, &bytes)) return SIZE_MAX;
    rest -= k;
  }
  return bytes;
}

}  // namespace takyon::mpi
