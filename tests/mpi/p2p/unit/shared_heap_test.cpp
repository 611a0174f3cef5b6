// SPDX-License-Identifier: MIT
// The shared heap (shm/heap.hpp) by itself: blocks are page-aligned, disjoint and keep their bytes
// through any order of allocations and frees; freed neighbours merge, so the heap returns to empty;
// a fork gives the child its own copy (neither sees the other's writes); what it does not serve.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "shm/heap.hpp"

namespace takyon::mpi::shm {
namespace {

constexpr std::size_t kPage = SharedHeap::kPage;

SharedHeap& active_heap() {
  SharedHeap& h = SharedHeap::instance();
  h.activate();
  return h;
}

/// Whether all n bytes at p are v: the first is, and each equals the next (one memcmp, which the
/// sanitizers check as a range: a loop over the bytes is far too slow under TSan for this file's
/// 340 MB).
bool filled_with(const void* p, std::size_t n, unsigned char v) {
  const auto* c = static_cast<const unsigned char*>(p);
  return n == 0 || (c[0] == v && std::memcmp(c, c + 1, n - 1) == 0);
}

TEST(SharedHeap, ServesLargeBlocksOnly) {
  SharedHeap& h = active_heap();
  ASSERT_GT(h.info().bytes, 0U) << "the heap did not activate (memfd_create or the reservation refused)";
  bool zeroed = false;
  EXPECT_EQ(h.allocate(SharedHeap::kMinBytes - 1, 16, &zeroed), nullptr);
  EXPECT_EQ(h.allocate(SharedHeap::kMinBytes, 2 * kPage, &zeroed), nullptr) << "over-aligned";
  void* p = h.allocate(SharedHeap::kMinBytes, kPage, &zeroed);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(h.owns(p));
  EXPECT_FALSE(h.owns(&zeroed));
  EXPECT_FALSE(h.owns(nullptr));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kPage, 0U);
  EXPECT_EQ(h.usable_size(p), SharedHeap::kMinBytes);
  h.release(p);
}

TEST(SharedHeap, RandomAllocationsStayDisjointAndMergeBackToEmpty) {
  SharedHeap& h = active_heap();
  const std::size_t live_before = h.live_bytes();
  struct Live {
    unsigned char* p;
    std::size_t n;
    unsigned char v;
  };
  std::vector<Live> live;
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::size_t> size(SharedHeap::kMinBytes, 3 * SharedHeap::kMinBytes + 12345);
  unsigned char next = 1;
  for (int op = 0; op < 2000; ++op) {
    if (live.empty() || rng() % 3 != 0) {
      const std::size_t n = size(rng);
      bool zeroed = false;
      auto* p = static_cast<unsigned char*>(h.allocate(n, 16, &zeroed));
      ASSERT_NE(p, nullptr) << "op " << op;
      ASSERT_GE(h.usable_size(p), n);
      if (zeroed) {
        ASSERT_TRUE(filled_with(p, n, 0)) << "a block said to be zeroed is not (op " << op << ")";
      }
      std::memset(p, next, n);
      live.push_back({p, n, next});
      next = static_cast<unsigned char>(next % 250 + 1);
    } else {
      const std::size_t i = rng() % live.size();
      ASSERT_TRUE(filled_with(live[i].p, live[i].n, live[i].v))
          << "another block overwrote this one (op " << op << ")";
      h.release(live[i].p);
      live[i] = live.back();
      live.pop_back();
    }
  }
  for (const Live& l : live) {
    ASSERT_TRUE(filled_with(l.p, l.n, l.v));
    h.release(l.p);
  }
  EXPECT_EQ(h.live_bytes(), live_before);
  // Everything merged and the top came down: one block the size of all of them lands where the first did.
  bool zeroed = false;
  void* a = h.allocate(SharedHeap::kMinBytes, 16, &zeroed);
  void* big = h.allocate(64 * SharedHeap::kMinBytes, 16, &zeroed);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(static_cast<char*>(big), static_cast<char*>(a) + SharedHeap::kMinBytes + kPage);
  h.release(a);
  void* again = h.allocate(SharedHeap::kMinBytes / 2 * 3, 16, &zeroed);  // too big for a's hole
  EXPECT_NE(again, a);
  void* fits = h.allocate(SharedHeap::kMinBytes, 16, &zeroed);  // a's hole, reused
  EXPECT_EQ(fits, a);
  for (void* p : {big, again, fits}) h.release(p);
  EXPECT_EQ(h.live_bytes(), live_before);
}

TEST(SharedHeap, ForkedChildGetsItsOwnCopy) {
  SharedHeap& h = active_heap();
  bool zeroed = false;
  auto* p = static_cast<unsigned char*>(h.allocate(SharedHeap::kMinBytes * 2, 16, &zeroed));
  ASSERT_NE(p, nullptr);
  std::memset(p, 'A', SharedHeap::kMinBytes * 2);
  int to_child[2];
  int to_parent[2];
  ASSERT_EQ(pipe(to_child), 0);
  ASSERT_EQ(pipe(to_parent), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char c = 0;
    if (read(to_child[0], &c, 1) != 1) _exit(10);  // the parent wrote 'P' over its copy by now
    if (!filled_with(p, SharedHeap::kMinBytes * 2, 'A')) _exit(11);
    if (h.info().fd < 0) _exit(12);
    std::memset(p, 'C', SharedHeap::kMinBytes * 2);
    bool z = false;
    auto* q = static_cast<unsigned char*>(h.allocate(SharedHeap::kMinBytes, 16, &z));
    if (q == nullptr) _exit(13);
    std::memset(q, 'Q', SharedHeap::kMinBytes);
    h.release(q);
    h.release(p);
    _exit(write(to_parent[1], "c", 1) == 1 ? 0 : 14);
  }
  std::memset(p, 'P', SharedHeap::kMinBytes * 2);
  ASSERT_EQ(write(to_child[1], "p", 1), 1);
  char c = 0;
  ASSERT_EQ(read(to_parent[0], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10+: the child's check that failed (see the test)";
  EXPECT_TRUE(filled_with(p, SharedHeap::kMinBytes * 2, 'P')) << "the child's writes reached the parent";
  for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) close(fd);
  h.release(p);
}

}  // namespace
}  // namespace takyon::mpi::shm
