// SPDX-License-Identifier: MIT
// Runs a path's two endpoints as two threads or as parent and fork()ed child, collecting failures.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "support/timing.hpp"

namespace takyon::test {

/// Threads: both endpoints in this process. Processes: one endpoint in a fork()ed child.
enum class Mode { kThreads, kProcesses };

struct Failure {
  std::string file;
  int line = 0;
  std::string message;
};

/// Thrown by TK_ASSERT (after recording the failure) to end an endpoint function early.
struct EndpointAbort {};

/// What an endpoint function gets: its role, a side channel to the peer endpoint (independent of
/// Takyon) and a failure log that works in a forked child, where gtest assertions would be lost.
/// Failures may be added from any thread.
class Endpoint {
 public:
  Endpoint(bool is_a, bool in_child, pid_t child_pid, int notify_fd, int wait_fd);
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  ~Endpoint();

  [[nodiscard]] bool is_a() const noexcept { return is_a_; }
  [[nodiscard]] const char* name() const noexcept { return is_a_ ? "A" : "B"; }
  [[nodiscard]] bool in_child() const noexcept { return in_child_; }
  /// The child's pid, for the parent endpoint in process mode; 0 otherwise.
  [[nodiscard]] pid_t child_pid() const noexcept { return child_pid_; }

  /// Sends one token (carrying `value`, e.g. a now_s() time stamp) to the peer endpoint over the
  /// side channel.
  void notify_peer(double value = 0.0);
  /// Waits for one token from the peer (its value into *value when not NULL); false on timeout
  /// or when the peer's function has ended.
  [[nodiscard]] bool wait_peer(double timeout_s = kDefaultTimeout, double* value = nullptr);
  /// Parent in process mode: SIGKILLs the child and, if `reap`, reaps it at once (as a launcher
  /// would; else it stays a zombie until the runner reaps it). The runner then expects the
  /// child's death. Returns the time of the kill() call (now_s()).
  double kill_child(bool reap = true);
  [[nodiscard]] bool child_killed() const noexcept { return child_killed_.load(); }
  [[nodiscard]] bool child_reaped() const noexcept { return child_reaped_.load(); }

  void add_failure(const char* file, int line, std::string message);
  [[nodiscard]] bool ok() const;
  [[nodiscard]] std::vector<Failure> failures() const;

  /// Closes the notify side (the peer's wait_peer() then returns false at once).
  void close_notify();

 private:
  bool is_a_;
  bool in_child_;
  pid_t child_pid_;
  int notify_fd_;
  int wait_fd_;
  std::atomic<bool> child_killed_{false};
  std::atomic<bool> child_reaped_{false};
  mutable std::mutex mutex_;
  std::vector<Failure> failures_;
};

/// Builds a failure message with <<; records it when the statement ends (and ends the endpoint
/// function by throwing EndpointAbort when fatal).
class FailureBuilder {
 public:
  FailureBuilder(Endpoint& ep, const char* file, int line, const char* condition, bool fatal);
  FailureBuilder(const FailureBuilder&) = delete;
  FailureBuilder& operator=(const FailureBuilder&) = delete;
  ~FailureBuilder() noexcept(false);
  template <typename T>
  FailureBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  Endpoint& ep_;
  const char* file_;
  int line_;
  bool fatal_;
  std::ostringstream stream_;
};

// Assertions for endpoint functions (gtest's own would be lost in a forked child).
#define TK_EXPECT(ep, cond) \
  switch (0)                \
  case 0:                   \
  default:                  \
    if (cond) {             \
    } else                  \
      ::takyon::test::FailureBuilder((ep), __FILE__, __LINE__, #cond, false)
#define TK_ASSERT(ep, cond) \
  switch (0)                \
  case 0:                   \
  default:                  \
    if (cond) {             \
    } else                  \
      ::takyon::test::FailureBuilder((ep), __FILE__, __LINE__, #cond, true)
// For a ::testing::AssertionResult expression: its message goes into the failure.
#define TK_EXPECT_AR(ep, assertion)                                               \
  switch (0)                                                                      \
  case 0:                                                                         \
  default:                                                                        \
    if (const ::testing::AssertionResult tk_result_ = (assertion)) {              \
    } else                                                                        \
      ::takyon::test::FailureBuilder((ep), __FILE__, __LINE__, #assertion, false) \
          << tk_result_.message() << " "
#define TK_FAIL(ep) ::takyon::test::FailureBuilder((ep), __FILE__, __LINE__, "", true)
#define TK_ADD_FAILURE(ep) ::takyon::test::FailureBuilder((ep), __FILE__, __LINE__, "", false)

using EndpointFn = std::function<void(Endpoint&)>;

struct RunOptions {
  /// Process mode: the endpoint that runs in the child (the other runs in this process).
  bool child_is_a = false;
  /// Process mode: how long to wait for the child once the parent's endpoint has returned.
  double child_deadline_s = 30.0;
};

/// Runs fn_a as endpoint A and fn_b as endpoint B, then reports every failure either recorded
/// (gtest non-fatal failures at the recording file:line). Threads: A runs in the calling thread,
/// B in a new one. Processes: the child runs its function, sends its failures back through a
/// pipe and _exit()s (never returns into gtest); a child that crashes, hangs past its deadline
/// (then SIGKILLed) or exits non-zero is a failure too, unless the parent killed it on purpose.
void run_endpoints(Mode mode, const EndpointFn& fn_a, const EndpointFn& fn_b, const RunOptions& options = {});

/// Runs fn as a single endpoint in the calling thread and reports its failures.
void run_single(bool is_a, const EndpointFn& fn);

}  // namespace takyon::test
