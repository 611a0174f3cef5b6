// SPDX-License-Identifier: MIT
// For the launch tests: run a command with its output in files, wait with a limit, and a
// temporary directory that cleans up after itself.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace takyon::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct RunResult {
  int exit_code = -1;      ///< 128+signal when killed by a signal
  bool timed_out = false;  ///< hit the limit and was killed
  double seconds = 0;
  double cpu_seconds = -1;  ///< the command's own CPU time (user + system, not its children's)
  std::string out;
  std::string err;
};

/// A started command. Its environment is ours without TAKYON_RUN_* and PMIX_* (so it starts
/// as a fresh job), with SIGINT and SIGTERM at their defaults and only descriptors 0-2 open.
class Subprocess {
 public:
  explicit Subprocess(const std::vector<std::string>& argv);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  [[nodiscard]] pid_t pid() const { return pid_; }
  /// Where its stdout goes (readable while it runs).
  [[nodiscard]] std::string out_path() const { return dir_.file("out"); }
  /// Waits up to `limit`; past it, kills the command (SIGKILL) and says so in timed_out.
  RunResult wait(std::chrono::milliseconds limit);

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point start_;
  bool reaped_ = false;
};

/// Runs argv to the end (at most `limit`).
RunResult run_command(const std::vector<std::string>& argv,
                      std::chrono::milliseconds limit = std::chrono::seconds(60));

[[nodiscard]] std::string read_file(const std::string& path);
/// Waits until `path` exists; false after `limit`.
bool wait_for_file(const std::string& path, std::chrono::milliseconds limit);

}  // namespace takyon::test
