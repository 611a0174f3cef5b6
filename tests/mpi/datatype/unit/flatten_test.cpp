// SPDX-License-Identifier: MIT
// Flattening, packing, unpacking and element counting of datatypes (mpi_compat/src/datatype/) against
// a naive model: the explicit typemap (one entry per basic element, in order) and per-element copies.
// Thousands of random nestings of every constructor, with negative strides and displacements.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "datatype/external32.hpp"
#include "datatype/pack.hpp"
#include "datatype/type.hpp"

namespace takyon::mpi {
namespace {

struct Elem {
  MPI_Aint disp;
  std::size_t size;
};

/// The MPI standard's definition of a type, written out: typemap, bounds, markers.
struct Ref {
  std::vector<Elem> map;
  MPI_Aint lb = 0, ub = 0;
  bool xlb = false, xub = false;
  std::size_t align = 1;
  [[nodiscard]] MPI_Aint extent() const { return ub - lb; }
};

struct Pair {
  std::shared_ptr<Type> t;
  Ref r;
};

Pair basic(MPI_Datatype dt) {
  const Type* t = find_type(dt);
  Pair p{std::make_shared<Type>(*t), {}};
  // The predefined layouts written out by hand.
  if (dt == MPI_DOUBLE_INT) {
    p.r.map = {{0, 8}, {8, 4}};
  } else if (dt == MPI_SHORT_INT) {
    p.r.map = {{0, 2}, {4, 4}};
  } else {
    p.r.map = {{0, t->size}};
  }
  p.r.ub = dt == MPI_DOUBLE_INT ? 16 : dt == MPI_SHORT_INT ? 8 : MPI_Aint(t->size);
  p.r.align = t->align;
  return p;
}

/// The typemap of copies (disp_k, n_k) of `old` and its bounds, by the standard's rules.
class RefBuilder {
 public:
  void add(const Ref& old, MPI_Aint disp, std::size_t n) {
    // Zero copies, and copies of an empty type without markers, are not in the typemap at all.
    if (n == 0 || (old.map.empty() && !old.xlb && !old.xub)) return;
    for (std::size_t i = 0; i < n; ++i) {
      MPI_Aint base = disp + MPI_Aint(i) * old.extent();
      for (const Elem& e : old.map) r_.map.push_back({base + e.disp, e.size});
      lbs_.push_back(base + old.lb);
      ubs_.push_back(base + old.ub);
      if (old.xlb) xlbs_.push_back(base + old.lb);
      if (old.xub) xubs_.push_back(base + old.ub);
    }
    r_.align = std::max(r_.align, old.align);
  }
  Ref build() {
    r_.xlb = !xlbs_.empty();
    r_.xub = !xubs_.empty();
    auto min_of = [](const std::vector<MPI_Aint>& v) {
      return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
    };
    auto max_of = [](const std::vector<MPI_Aint>& v) {
      return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
    };
    r_.lb = r_.xlb ? min_of(xlbs_) : min_of(lbs_);
    r_.ub = r_.xub ? max_of(xubs_) : max_of(ubs_);
    if (!r_.xub) {
      auto a = MPI_Aint(r_.align);
      MPI_Aint rest = (((r_.ub - r_.lb) % a) + a) % a;
      if (rest != 0) r_.ub += a - rest;
    }
    return r_;
  }

