// SPDX-License-Identifier: MIT
// The shared-memory SPSC ring and bulk pipeline across a fork: a producer process streams messages
// of varying sizes (wrapping the ring many times, hitting a full ring) and the consumer checks every
// byte; the bulk pipeline streams 8 MiB in chunks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "shm/bulk.hpp"
#include "shm/copy.hpp"
#include "shm/layout.hpp"
#include "shm/ring.hpp"
#include "shm/segment.hpp"

namespace takyon::mpi::shm {
namespace {

std::string unique_name(const char* what) {
  return "/takyon-mpi-test-" + std::string(what) + "-" + std::to_string(getpid());
}

unsigned char byte_at(std::uint32_t msg, std::size_t i) {
  return static_cast<unsigned char>(msg * 31 + i * 7 + 1);
}

TEST(ShmRing, ForkedStreamWrapsAndFills) {
  InboxLayout l;
  l.nranks = 1;
  l.ncells = 8;  // small: the producer wraps ~2500 times and finds the ring full often
  l.cell_bytes = 256;
  l.nchunks = 2;
  l.chunk_bytes = 4096;
  Segment seg = Segment::create(unique_name("ring"), l.total_bytes());
  seg.unlink();
  constexpr std::uint32_t kMessages = 20000;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RingProducer p(l.cells(seg.data(), 0), l.control(seg.data(), 0), l.ncells, l.cell_bytes);
    for (std::uint32_t m = 0; m < kMessages; ++m) {
      CellHeader* c = nullptr;
      while ((c = p.try_acquire()) == nullptr) {
      }
      std::uint32_t bytes = m % (p.payload_capacity() + 1);
      c->kind = CellKind::kEager;
      c->tag = int(m);
      c->bytes = bytes;
      auto* payload = reinterpret_cast<unsigned char*>(c + 1);
      for (std::uint32_t i = 0; i < bytes; ++i) payload[i] = byte_at(m, i);
      p.publish(c);
    }
    _exit(0);
  }
  RingConsumer cons(l.cells(seg.data(), 0), l.control(seg.data(), 0), l.ncells, l.cell_bytes);
  std::uint32_t bad = 0;
  for (std::uint32_t m = 0; m < kMessages; ++m) {
    const CellHeader* c = nullptr;
    while ((c = cons.peek()) == nullptr) {
    }
    if (c->tag != int(m) || c->bytes != m % (l.cell_bytes - sizeof(CellHeader) + 1)) ++bad;
    const auto* payload = reinterpret_cast<const unsigned char*>(c + 1);
    for (std::uint32_t i = 0; i < c->bytes; ++i) {
      if (payload[i] != byte_at(m, i)) ++bad;
    }
    cons.release();
  }
  EXPECT_EQ(bad, 0U);
  EXPECT_EQ(cons.peek(), nullptr);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ShmRing, FullRingRefusesUntilConsumed) {
  InboxLayout l;
  l.nranks = 1;
  l.ncells = 4;
  l.cell_bytes = 64;
  l.nchunks = 1;
  l.chunk_bytes = 4096;
  Segment seg = Segment::create(unique_name("full"), l.total_bytes());
  RingProducer p(l.cells(seg.data(), 0), l.control(seg.data(), 0), l.ncells, l.cell_bytes);
  RingConsumer c(l.cells(seg.data(), 0), l.control(seg.data(), 0), l.ncells, l.cell_bytes);
  for (int i = 0; i < 4; ++i) {
    CellHeader* cell = p.try_acquire();
    ASSERT_NE(cell, nullptr);
    cell->tag = i;
    p.publish(cell);
  }
  EXPECT_EQ(p.try_acquire(), nullptr);
  ASSERT_NE(c.peek(), nullptr);
  EXPECT_EQ(c.peek()->tag, 0);
  c.release();
  CellHeader* cell = p.try_acquire();
  ASSERT_NE(cell, nullptr);
  cell->tag = 4;
  p.publish(cell);
  for (int i = 1; i <= 4; ++i) {
    ASSERT_NE(c.peek(), nullptr);
    EXPECT_EQ(c.peek()->tag, i);
    c.release();
  }
  EXPECT_EQ(c.peek(), nullptr);
}

TEST(ShmBulk, ForkedPipelineMovesEightMiB) {
  InboxLayout l;
  l.nranks = 1;
  l.ncells = 2;
  l.cell_bytes = 64;
  l.nchunks = 3;
  l.chunk_bytes = 64 * 1024;
  Segment seg = Segment::create(unique_name("bulk"), l.total_bytes());
  seg.unlink();
  constexpr std::size_t kBytes = (8U << 20) + 12345;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string src(kBytes, '\0');
    for (std::size_t i = 0; i < kBytes; ++i) src[i] = char(byte_at(9, i));
    BulkProducer p(l.slots(seg.data(), 0), l.chunks(seg.data(), 0), l.nchunks, l.chunk_bytes);
    std::size_t done = 0;
    while (done < kBytes) done += p.push(src.data() + done, kBytes - done);
    _exit(0);
  }
  std::string dst(kBytes, '\0');
  BulkConsumer c(l.slots(seg.data(), 0), l.chunks(seg.data(), 0), l.nchunks, l.chunk_bytes);
  std::size_t done = 0;
  while (done < kBytes) done += c.pop(dst.data() + done, kBytes - done);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kBytes; ++i) bad += dst[i] != char(byte_at(9, i));
  EXPECT_EQ(bad, 0U);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace takyon::mpi::shm

