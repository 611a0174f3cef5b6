// SPDX-License-Identifier: MIT
// Self-check of the test runner: failures, crashes and hangs of either endpoint reach gtest.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <string>

#include "support/endpoint_runner.hpp"

namespace takyon::test {
namespace {

// Runs the endpoints with gtest's reporter intercepted; returns the failure messages.
std::vector<std::string> failures_of(Mode mode, const EndpointFn& fn_a, const EndpointFn& fn_b,
                                     const RunOptions& options = {}) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    run_endpoints(mode, fn_a, fn_b, options);
  }
  std::vector<std::string> out;
  for (int i = 0; i < results.size(); ++i) out.emplace_back(results.GetTestPartResult(i).message());
  return out;
}

bool any_contains(const std::vector<std::string>& messages, const std::string& word) {
  for (const std::string& m : messages) {
    if (m.find(word) != std::string::npos) return true;
  }
  return false;
}

TEST(RunnerSelfCheck, ChildFailuresReachTheParent) {
  const auto messages = failures_of(
      Mode::kProcesses,
      [](Endpoint& ep) {
        TK_EXPECT(ep, 1 == 2) << "parent-side";
        ep.notify_peer();
      },
      [](Endpoint& ep) {
        TK_ASSERT(ep, ep.wait_peer());
        TK_EXPECT(ep, ep.in_child()) << "not in a child";
        TK_EXPECT(ep, false) << "child-side";
        TK_ASSERT(ep, false) << "child-fatal";
        TK_EXPECT(ep, false) << "not reached";
      });
  EXPECT_EQ(messages.size(), 3u);
  EXPECT_TRUE(any_contains(messages, "endpoint A (parent process): check failed: 1 == 2. parent-side"));
  EXPECT_TRUE(any_contains(messages, "endpoint B (child process): check failed: false. child-side"));
  EXPECT_TRUE(any_contains(messages, "child-fatal"));
  EXPECT_FALSE(any_contains(messages, "not reached"));
}

TEST(RunnerSelfCheck, ChildCrashAndHangAreFailures) {
  auto messages = failures_of(
      Mode::kProcesses, [](Endpoint&) {}, [](Endpoint&) { std::abort(); });
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("died of signal"), std::string::npos) << messages[0];

  RunOptions options;
  options.child_deadline_s = 0.3;
  messages = failures_of(
      Mode::kProcesses, [](Endpoint&) {},
      [](Endpoint&) {
        for (;;) pause();
      },
      options);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("did not finish"), std::string::npos) << messages[0];
}

TEST(RunnerSelfCheck, ThreadFailuresAndExceptionsAreReported) {
  const auto messages = failures_of(
      Mode::kThreads, [](Endpoint& ep) { TK_EXPECT(ep, ep.is_a() && false) << "A-side"; },
      [](Endpoint&) { throw std::runtime_error("boom"); });
  EXPECT_EQ(messages.size(), 2u);
  EXPECT_TRUE(any_contains(messages, "A-side"));
  EXPECT_TRUE(any_contains(messages, "endpoint B: uncaught exception: boom"));
}

TEST(RunnerSelfCheck, ChildMayBeEndpointAAndValuesCrossTheSideChannel) {
  RunOptions options;
  options.child_is_a = true;
  const auto messages = failures_of(
      Mode::kProcesses,
      [](Endpoint& ep) {
        TK_EXPECT(ep, ep.in_child() && ep.is_a());
        double value = 0;
        TK_EXPECT(ep, ep.wait_peer(5, &value) && value == 2.5) << "value " << value;
        TK_EXPECT(ep, !ep.wait_peer(5)) << "the parent's side channel should be closed";
      },
      [](Endpoint& ep) {
        TK_EXPECT(ep, !ep.in_child() && ep.child_pid() > 0);
        ep.notify_peer(2.5);
      },
      options);
  EXPECT_TRUE(messages.empty()) << messages[0];
}

TEST(RunnerSelfCheck, KilledChildIsNotAFailure) {
  const auto messages = failures_of(
      Mode::kProcesses,
      [](Endpoint& ep) {
        TK_ASSERT(ep, ep.wait_peer());
        (void)ep.kill_child();
      },
      [](Endpoint& ep) {
        ep.notify_peer();
        for (;;) pause();
      });
  EXPECT_TRUE(messages.empty()) << messages[0];
}

}  // namespace
}  // namespace takyon::test
