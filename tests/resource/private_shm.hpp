// SPDX-License-Identifier: MIT
// Runs a function in a child process that sees its own small /dev/shm (a tmpfs of a given size in a
// private mount namespace), and reports how the child ended: the resource tests' way to fill
// /dev/shm without touching the machine's.
#pragma once

#include <functional>
#include <string>

namespace takyon::test {

/// Why a private /dev/shm cannot be had here ("" when it can): not root, or no mount namespaces.
[[nodiscard]] std::string private_shm_unavailable();

/// How the child ended, and what it wrote to the pipe (its report).
struct ChildResult {
  bool exited = false;  ///< false: killed by a signal
  int code = -1;        ///< exit code, or the signal number when !exited
  std::string report;
  [[nodiscard]] std::string describe() const;
};

/// Forks; the child exits with body(report_fd)'s value; whatever body writes to report_fd comes
/// back in `report`.
ChildResult run_in_child(const std::function<int(int report_fd)>& body);

/// Forks; the child enters a new mount namespace, mounts a tmpfs of `size` ("1m") on /dev/shm and
/// exits with body(report_fd)'s value; whatever body writes to report_fd comes back in `report`.
/// The child's setup failing is exit code 100 with the cause in the report.
ChildResult run_with_private_shm(const std::string& size, const std::function<int(int report_fd)>& body);

/// From now on fallocate (posix_fallocate) fails with ENOSPC in this process and its children, as a
/// failed memory charge would (a seccomp filter: for a child process, it cannot be removed). False
/// with errno where the filter cannot be installed, or this machine's architecture is not known here.
bool make_fallocate_fail();

/// Writes all of `text` to fd (the child's report).
void report(int fd, const std::string& text);

}  // namespace takyon::test
