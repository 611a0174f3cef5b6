// SPDX-License-Identifier: MIT
// Starting ranks: finding the program, the CPUs to bind to, fork + exec with the rank's environment.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace takyon::mpi::launcher {

/// The job cannot start; exit_code is what takyon-run returns (126, 127 like a shell).
class LaunchError : public std::runtime_error {
 public:
  LaunchError(const std::string& what, int exit_code) : std::runtime_error(what), exit_code_(exit_code) {}
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

/// The file execvp would run for `name`: a name with '/' as is, otherwise the first executable
/// match in PATH. Throws LaunchError (127: not found, 126: found but not executable).
std::string resolve_program(const std::string& name);

/// The CPUs this process may run on, in binding order (cpus_cores_first). Throws LaunchError.
std::vector<int> allowed_cpus();

/// `base` (NAME=value strings) with every name in `set` replaced or added.
std::vector<std::string> with_variables(const std::vector<std::string>& base,
                                        const std::vector<std::pair<std::string, std::string>>& set);

struct RankLaunch {
  std::string path;               ///< from resolve_program
  std::vector<std::string> argv;  ///< argv[0] as the user wrote it
  std::vector<std::string> env;
  int cpu = -1;       ///< pin to this CPU; -1: no pinning
  int stdin_fd = -1;  ///< dup'ed to the rank's stdin; -1: inherit ours
  sigset_t sigmask;   ///< the signal mask the rank starts with
};

/// Forks and execs one rank; the rank is killed if takyon-run dies. Returns its pid.
/// Throws LaunchError when fork fails. An exec failure shows as the rank exiting 127 (126).
pid_t spawn_rank(const RankLaunch& launch);

}  // namespace takyon::mpi::launcher
