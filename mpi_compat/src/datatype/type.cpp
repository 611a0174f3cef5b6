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
    const BasicType& b = basic_type(reinterpret_cast<MPI_Datatype>(kBase + std::intptr_t(i)));
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
      if (second == b.first) {
        t.elems.push_back({b.first, 2});
      } else {
        t.elems.push_back({b.first, 1});
        t.elems.push_back({second, 1});
      }
      t.true_ub = MPI_Aint(b.second_offset + second);
    } else {
      t.blocks.push_back({0, b.size});
      t.elems.push_back({b.size, 1});
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

}  // namespace

const Type* const detail::g_predefined_types = kPredefined.data();

void Type::finish() {
  contiguous = size != 0 && blocks.size() == 1 && blocks[0].disp == lb && MPI_Aint(blocks[0].len) == extent();
  if (size == 0) contiguous = extent() == 0;
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
  if (!e.empty() && e.back().size == run.size) {
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
  MPI_Aint last = disp + MPI_Aint(n - 1) * ext;
  MPI_Aint lo = std::min(disp, last);
  MPI_Aint hi = std::max(disp, last);
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
  bool natural = any_;
  widen(natural, lb_, ub_, lo + old.lb, hi + old.ub);
  if (old.explicit_lb) {
    xlb_ = t_->explicit_lb ? std::min(xlb_, lo + old.lb) : lo + old.lb;
    t_->explicit_lb = true;
  }
  if (old.explicit_ub) {
    xub_ = t_->explicit_ub ? std::max(xub_, hi + old.ub) : hi + old.ub;
    t_->explicit_ub = true;
  }
  any_ = true;
  if (old.size != 0) {
    bool data = any_data_;
    widen(data, t_->true_lb, t_->true_ub, lo + old.true_lb, hi + old.true_ub);
    any_data_ = true;
  }
  expect(blocks_of(old, n) + (old.elems.size() == 1 ? 1 : old.elems.size() * n));
  t_->align = std::max(t_->align, old.align);
  t_->size += old.size * n;
  t_->elements += old.elements * n;
  if (old.contiguous && ext > 0) {
    push_block(disp + old.lb, old.size * n);  // adjacent copies: one block
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      MPI_Aint base = disp + MPI_Aint(i) * ext;
      for (const Block& b : old.blocks) push_block(base + b.disp, b.len);
    }
  }
  if (old.elems.size() == 1) {
    push_elems({old.elems[0].size, old.elems[0].count * n});
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
    MPI_Aint ext = t.ub - t.lb;
    MPI_Aint a = MPI_Aint(t.align);
    MPI_Aint rest = ((ext % a) + a) % a;
    if (rest != 0) t.ub += a - rest;
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
  return registry().erase(static_cast<const void*>(dt)) != 0;
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
  std::size_t bytes = whole * t.size;
  for (const ElemRun& r : t.elems) {
    if (rest == 0) break;
    std::size_t k = std::min(r.count, rest);
    bytes += k * r.size;
    rest -= k;
  }
  return bytes;
}

}  // namespace takyon::mpi
