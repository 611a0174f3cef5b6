// SPDX-License-Identifier: MIT
// The system-call seam: every call a test must be able to make fail goes through here.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace takyon::sys {

/// Function table; tests replace entries (see tests/unit) to inject failures. Not thread safe to
/// change while paths are being created.
struct Ops {
  int (*shm_open)(const char* name, int oflag, mode_t mode);
  int (*shm_unlink)(const char* name);
  int (*ftruncate)(int fd, off_t length);
  /// As posix_fallocate: returns 0 or the error number (errno is not set).
  int (*posix_fallocate)(int fd, off_t offset, off_t length);
  void* (*mmap)(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
  int (*munmap)(void* addr, size_t length);
  int (*pidfd_open)(pid_t pid);
  int (*memfd_create)(const char* name, unsigned int flags);
};

/// The live table (defaults: the real system calls).
Ops& ops() noexcept;
/// Restores the real system calls.
void reset_ops() noexcept;

/// Sleeps while *word == expected, up to timeout_ns (<0: no limit). `shared`: the word may live
/// in memory shared between processes. Returns 0, or -1 with errno (ETIMEDOUT, EAGAIN, EINTR).
int futex_wait(const uint32_t* word, uint32_t expected, int64_t timeout_ns, bool shared) noexcept;
/// Wakes up to `count` waiters sleeping on word.
void futex_wake(const uint32_t* word, int count, bool shared) noexcept;

}  // namespace takyon::sys
