// SPDX-License-Identifier: MIT
// The system-call seam's defaults and the futex wrappers.
#include "common/sys.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace takyon::sys {
namespace {

int real_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

constexpr Ops kRealOps = {
    ::shm_open, ::shm_unlink, ::ftruncate,     ::posix_fallocate,
    ::mmap,     ::munmap,     real_pidfd_open, ::memfd_create,
};

Ops g_ops = kRealOps;

}  // namespace

Ops& ops() noexcept {
  return g_ops;
}
void reset_ops() noexcept {
  g_ops = kRealOps;
}

int futex_wait(const uint32_t* word, uint32_t expected, int64_t timeout_ns, bool shared) noexcept {
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout_ns >= 0) {
    ts.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
    tsp = &ts;
  }
  const int op = shared ? FUTEX_WAIT : (FUTEX_WAIT | FUTEX_PRIVATE_FLAG);
  return static_cast<int>(syscall(SYS_futex, word, op, expected, tsp, nullptr, 0));
}

void futex_wake(const uint32_t* word, int count, bool shared) noexcept {
  const int op = shared ? FUTEX_WAKE : (FUTEX_WAKE | FUTEX_PRIVATE_FLAG);
  syscall(SYS_futex, word, op, count, nullptr, nullptr, 0);
}

}  // namespace takyon::sys
