// SPDX-License-Identifier: MIT
// The shared heap (mpi_compat/src/shm/heap.hpp) under strict overcommit accounting, where a shared
// page that cannot be charged at its first touch is a SIGBUS: it reserves each block's new pages when
// it hands the block out, and a block it cannot reserve is not served (nullptr: malloc falls back to
// glibc). The accounting is forced on for the test; a seccomp filter makes fallocate fail.
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

#if defined(__x86_64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kAuditArch = 0;
#endif

/// From now on fallocate fails with ENOSPC in this process (as the charge of strict accounting would).
bool make_fallocate_fail() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fallocate, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSPC & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
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
  if (kAuditArch == 0) GTEST_SKIP() << "no seccomp architecture value for this machine in the test";
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
    if (!make_fallocate_fail()) {
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
