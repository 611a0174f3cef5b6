// SPDX-License-Identifier: MIT
// Failures injected through the system-call seam become clear errors, never crashes; the
// pidfd-less liveness fallback still detects a dead peer.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

#include "common/sys.hpp"
#include "deadline.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"

namespace takyon::detail {
namespace {

uint32_t unique_id() {
  static uint32_t counter = 0;
  return static_cast<uint32_t>(getpid()) * 64u + 900000000u + counter++;
}

struct SeamReset {
  ~SeamReset() { sys::reset_ops(); }
};

std::string create_error(const std::string& provider, bool endpoint_a, double timeout = 0.2) {
  TakyonPathAttributes attrs = takyonAllocAttributes(endpoint_a, true, 1, 1, 4096, timeout, provider.c_str());
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  TakyonPath* path = takyonCreate(&attrs);
  std::string error = attrs.error_message != nullptr ? attrs.error_message : "";
  std::free(attrs.error_message);
  if (path != nullptr) {
    std::free(takyonDestroy(&path));
    error = "created";
  }
  takyonFreeAttributes(attrs);
  return error;
}

TEST(SysSeam, MmapFailureIsReportedByCreate) {
  SeamReset reset;
  sys::ops().mmap = [](void*, size_t, int, int, int, off_t) -> void* {
    errno = ENOMEM;
    return MAP_FAILED;
  };
  const std::string error = create_error("InterThreadMemcpy -ID=" + std::to_string(unique_id()), true);
  EXPECT_NE(error.find("takyonCreate"), std::string::npos) << error;
  EXPECT_NE(error.find("mmap of 4096 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("out of memory"), std::string::npos) << error;
}

TEST(SysSeam, MemfdFailureIsReportedByCreate) {
  SeamReset reset;
  sys::ops().memfd_create = [](const char*, unsigned int) {
    errno = EMFILE;
    return -1;
  };
  const std::string error = create_error("InterProcessMemcpy -ID=" + std::to_string(unique_id()), true);
  EXPECT_NE(error.find("creating the shared memory takyon-"), std::string::npos) << error;
  EXPECT_NE(error.find("memfd_create: Too many open files"), std::string::npos) << error;
}

// Sizing fails before the endpoint looks for its peer, so a lone endpoint reports it at once.
TEST(SysSeam, FtruncateFailureIsReportedByCreate) {
  SeamReset reset;
  sys::ops().ftruncate = [](int, off_t) {
    errno = ENOSPC;
    return -1;
  };
  const uint32_t id = unique_id();
  const std::string error = create_error("InterProcessPointer -ID=" + std::to_string(id), false, 5.0);
  EXPECT_NE(error.find("not enough memory: reserving"), std::string::npos) << error;
  EXPECT_NE(error.find("ftruncate: No space left on device"), std::string::npos) << error;
}

// With pidfd_open unavailable the backend falls back to kill(0) + /proc state; a killed peer
// (a zombie until reaped) must still be noticed within the 100 ms budget.
TEST(SysSeam, DeadPeerDetectedWithoutPidfd) {
  SeamReset reset;
  sys::ops().pidfd_open = [](pid_t) {
    errno = ENOSYS;
    return -1;
  };
  const std::string provider = "InterProcessMemcpy -ID=" + std::to_string(unique_id());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TakyonPathAttributes attrs = takyonAllocAttributes(false, true, 1, 1, 64, 5.0, provider.c_str());
    TakyonPath* path = takyonCreate(&attrs);
    if (path == nullptr) _exit(2);
    pause();  // killed by the parent
    _exit(0);
  }
  TakyonPathAttributes attrs = takyonAllocAttributes(true, false, 1, 1, 64, 5.0, provider.c_str());
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  attrs.recv_start_timeout = TAKYON_WAIT_FOREVER;
  attrs.recv_finish_timeout = TAKYON_WAIT_FOREVER;
  TakyonPath* path = takyonCreate(&attrs);
  ASSERT_NE(path, nullptr) << attrs.error_message;
  std::thread killer([child] {
    usleep(50'000);
    kill(child, SIGKILL);
  });
  const int64_t before = now_ns();
  const bool ok = takyonRecv(path, 0, nullptr, nullptr, nullptr);
  const int64_t waited_after_kill_ms = (now_ns() - before) / 1'000'000 - 50;
  killer.join();
  EXPECT_FALSE(ok);
  EXPECT_LT(waited_after_kill_ms, 100);
  EXPECT_NE(std::string(path->attrs.error_message).find("exited"), std::string::npos)
      << path->attrs.error_message;
  std::free(takyonDestroy(&path));
  waitpid(child, nullptr, 0);
  takyonFreeAttributes(attrs);
}

}  // namespace
}  // namespace takyon::detail
