// SPDX-License-Identifier: MIT
// The MPI inboxes' segments (mpi_compat/src/shm/segment.hpp) against a hostile or full /dev/shm:
// a segment another user created, or one with a mode other than 0600, is refused with its owner
// named; a name that exists already is never reused; a /dev/shm without room is create()'s error
// (out_of_space), not a SIGBUS; and takyon-run's clean-up removes only this user's inboxes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "job_id.hpp"
#include "private_shm.hpp"
#include "shm/segment.hpp"

namespace takyon::mpi::shm {
namespace {

constexpr uid_t kNobody = 65534;

std::string unique_name(const char* what) {
  static int counter = 0;
  return "/takyon-test-inbox-" + std::string(what) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++);
}

/// Creates `name` with `mode` as user `uid` (a child that drops to it). Returns "" or the error.
std::string create_as(uid_t uid, const std::string& name, mode_t mode) {
  const pid_t child = fork();
  if (child == 0) {
    if (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) _exit(1);
    umask(0);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, mode);
    if (fd < 0 || ftruncate(fd, 4096) != 0) _exit(2);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0
             ? ""
             : "could not create " + name + " as uid " + std::to_string(uid);
}

std::string open_error(const std::string& name) {
  try {
    Segment seg = Segment::open(name);
    return "opened";
  } catch (const SegmentError& e) {
    return e.what();
  }
}

TEST(InboxSegment, RefusesASegmentOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "creating a segment as another user needs root";
  const std::string name = unique_name("foreign");
  ASSERT_EQ(create_as(kNobody, name, 0600), "");
  const std::string error = open_error(name);
  shm_unlink(name.c_str());
  EXPECT_NE(error.find("/dev/shm" + name), std::string::npos) << error;
  EXPECT_NE(error.find("owned by uid 65534"), std::string::npos) << error;
  EXPECT_NE(error.find("refusing"), std::string::npos) << error;
  // The user's name where the system knows it.
  if (getpwuid(kNobody) != nullptr) {
    EXPECT_NE(error.find(std::string("(") + getpwuid(kNobody)->pw_name + ")"), std::string::npos) << error;
  }
}

TEST(InboxSegment, RefusesAWorldWritableSegmentEvenOfThisUser) {
  const std::string name = unique_name("mode");
  ASSERT_EQ(create_as(geteuid(), name, 0666), "");
  const std::string error = open_error(name);
  shm_unlink(name.c_str());
  EXPECT_NE(error.find("mode 0666"), std::string::npos) << error;
  EXPECT_NE(error.find("with mode 0600"), std::string::npos) << error;
}

TEST(InboxSegment, OpensItsOwnSegment) {
  const std::string name = unique_name("own");
  Segment created = Segment::create(name, 64 * 1024);
  static_cast<char*>(created.data())[4096] = 42;
  Segment opened = Segment::open(name);
  EXPECT_EQ(opened.size(), 64U * 1024U);
  EXPECT_EQ(static_cast<char*>(opened.data())[4096], 42);
  created.unlink();
  struct stat st {};
  EXPECT_NE(stat(("/dev/shm" + name).c_str(), &st), 0) << "the name is still there";
}

TEST(InboxSegment, NeverReusesANameThatExists) {
  if (geteuid() != 0) GTEST_SKIP() << "creating a segment as another user needs root";
  const std::string name = unique_name("taken");
  ASSERT_EQ(create_as(kNobody, name, 0666), "");
  std::string error = "created";
  try {
    Segment seg = Segment::create(name, 4096);
  } catch (const SegmentError& e) {
    error = e.what();
  }
  struct stat st {};
  const bool still_theirs = stat(("/dev/shm" + name).c_str(), &st) == 0 && st.st_uid == kNobody;
  shm_unlink(name.c_str());
  EXPECT_NE(error.find("exists already (owned by uid 65534"), std::string::npos) << error;
  EXPECT_TRUE(still_theirs) << "the other user's segment was removed or replaced";
}

TEST(InboxSegment, FullDevShmIsCreatesError) {
  const std::string unavailable = test::private_shm_unavailable();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  const test::ChildResult r = test::run_with_private_shm("1m", [](int fd) {
    try {
      Segment seg = Segment::create("/takyon-test-inbox-full", std::size_t(4) << 20);
      test::report(fd, "created");
      return 1;
    } catch (const SegmentError& e) {
      test::report(fd, std::string(e.what()) + (e.out_of_space() ? " [out of space]" : ""));
    }
    struct stat st {};
    if (stat("/dev/shm/takyon-test-inbox-full", &st) == 0) test::report(fd, " [left behind]");
    // What fits still works, every page of it.
    Segment small = Segment::create("/takyon-test-inbox-fits", 512 * 1024);
    std::memset(small.data(), 1, small.size());
    return 0;
  });
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_EQ(r.report,
            "shared-memory segment /dev/shm/takyon-test-inbox-full: posix_fallocate: No space left on device "
            "[out of space]");
}

TEST(InboxSegment, TakyonRunCleanUpRemovesOnlyThisUsersInboxesOfTheJob) {
  const std::string job = "test-" + std::to_string(getpid());
  const std::string key = random_hex(kInboxKeyBytes);
  const std::string mine = mpi_inbox_name(job, 0, key);
  const std::string other_job = mpi_inbox_name(job + "-1", 0, key);  // a job whose id extends this one's
  const std::string not_inbox = "/takyon-mpi-" + job + "-0";         // no key: not an inbox name
  for (const std::string& n : {mine, other_job, not_inbox}) ASSERT_EQ(create_as(geteuid(), n, 0600), "") << n;
  std::string foreign;
  if (geteuid() == 0) {
    foreign = mpi_inbox_name(job, 1, key);
    ASSERT_EQ(create_as(kNobody, foreign, 0600), "");
  }
  remove_mpi_inboxes(job);
  auto exists = [](const std::string& n) {
    struct stat st {};
    return stat(("/dev/shm" + n).c_str(), &st) == 0;
  };
  EXPECT_FALSE(exists(mine));
  EXPECT_TRUE(exists(other_job));
  EXPECT_TRUE(exists(not_inbox));
  if (!foreign.empty()) {
    EXPECT_TRUE(exists(foreign)) << "another user's file was removed";
  }
  for (const std::string& n : {mine, other_job, not_inbox, foreign}) {
    if (!n.empty()) shm_unlink(n.c_str());
  }
}

}  // namespace
}  // namespace takyon::mpi::shm
