// SPDX-License-Identifier: MIT
// A child program with its output captured, killed at its deadline so nothing a test starts hangs.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace takyon::test::netns {

/// Runs argv (argv[0] a path) with stdout and stderr into one captured pipe. The child gets its
/// own process group and dies with the test process (PR_SET_PDEATHSIG). The destructor kills the
/// group if it still runs and reaps it, so no child outlives its owner. Threading: one owner.
class ChildProcess {
 public:
  /// Starts the program; `limit_s` later it is SIGKILLed whatever it is doing. `input` is written
  /// to its stdin (then closed).
  ChildProcess(const std::vector<std::string>& argv, double limit_s, const std::string& input = "");
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// False when fork() failed (error() says why).
  [[nodiscard]] bool started() const { return pid_ > 0; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  /// The command line, for messages.
  [[nodiscard]] std::string command() const;

  /// Waits until a whole output line starts with `prefix` (true), the output ends or `timeout_s`
  /// passes (false).
  bool wait_line(std::string_view prefix, double timeout_s);
  /// The first whole output line that starts with `prefix`.
  [[nodiscard]] std::optional<std::string> line(std::string_view prefix) const;
  /// Every whole output line that starts with `prefix`.
  [[nodiscard]] std::vector<std::string> lines(std::string_view prefix) const;
  [[nodiscard]] std::string output() const;

  /// Sends a signal to the child alone (not its group).
  void signal(int sig) const;
  /// Waits for the child to exit, at most `timeout_s` and never past its limit (then SIGKILLs it).
  /// Returns the exit status, 128 + signal when killed by one, -1 when it could not be reaped.
  int wait(double timeout_s);
  /// Whether the child was killed because it ran past its limit or wait()'s timeout.
  [[nodiscard]] bool killed_on_timeout() const { return killed_on_timeout_; }
  /// Output and status for a failure message: "`cmd` exited 1:\n<output>".
  [[nodiscard]] std::string describe() const;

 private:
  void read_output(int fd);
  bool reap(bool block);

  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  double deadline_s_ = 0;
  int status_ = -1;
  bool reaped_ = false;
  bool killed_on_timeout_ = false;
  std::string error_;
  std::thread reader_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::string output_;  // guarded by mutex_
  bool eof_ = false;    // guarded by mutex_
};

/// Runs argv to completion (killed after `limit_s`): {exit status, output}.
struct CommandResult {
  int status = -1;
  std::string output;
};
CommandResult run_command(const std::vector<std::string>& argv, double limit_s = 10.0);

/// "KEY a=1 b=two text=rest of the line" -> {a: 1, b: two, text: rest of the line}. `text` (when
/// present) is always last and takes the rest of the line, spaces included.
std::map<std::string, std::string> parse_fields(std::string_view line);

}  // namespace takyon::test::netns
