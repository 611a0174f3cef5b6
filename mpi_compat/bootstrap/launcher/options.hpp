// SPDX-License-Identifier: MIT
// takyon-run's command line.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace takyon::mpi::launcher {

/// kAuto (the default) follows mpirun's rule: bind to cores when the ranks fit on the CPUs this
/// process may use, otherwise do not bind.
enum class BindTo { kAuto, kNone, kCore };

struct Options {
  int nranks = 0;
  BindTo bind_to = BindTo::kAuto;
  double timeout_s = 0;                    ///< 0: no limit (--timeout, else MPIEXEC_TIMEOUT)
  const char* timeout_from = "--timeout";  ///< where timeout_s came from, for the messages
  std::vector<std::string> argv;           ///< the program and its arguments
};

/// A command line takyon-run cannot run; the message says why in one line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The most ranks one takyon-run starts.
inline constexpr int kMaxRanks = 4096;

/// Parses argv; options end at the first argument that is not one (or at "--"). Without --timeout,
/// the environment's MPIEXEC_TIMEOUT (seconds, as mpirun and mpiexec read it) sets the limit.
/// Returns nothing when the user asked for --help (the text is printed). Throws UsageError.
std::optional<Options> parse_options(int argc, char** argv);

[[nodiscard]] std::string usage_text();

}  // namespace takyon::mpi::launcher
