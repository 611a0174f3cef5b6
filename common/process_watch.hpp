// SPDX-License-Identifier: MIT
// ProcessWatch: whether a process on this host has exited, the one liveness check of the tree (the
// inter-process provider's peer monitor, the MPI engine's peers). A pidfd opened while the process is
// known alive keeps naming that process after its pid is reused and becomes readable once it exits
// (zombie or not); where the kernel has no pidfd_open (before 5.3) the fallback is kill(pid, 0) plus
// the state in /proc (a zombie still answers kill).
#pragma once

#include <sys/types.h>

#include "common/unique_fd.hpp"

namespace takyon::common {

class ProcessWatch {
 public:
  ProcessWatch() = default;
  /// Starts watching `pid`. Call it while the process is known alive: a process that has already
  /// gone gives no pidfd (ESRCH), and the fallback then finds it gone. A pid of 0 or less watches
  /// nothing (exited() stays false).
  explicit ProcessWatch(pid_t pid);

  /// true once the watched process has exited; false while it runs, or when nothing is watched.
  [[nodiscard]] bool exited() const noexcept;
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// The pidfd, -1 where there is none (for pidfd_getfd and the like).
  [[nodiscard]] int pidfd() const noexcept { return pidfd_.get(); }

 private:
  pid_t pid_ = 0;
  UniqueFd pidfd_;
};

}  // namespace takyon::common
