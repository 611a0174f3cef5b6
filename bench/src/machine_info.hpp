// SPDX-License-Identifier: MIT
// Facts about the machine and build that make a result file comparable later.
#pragma once

#include <string>

namespace takyon::bench {

struct MachineInfo {
  std::string cpu_model;
  unsigned online_cpus = 0;
  std::string hostname;
  std::string kernel;
  std::string date_utc;  ///< ISO 8601.
  std::string command_line;
  std::string git_describe;  ///< "unknown" when neither the source tree nor the build knew.
  std::string build_type;    ///< CMAKE_BUILD_TYPE of the bench (and of libtakyon in one build).
  std::string compiler;
  double load_average = -1;       ///< 1-minute load average at start (-1: unknown).
  double other_load_before = -1;  ///< Share of all CPUs other processes used just before the run.
  double other_load_during = -1;  ///< ... and during it (see machine_load.hpp); -1: unknown.
};

/// Above this share of the CPUs used by other processes, the reports call the numbers noisy.
inline constexpr double kNoisyOtherLoad = 0.05;

/// Collects the machine info (runs `git describe` in the source tree if it is there).
MachineInfo collect_machine_info(const std::string& command_line);

}  // namespace takyon::bench