 private:
  Ref r_;
  std::vector<MPI_Aint> lbs_, ubs_, xlbs_, xubs_;
};

/// Adds the same copies to the implementation and the model.
struct Both {
  TypeBuilder tb;
  RefBuilder rb;
  void add(const Pair& old, MPI_Aint disp, std::size_t n) {
    tb.add(*old.t, disp, n);
    rb.add(old.r, disp, n);
  }
  Pair build() { return {tb.build(), rb.build()}; }
};

class Gen {
 public:
  explicit Gen(unsigned seed) : rng_(seed) {}
  int in(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Pair type(int depth) {
    static const MPI_Datatype kBasics[] = {MPI_CHAR,   MPI_SHORT,      MPI_INT,
                                           MPI_DOUBLE, MPI_DOUBLE_INT, MPI_SHORT_INT};
    if (depth == 0 || in(0, 9) < 3) return basic(kBasics[in(0, 5)]);
    Pair old = type(depth - 1);
    MPI_Aint ext = old.r.extent();
    Both b;
    int count = in(0, 4);
    switch (in(0, 7)) {
      case 0:  // contiguous
        b.add(old, 0, std::size_t(count));
        break;
      case 1:    // vector
      case 2: {  // hvector
        int bl = in(0, 3);
        MPI_Aint stride = in(-6, 6);
        MPI_Aint step = (in(0, 1) != 0) ? stride * ext : stride * 3 + 1;
        for (int i = 0; i < count; ++i) b.add(old, MPI_Aint(i) * step, std::size_t(bl));
        break;
      }
      case 3:    // indexed
      case 4: {  // hindexed / indexed_block
        bool bytes = in(0, 1) != 0;
        int one_bl = in(0, 1) != 0 ? in(0, 3) : -1;
        for (int i = 0; i < count; ++i) {
          int bl = one_bl >= 0 ? one_bl : in(0, 3);
          MPI_Aint d = bytes ? MPI_Aint(in(-40, 40)) : MPI_Aint(in(-8, 8)) * ext;
          b.add(old, d, std::size_t(bl));
        }
        break;
      }
      case 5: {  // struct of different types
        for (int i = 0; i < count; ++i) {
          Pair other = in(0, 1) != 0 ? old : type(depth - 1);
          b.add(other, MPI_Aint(in(-40, 40)), std::size_t(in(0, 3)));
        }
        break;
      }
      default: {  // resized
        Pair p{std::make_shared<Type>(*old.t), old.r};
        p.t->predefined = false;
        MPI_Aint lb = in(-16, 16), extent = in(0, 48);
        p.t->lb = lb;
        p.t->ub = lb + extent;
        p.t->explicit_lb = p.t->explicit_ub = true;
        p.t->finish();
        p.r.lb = lb;
        p.r.ub = lb + extent;
        p.r.xlb = p.r.xub = true;
        return p;
      }
    }
    return b.build();
  }

 private:
  std::mt19937 rng_;
};

/// A buffer holding `count` items of a type whatever its bounds: origin() is the user's buf.
class Arena {
 public:
  Arena(const Ref& r, std::size_t count, unsigned char fill) {
    MPI_Aint lo = 0, hi = 0;
    for (const Elem& e : r.map) {
      lo = std::min(lo, e.disp);
      hi = std::max(hi, e.disp + MPI_Aint(e.size));
    }
    MPI_Aint span = count == 0 ? 0 : MPI_Aint(count - 1) * r.extent();
    lo += std::min<MPI_Aint>(0, span);
    hi += std::max<MPI_Aint>(0, span);
    offset_ = -lo + 16;
    bytes_.assign(std::size_t(hi - lo + 32), fill);
  }
  unsigned char* origin() { return bytes_.data() + offset_; }
  std::vector<unsigned char>& bytes() { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
  MPI_Aint offset_ = 0;
};

TEST(DatatypeFlatten, RandomNestingsMatchTheTypemap) {
  Gen gen(20261123);
  for (int iter = 0; iter < 3000; ++iter) {
    Pair p = gen.type(gen.in(1, 3));
    const Type& t = *p.t;
    const Ref& r = p.r;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    std::size_t size = 0;
    MPI_Aint tlb = 0, tub = 0;
    bool any = false;
    for (const Elem& e : r.map) {
      size += e.size;
      tlb = any ? std::min(tlb, e.disp) : e.disp;
      tub = any ? std::max(tub, e.disp + MPI_Aint(e.size)) : e.disp + MPI_Aint(e.size);
      any = true;
    }
    ASSERT_EQ(t.size, size);
    ASSERT_EQ(t.elements, r.map.size());
    ASSERT_EQ(t.lb, r.lb);
    ASSERT_EQ(t.ub, r.ub) << "explicit ub " << t.explicit_ub << r.xub << ", align " << t.align << "/"
                          << r.align;
    if (size != 0) {
      ASSERT_EQ(t.true_lb, tlb);
      ASSERT_EQ(t.true_ub, tub);
    }
    // Flattened blocks are merged: no block ends where the next begins.
    for (std::size_t i = 1; i < t.blocks.size(); ++i) {
      ASSERT_NE(t.blocks[i - 1].disp + MPI_Aint(t.blocks[i - 1].len), t.blocks[i].disp);
    }
    if (t.contiguous && size != 0) {
      ASSERT_EQ(MPI_Aint(size), t.extent());
    }

    std::size_t count = std::size_t(gen.in(0, 3));
    // Pack: the typemap's bytes in order.
    Arena src(r, count, 0);
    for (std::size_t i = 0; i < src.bytes().size(); ++i)
      src.bytes()[i] = static_cast<unsigned char>(i * 7 + 3);
    std::vector<unsigned char> want, got(count * size + 1, 0xee);
    for (std::size_t i = 0; i < count; ++i) {
      for (const Elem& e : r.map) {
        const unsigned char* from = src.origin() + MPI_Aint(i) * r.extent() + e.disp;
        want.insert(want.end(), from, from + e.size);
      }
    }
    pack_items(src.origin(), count, t, got.data());
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
    ASSERT_EQ(got[want.size()], 0xee);

    // Unpack of every prefix length (partial items and elements), holes untouched.
    std::size_t total = count * size;
    std::vector<std::size_t> cuts = {0, total, total / 2, total / 3 + 1};
    for (std::size_t cut : cuts) {
      if (cut > total) continue;
      Arena ref(r, count, 0xa5), out(r, count, 0xa5);
      std::size_t k = 0;
      for (std::size_t i = 0; i < count && k < cut; ++i) {
        for (const Elem& e : r.map) {
          for (std::size_t b = 0; b < e.size && k < cut; ++b, ++k) {
            ref.origin()[MPI_Aint(i) * r.extent() + e.disp + MPI_Aint(b)] = want[k];
          }
        }
      }
      unpack_items(want.data(), cut, count, t, out.origin());
      ASSERT_EQ(ref.bytes(), out.bytes()) << "unpack of " << cut << " bytes";

      // Elements in `cut` bytes: whole elements, or -1 if the cut ends inside one.
      long long n = 0;
      std::size_t left = cut;
      bool inside = false;
      for (std::size_t i = 0; i < count && left != 0; ++i) {
        for (const Elem& e : r.map) {
          if (left == 0) break;
          if (left < e.size) {
            inside = true;
            left = 0;
            break;
          }
          left -= e.size;
          ++n;
        }
      }
      if (size != 0) {
        ASSERT_EQ(elements_in(t, cut), inside ? -1 : n) << "elements in " << cut << " bytes";
      }
      if (!inside && size != 0) {
        ASSERT_EQ(bytes_of_elements(t, std::size_t(n)), cut);
      }
    }
  }
}

TEST(DatatypeFlatten, PairTypesHaveSizeOfMembersAndPaddedExtent) {
  const Type* di = find_type(MPI_DOUBLE_INT);
  ASSERT_NE(di, nullptr);
  EXPECT_EQ(di->size, 12U);
  EXPECT_EQ(di->extent(), 16);
  EXPECT_FALSE(di->contiguous);
  const Type* ii = find_type(MPI_2INT);
  EXPECT_EQ(ii->size, 8U);
  EXPECT_TRUE(ii->contiguous);
  EXPECT_EQ(find_type(MPI_DATATYPE_NULL), nullptr);
  int not_a_type = 0;
  EXPECT_EQ(find_type(reinterpret_cast<MPI_Datatype>(&not_a_type)), nullptr);
}

TEST(DatatypeFlatten, RegistryForgetsFreedHandlesButHoldersKeepTheType) {
  TypeBuilder b;
  b.add(*find_type(MPI_INT), 0, 3);
  MPI_Datatype h = register_type(b.build());
  ASSERT_NE(find_type(h), nullptr);
  std::shared_ptr<Type> held = find_derived(h);
  EXPECT_TRUE(unregister_type(h));
  EXPECT_EQ(find_type(h), nullptr);
  EXPECT_FALSE(unregister_type(h));
  EXPECT_EQ(held->size, 12U);  // a request that holds it still reads it
}

TEST(DatatypeFlatten, TooLargeToFlattenThrowsBeforeAllocating) {
  TypeBuilder b;
  TypeBuilder gap;
  gap.add(*find_type(MPI_INT), 0, 1);
  gap.add(*find_type(MPI_INT), 8, 1);  // two blocks per copy
  auto two = gap.build();
  EXPECT_THROW(b.add(*two, 0, kMaxFlatEntries), TypeTooLarge);
  EXPECT_THROW(b.expect(kMaxFlatEntries + 1), TypeTooLarge);
  b.add(*find_type(MPI_DOUBLE), 0, std::size_t(1) << 40);  // contiguous copies merge: one block
  EXPECT_EQ(b.build()->blocks.size(), 1U);
}

TEST(DatatypeFlatten, SizesAndBoundsPast64BitsThrowTypeOverflow) {
  const Type& d = *find_type(MPI_DOUBLE);
  const Type& c = *find_type(MPI_CHAR);
  TypeBuilder g8b;
  g8b.add(d, 0, std::size_t(1) << 30);  // 8 GiB, one block
  auto g8 = g8b.build();
  TypeBuilder size_overflow;
  EXPECT_THROW(size_overflow.add(*g8, 0, std::size_t(1) << 30), TypeOverflow);  // 2^63 bytes
  TypeBuilder ub_overflow;
  EXPECT_THROW(ub_overflow.add(c, kMaxTypeValue - 2, 8), TypeOverflow);
  auto sparse = std::make_shared<Type>(c);  // one char, extent 2^62
  sparse->ub = MPI_Aint(1) << 62;
  sparse->finish();
  TypeBuilder disp_overflow;  // the third copy starts at 2^63
  EXPECT_THROW(disp_overflow.add(*sparse, 0, 3), TypeOverflow);

  TypeBuilder sum_overflow;  // two halves whose sizes each fit
  TypeBuilder halfb;
  halfb.add(*g8, 0, std::size_t(1) << 29);  // 2^62 bytes
  auto half = halfb.build();
  sum_overflow.add(*half, 0, 1);
  EXPECT_THROW(sum_overflow.add(*half, MPI_Aint(1) << 62, 1), TypeOverflow);
  // At the limits but inside: built, with the exact values.
  TypeBuilder edge;
  edge.add(c, kMaxTypeValue - 1, 1);
  auto e = edge.build();
  EXPECT_EQ(e->ub, kMaxTypeValue);
  EXPECT_EQ(e->extent(), 1);
  EXPECT_EQ(half->size, std::size_t(1) << 62);
  EXPECT_EQ(half->extent(), MPI_Aint(1) << 62);
}

TEST(DatatypeFlatten, MaxItemsBoundsBytesAndSpan) {
  EXPECT_EQ(find_type(MPI_DOUBLE)->max_items, std::size_t(kMaxTypeValue) / 8);
  TypeBuilder halfb;
  halfb.add(*find_type(MPI_CHAR), 0, std::size_t(1) << 62);
  auto half = halfb.build();
  EXPECT_EQ(half->max_items, 1U);  // two would be 2^63 bytes
  // One char every 2^62 bytes: the bytes fit any count, the span only 2 items ([0, 2^62 + 1)).
  auto sparse = std::make_shared<Type>(*find_type(MPI_CHAR));
  sparse->ub = MPI_Aint(1) << 62;
  sparse->finish();
  EXPECT_EQ(sparse->max_items, 2U);
  // A negative extent walks down: items at 0, -2^62, -2^63 (its byte still fits).
  sparse->lb = MPI_Aint(1) << 62;
  sparse->ub = 0;
  sparse->finish();
  EXPECT_EQ(sparse->max_items, 3U);
  // Elements past 64 bits of bytes saturate (MPI_Status_set_elements_x reports MPI_ERR_COUNT).
  EXPECT_EQ(bytes_of_elements(*find_type(MPI_LONG_DOUBLE), std::size_t(1) << 62), SIZE_MAX);
}

TEST(DatatypeFlatten, VectorPacksByBlocks) {
  // 1000 blocks of one double, stride 2: one block per item of the inner type, packed in order.
  TypeBuilder b;
  const Type& d = *find_type(MPI_DOUBLE);
  for (int i = 0; i < 1000; ++i) b.add(d, MPI_Aint(i) * 16, 1);
  auto t = b.build();
  EXPECT_EQ(t->blocks.size(), 1000U);
  EXPECT_EQ(t->elems.size(), 1U);
  std::vector<double> src(2000), packed(1000), back(2000, -1.0);
  for (int i = 0; i < 2000; ++i) src[std::size_t(i)] = i;
  pack_items(src.data(), 1, *t, packed.data());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(packed[std::size_t(i)], 2.0 * i);
  unpack_items(packed.data(), packed.size() * sizeof(double), 1, *t, back.data());
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(back[std::size_t(i)], i % 2 == 0 ? double(i) : -1.0);
}

TEST(DatatypeRegistry, AFreedTypeStaysUsableForItsHolder) {
  // MPI_Type_free while a nonblocking operation holds the type: the handle is invalid for arguments
  // (find_type) but the holder's steps still find it (find_type_in_use) until they let go.
  // (Each type is built in a builder of its own that is gone by then: a builder keeps what it built.)
  const auto ints = [](std::size_t n) {
    TypeBuilder b;
    b.add(*find_type(MPI_INT), 0, n);
    return b.build();
  };
  MPI_Datatype h = register_type(ints(3));
  std::shared_ptr<Type> held = find_derived(h);
  ASSERT_TRUE(unregister_type(h));
  EXPECT_EQ(find_type(h), nullptr);
  EXPECT_EQ(find_type_in_use(h), held.get());
  held.reset();
  EXPECT_EQ(find_type_in_use(h), nullptr);
  // Not held: gone at once.
  MPI_Datatype h2 = register_type(ints(2));
  ASSERT_TRUE(unregister_type(h2));
  EXPECT_EQ(find_type_in_use(h2), nullptr);
}

TEST(DatatypeFlatten, ElementRunsKeepTheirBasicTypes) {
  // Runs of equal size but different types stay apart (external32 converts each by its type).
  const Type& fi = *find_type(MPI_FLOAT_INT);
  ASSERT_EQ(fi.elems.size(), 2U);
  EXPECT_EQ(fi.elems[0].basic, MPI_FLOAT);
  EXPECT_EQ(fi.elems[1].basic, MPI_INT);
  TypeBuilder b;
  b.add(*find_type(MPI_INT), 0, 2);
  b.add(*find_type(MPI_FLOAT), 8, 1);
  b.add(*find_type(MPI_FLOAT), 12, 2);
  auto t = b.build();
  ASSERT_EQ(t->elems.size(), 2U);
  EXPECT_EQ(t->elems[0].count, 2U);
  EXPECT_EQ(t->elems[1].basic, MPI_FLOAT);
  EXPECT_EQ(t->elems[1].count, 3U);
  EXPECT_EQ(t->blocks.size(), 1U);
}

#if LDBL_MANT_DIG == 64 && defined(__SIZEOF_FLOAT128__)  // x87 long double, and __float128 to check it
namespace {

/// The external32 bytes of a binary128 value (big-endian).
std::array<unsigned char, 16> quad_bytes(__float128 q) {
  std::array<unsigned char, 16> le{}, be{};
  std::memcpy(le.data(), &q, 16);
  for (int i = 0; i < 16; ++i) be[std::size_t(i)] = le[std::size_t(15 - i)];
  return be;
}

}  // namespace

TEST(External32, LongDoubleIsBinary128BothWays) {
  // The compiler's own conversions (exact one way, rounded to nearest the other) are the reference.
  const Type& ld = *find_type(MPI_LONG_DOUBLE);
  std::mt19937_64 rng(7);
  std::vector<long double> values = {
      0.0L, -0.0L, 1.0L, -1.5L, 0.1L, 1e-4940L, 3.3e-4932L, 1.1e4932L, __builtin_infl(), -__builtin_infl()};
  for (int i = 0; i < 2000; ++i) {
    std::uint64_t bits = rng();
    double d = 0;
    std::memcpy(&d, &bits, 8);
    if (d == d) values.push_back(static_cast<long double>(d) * (1.0L + 1e-10L * (i % 7)));
  }
  for (long double v : values) {
    std::array<unsigned char, 16> out{};
    to_external32(ld, 1, reinterpret_cast<const char*>(&v), reinterpret_cast<char*>(out.data()));
    ASSERT_EQ(out, quad_bytes(static_cast<__float128>(v))) << static_cast<double>(v);
    long double back = 0;
    from_external32(ld, 1, reinterpret_cast<const char*>(out.data()), reinterpret_cast<char*>(&back));
    ASSERT_TRUE(back == v) << static_cast<double>(v);
  }
  // binary128 values with more precision than x87 round to nearest, as the compiler's cast does.
  for (int i = 0; i < 2000; ++i) {
    std::uint64_t hi = rng(), lo = rng();
    hi = (hi & 0x8000ffffffffffffULL) | (std::uint64_t(0x3fff + int(rng() % 200) - 100) << 48);
    __float128 q = 0;
    std::memcpy(&q, &lo, 8);
    std::memcpy(reinterpret_cast<char*>(&q) + 8, &hi, 8);
    std::array<unsigned char, 16> in = quad_bytes(q);
    long double got = 0;
    from_external32(ld, 1, reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(&got));
    ASSERT_TRUE(got == static_cast<long double>(q));
  }
}
#endif

TEST(External32, LongsNarrowAndWiden) {
  const Type& l = *find_type(MPI_LONG);
  EXPECT_EQ(external32_item_size(l), 4U);
  long v[3] = {-1, 0x7fffffffL, -0x80000000L}, back[3] = {};
  unsigned char out[12];
  to_external32(l, 3, reinterpret_cast<const char*>(v), reinterpret_cast<char*>(out));
  const unsigned char want[12] = {0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0};
  EXPECT_EQ(std::memcmp(out, want, 12), 0);
  from_external32(l, 3, reinterpret_cast<const char*>(out), reinterpret_cast<char*>(back));
  EXPECT_TRUE(back[0] == v[0] && back[1] == v[1] && back[2] == v[2]);
  long big = 0x80000000L;
  EXPECT_THROW(to_external32(l, 1, reinterpret_cast<const char*>(&big), reinterpret_cast<char*>(out)),
               ConversionError);
}

}  // namespace
}  // namespace takyon::mpi
