// SPDX-License-Identifier: MIT
// abort_on_failure aborts with the message on stderr; TAKYON_VERBOSITY_ERRORS alone prints errors.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "fault/fault_common.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ids.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"

namespace takyon::test {
namespace {

using AbortOnFailure = PathTest;

void create_bogus_and_abort() {
  Attrs attrs("InterThreadMemcpy", unique_path_id(), true, true, 1, 1, 64, 1.0);
  attrs.set_interconnect("BogusProvider -ID=1");
  attrs.attrs.abort_on_failure = true;
  (void)takyonCreate(attrs.get());
}

// A connected InterThreadMemcpy path whose endpoint A (abort_on_failure) sends on buffer 5 of 1.
void send_bad_index_and_abort() {
  const uint32_t id = unique_path_id();
  std::thread peer([id] {
    Attrs attrs("InterThreadMemcpy", id, false, true, 1, 1, 64, 2.0);
    TakyonPath* path = takyonCreate(attrs.get());
    if (path == nullptr) return;
    bool timed_out = false;
    (void)takyonRecv(path, 0, nullptr, nullptr, &timed_out);
    std::free(takyonDestroy(&path));
  });
  Attrs attrs("InterThreadMemcpy", id, true, true, 1, 1, 64, 2.0);
  attrs.attrs.abort_on_failure = true;
  TakyonPath* path = takyonCreate(attrs.get());
  bool timed_out = false;
  if (path != nullptr) (void)takyonSend(path, 5, 8, 0, 0, &timed_out);
  peer.join();
  if (path != nullptr) std::free(takyonDestroy(&path));
}

TEST_F(AbortOnFailure, CreateErrorAbortsWithTheMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(create_bogus_and_abort(), "BogusProvider");
}

TEST_F(AbortOnFailure, SendErrorAbortsWithTheMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(send_bad_index_and_abort(), "takyonSend[^\n]*|buffer");
}

using Verbosity = PathTest;

TEST_F(Verbosity, ErrorsAreOnlyPrintedWhenAsked) {
  Attrs quiet("InterThreadMemcpy", new_id(), true, true, 1, 1, 64, 1.0);
  quiet.set_interconnect("BogusProvider -ID=1");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(takyonCreate(quiet.get()), nullptr);
  std::string err = ::testing::internal::GetCapturedStderr();
  std::free(quiet.attrs.error_message);
  EXPECT_EQ(err, "") << "TAKYON_VERBOSITY_NONE must print nothing";

  Attrs loud("InterThreadMemcpy", new_id(), true, true, 1, 1, 64, 1.0);
  loud.set_interconnect("BogusProvider -ID=1");
  loud.attrs.verbosity = TAKYON_VERBOSITY_ERRORS;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(takyonCreate(loud.get()), nullptr);
  err = ::testing::internal::GetCapturedStderr();
  std::free(loud.attrs.error_message);
  EXPECT_TRUE(mentions_all(err, {"BogusProvider"}))
      << "TAKYON_VERBOSITY_ERRORS must print the error to stderr";
}

}  // namespace
}  // namespace takyon::test
