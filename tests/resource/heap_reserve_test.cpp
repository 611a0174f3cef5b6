// SPDX-License-Identifier: MIT
// The shared heap (mpi_compat/src/shm/heap.hpp) under strict overcommit accounting, where a shared
// page that cannot be charged at its first touch is a SIGBUS: it reserves each block's new pages when
// it hands the block out, and a block it cannot reserve is not served (nullptr: malloc falls back to
// glibc). The accounting is forced on for the test; a seccomp filter makes fallocate fail.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "private_shm.hpp"
#include "shm/heap.hpp"

namespace takyon::mpi::shm {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

/// Bytes of memory the heap's memfd holds (allocated pages, touched or reserved).
std::size_t memfd_bytes(const SharedHeap& h) {
  struct stat st {};
  return fstat(h.info().fd, &st) == 0 ? std::size_t(st.st_blocks) * 512 : 0;
}

TEST(SharedHeapReserve, NewPagesAreReservedWhenHandedOut) {
  SharedHeap::force_reserve_for_tests(true);
  SharedHeap& h = SharedHeap::instance();
  h.activate();
  ASSERT_GT(h.info().bytes, 0U) << "the heap did not activate";
  ASSERT_TRUE(h.reserves());
  const std::size_t before = memfd_bytes(h);
  bool zeroed = false;
  void* p = h.allocate(8 * kMiB, 16, &zeroed);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(zeroed);
  // Nothing touched yet, and the memory is there already.
  EXPECT_GE(memfd_bytes(h) - before, 8 * kMiB);
  std::memset(p, 0x33, 8 * kMiB);
  h.release(p);
}

TEST(SharedHeapReserve, UnreservableBlockIsNotServedAndReservedOnesStillAre) {
  // In a child: the filter cannot be removed again.
  const test::ChildResult r = test::run_in_child([](int fd) {
    SharedHeap::force_reserve_for_tests(true);
    SharedHeap& h = SharedHeap::instance();
    h.activate();
    bool zeroed = false;
    void* first = h.allocate(4 * kMiB, 16, &zeroed);
    void* guard = h.allocate(SharedHeap::kMinBytes, 16, &zeroed);  // keeps the heap's top above `first`
    if (first == nullptr || guard == nullptr) {
      test::report(fd, "no blocks before the filter");
      return 1;
    }
    h.release(first);
    if (!test::make_fallocate_fail()) {
      test::report(fd, std::string("seccomp: ") + std::strerror(errno));
      return 1;
    }
    // Beyond what was ever reserved: refused, not handed out to fault later.
    if (h.allocate(16 * kMiB, 16, &zeroed) != nullptr) test::report(fd, "an unreserved block was served; ");
    // Within the pages reserved before: served, and every page can be written.
    void* again = h.allocate(2 * kMiB, 16, &zeroed);
    if (again == nullptr) {
      test::report(fd, "a block within the reserved pages was refused; ");
    } else {
      std::memset(again, 0x44, 2 * kMiB);
    }
    test::report(fd, "done");
    return 0;
  });
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_EQ(r.report, "done");
}

}  // namespace
}  // namespace takyon::mpi::shm
