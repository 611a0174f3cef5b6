// SPDX-License-Identifier: MIT
// common::ShmObject: sizing reserves the memory (posix_fallocate through the system-call seam), so
// a full /dev/shm is resize()'s error, not a SIGBUS; created objects are 0600 whatever the umask and
// report their owner.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "common/shm_object.hpp"
#include "common/sys.hpp"

namespace takyon::common {
namespace {

struct SeamReset {
  ~SeamReset() { sys::reset_ops(); }
};

std::string unique_name(const char* what) {
  static int counter = 0;
  return "/takyon-test-shm-object-" + std::string(what) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++);
}

int g_fallocate_calls = 0;

TEST(ShmObject, ResizeReportsPosixFallocateFailure) {
  SeamReset reset;
  g_fallocate_calls = 0;
  // posix_fallocate returns the error number and leaves errno alone: the error must come from
  // the return value, not from a stale errno.
  sys::ops().posix_fallocate = [](int, off_t, off_t) {
    ++g_fallocate_calls;
    errno = 0;
    return ENOSPC;
  };
  ShmObject shm;
  SysError error;
  const std::string name = unique_name("enospc");
  ASSERT_TRUE(shm.create(name, error)) << error.text();
  EXPECT_FALSE(shm.resize(std::uint64_t(1) << 20, error));
  EXPECT_STREQ(error.call, "posix_fallocate");
  EXPECT_EQ(error.err, ENOSPC);
  EXPECT_EQ(error.text(), "posix_fallocate: No space left on device");
  EXPECT_EQ(g_fallocate_calls, 1);
  shm.unlink();
}

TEST(ShmObject, ResizeRetriesPosixFallocateAfterEintr) {
  SeamReset reset;
  g_fallocate_calls = 0;
  sys::ops().posix_fallocate = [](int fd, off_t offset, off_t length) {
    return ++g_fallocate_calls < 3 ? EINTR : ::posix_fallocate(fd, offset, length);
  };
  ShmObject shm;
  SysError error;
  const std::string name = unique_name("eintr");
  ASSERT_TRUE(shm.create(name, error)) << error.text();
  ASSERT_TRUE(shm.resize(64 * 1024, error)) << error.text();
  EXPECT_EQ(g_fallocate_calls, 3);
  std::uint64_t bytes = 0;
  ASSERT_TRUE(shm.current_size(bytes, error)) << error.text();
  EXPECT_EQ(bytes, 64U * 1024U);
  // Reserved: the blocks are allocated now, not at the first touch.
  struct stat st {};
  ASSERT_EQ(fstat(shm.fd(), &st), 0);
  EXPECT_GE(std::uint64_t(st.st_blocks) * 512U, 64U * 1024U);
  shm.unlink();
}

TEST(ShmObject, ResizeToZeroReservesNothing) {
  SeamReset reset;
  g_fallocate_calls = 0;
  sys::ops().posix_fallocate = [](int, off_t, off_t) {
    ++g_fallocate_calls;
    return EINVAL;
  };
  ShmObject shm;
  SysError error;
  const std::string name = unique_name("zero");
  ASSERT_TRUE(shm.create(name, error)) << error.text();
  EXPECT_TRUE(shm.resize(0, error)) << error.text();
  EXPECT_EQ(g_fallocate_calls, 0);
  shm.unlink();
}

TEST(ShmObject, FtruncateFailureIsReportedBeforeAnyReservation) {
  SeamReset reset;
  g_fallocate_calls = 0;
  sys::ops().ftruncate = [](int, off_t) {
    errno = EFBIG;
    return -1;
  };
  sys::ops().posix_fallocate = [](int, off_t, off_t) {
    ++g_fallocate_calls;
    return 0;
  };
  ShmObject shm;
  SysError error;
  const std::string name = unique_name("ftruncate");
  ASSERT_TRUE(shm.create(name, error)) << error.text();
  EXPECT_FALSE(shm.resize(4096, error));
  EXPECT_STREQ(error.call, "ftruncate");
  EXPECT_EQ(error.err, EFBIG);
  EXPECT_EQ(g_fallocate_calls, 0);
  shm.unlink();
}

TEST(ShmObject, CreatedObjectIs0600WhateverTheUmaskAndOurs) {
  const mode_t old_umask = umask(0277);
  ShmObject shm;
  SysError error;
  const std::string name = unique_name("mode");
  const bool created = shm.create(name, error);
  umask(old_umask);
  ASSERT_TRUE(created) << error.text();
  uid_t uid = 0;
  mode_t mode = 0;
  ASSERT_TRUE(shm.owner(uid, mode, error)) << error.text();
  EXPECT_EQ(uid, geteuid());
  EXPECT_EQ(mode, mode_t(0600));
  shm.unlink();
}

}  // namespace
}  // namespace takyon::common
