// SPDX-License-Identifier: MIT
// ProcessWatch (see process_watch.hpp).
#include "common/process_watch.hpp"

#include <poll.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/sys.hpp"

namespace takyon::common {
namespace {

/// Whether /proc says `pid` is a zombie or dead; false where /proc cannot tell.
bool process_is_zombie(pid_t pid) noexcept {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* f = std::fopen(path, "re");
  if (f == nullptr) return false;  // no /proc (kill(pid, 0) said the pid exists): not known dead
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const char* close_paren = std::strrchr(buf, ')');  // "pid (comm) S ..."
  return n > 0 && close_paren != nullptr && close_paren[1] != '\0' &&
         (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

}  // namespace

ProcessWatch::ProcessWatch(pid_t pid) : pid_(pid) {
  if (pid > 0) pidfd_.reset(sys::ops().pidfd_open(pid));
}

bool ProcessWatch::exited() const noexcept {
  if (pid_ <= 0) return false;
  if (pidfd_.valid()) {
    pollfd p{pidfd_.get(), POLLIN, 0};
    return poll(&p, 1, 0) > 0;  // readable (POLLIN) once the process exited
  }
  return (kill(pid_, 0) != 0 && errno == ESRCH) || process_is_zombie(pid_);
}

}  // namespace takyon::common
