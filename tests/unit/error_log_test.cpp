// SPDX-License-Identifier: MIT
// ErrorLog: the cause comes first with file:function:line, callers add frames below it.
#include <gtest/gtest.h>

#include <cerrno>

#include "error_log.hpp"

namespace takyon::detail {
namespace {

Status inner(ErrorLog& log) {
  return TAKYON_FAIL(log, Status::kDisconnected, "peer process %d exited", 4711);
}

Status outer(ErrorLog& log) {
  const Status status = inner(log);
  TAKYON_FRAME(log, "while waiting on buffer %d", 2);
  return status;
}

TEST(ErrorLog, FormatsCauseThenFramesWithLocations) {
  ErrorLog log;
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(outer(log), Status::kDisconnected);
  const std::string text = log.format("takyonRecv: path 'InterProcessMemcpy -ID=7' endpoint B buffer 2");
  EXPECT_EQ(text.rfind("takyonRecv: path 'InterProcessMemcpy -ID=7' endpoint B buffer 2: disconnected\n", 0),
            0u)
      << text;
  const size_t cause = text.find("error_log_test.cpp:inner:");
  const size_t frame = text.find("error_log_test.cpp:outer:");
  ASSERT_NE(cause, std::string::npos) << text;
  ASSERT_NE(frame, std::string::npos) << text;
  EXPECT_LT(cause, frame);
  EXPECT_NE(text.find("peer process 4711 exited"), std::string::npos);
  EXPECT_NE(text.find("while waiting on buffer 2"), std::string::npos);
}

TEST(ErrorLog, NewFailureReplacesTheOldStack) {
  ErrorLog log;
  (void)TAKYON_FAIL(log, Status::kSystem, "first");
  (void)TAKYON_FAIL(log, Status::kTimeout, "second");
  const std::string text = log.format("op");
  EXPECT_EQ(text.find("first"), std::string::npos);
  EXPECT_NE(text.find("second"), std::string::npos);
  EXPECT_EQ(log.status(), Status::kTimeout);
  log.clear();
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.status(), Status::kOk);
}

TEST(ErrorLog, ErrnoTextNamesTheNumber) {
  EXPECT_NE(errno_text(ENOENT).find("errno 2"), std::string::npos);
  EXPECT_EQ(strf("%d-%s", 5, "x"), "5-x");
  EXPECT_EQ(strf("%s", ""), "");
}

}  // namespace
}  // namespace takyon::detail
