// SPDX-License-Identifier: MIT
// Who is on the other end of a rendezvous connection: the connecting process's credentials as the
// kernel recorded them at connect() (SO_PEERCRED), and whether that process is one of takyon-run's
// own descendants (a rank, or a process a rank's wrapper script started).
#pragma once

#include <sys/types.h>

#include <optional>

namespace takyon::mpi::launcher {

struct PeerCredentials {
  pid_t pid = 0;  ///< 0 when the peer lives in a pid namespace takyon-run cannot see
  uid_t uid = 0;
};

/// SO_PEERCRED of a connected Unix socket; nothing if the kernel would not say.
[[nodiscard]] std::optional<PeerCredentials> peer_credentials(int fd) noexcept;

/// Whether `pid` is `ancestor` or descends from it, following parents through /proc/<pid>/stat
/// (at most 64 generations). False when a process on the way is gone or /proc cannot be read.
[[nodiscard]] bool descends_from(pid_t pid, pid_t ancestor) noexcept;

}  // namespace takyon::mpi::launcher