// copy_streaming (the rendezvous receiver's copy for large messages) equals memcpy for every
// destination and source alignment and for sizes around its thresholds, and writes nothing outside.
TEST(CopyStreaming, EqualsMemcpyAtEveryAlignmentAndSize) {
  std::vector<char> src(70000 + 64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = char((i * 131 + 7) & 0xff);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4095}, std::size_t{4096},
                        std::size_t{4097}, std::size_t{4096 + 63}, std::size_t{65536}, std::size_t{70000}}) {
    for (std::size_t dst_off = 0; dst_off < 17; ++dst_off) {
      for (std::size_t src_off : {std::size_t{0}, std::size_t{3}, std::size_t{16}}) {
        std::vector<char> dst(n + 64, '\x5a');
        takyon::mpi::shm::copy_streaming(dst.data() + dst_off, src.data() + src_off, n);
        ASSERT_EQ(0, std::memcmp(dst.data() + dst_off, src.data() + src_off, n)) << n << " " << dst_off;
        for (std::size_t i = 0; i < dst_off; ++i) ASSERT_EQ('\x5a', dst[i]);
        for (std::size_t i = dst_off + n; i < dst.size(); ++i) ASSERT_EQ('\x5a', dst[i]);
      }
    }
  }
}

// copy_bulk (memcpy, but an SSE2 loop where the destination lies 1-31 bytes past the source modulo
// 4 KiB) equals memcpy at every such distance, on both sides of the window and across page-aligned
// buffers, for sizes around its 4 KiB threshold and with tails of every length, and writes nothing
// outside.
TEST(CopyBulk, EqualsMemcpyAtEveryPageDistanceAndSize) {
  constexpr std::size_t kPage = 4096;
  constexpr std::size_t kMax = 65536 + 63;
  constexpr std::size_t kBytes = (kMax + 3 * kPage) / kPage * kPage;  // aligned_alloc: a multiple of kPage
  auto* src = static_cast<char*>(std::aligned_alloc(kPage, kBytes));
  auto* dst = static_cast<char*>(std::aligned_alloc(kPage, kBytes));
  ASSERT_NE(nullptr, src);
  ASSERT_NE(nullptr, dst);
  for (std::size_t i = 0; i < kBytes; ++i) src[i] = char((i * 131 + 7) & 0xff);
  std::vector<std::size_t> distances;
  for (std::size_t d = 0; d <= 40; ++d) distances.push_back(d);
  for (std::size_t d = kPage - 40; d < kPage; ++d) distances.push_back(d);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{17}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
        std::size_t{4096 + 63}, std::size_t{8191}, std::size_t{65536 + 5}, kMax}) {
    for (std::size_t d : distances) {
      const std::size_t src_off = 3 * (d % 5);  // the distance, not the alignment, picks the path
      const std::size_t dst_off = (src_off + d) % kPage;
      std::memset(dst, 0x5a, kBytes);
      takyon::mpi::shm::copy_bulk(dst + dst_off, src + src_off, n);
      ASSERT_EQ(0, std::memcmp(dst + dst_off, src + src_off, n)) << n << " " << d;
      for (std::size_t i = 0; i < dst_off; ++i) ASSERT_EQ('\x5a', dst[i]) << n << " " << d;
      for (std::size_t i = dst_off + n; i < kBytes; ++i) ASSERT_EQ('\x5a', dst[i]) << n << " " << d;
    }
  }
  std::free(src);
  std::free(dst);
}
