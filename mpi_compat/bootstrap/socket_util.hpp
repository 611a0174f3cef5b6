// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the rendezvous client and the launcher.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <string_view>

#include "common/unique_fd.hpp"

namespace takyon::mpi::detail {

using common::UniqueFd;

/// strerror(err) as a std::string.
[[nodiscard]] std::string errno_text(int err);

/// Writes all of data to a socket (blocking, MSG_NOSIGNAL, retries EINTR). Returns 0 or an errno.
[[nodiscard]] int send_all(int fd, std::string_view data) noexcept;

/// Fills `sa` with the abstract Unix socket address `text` ("@name": the name follows a NUL in
/// sun_path). Returns the address length to pass to bind/connect, or 0 when `text` is not one.
[[nodiscard]] socklen_t abstract_unix_address(std::string_view text, sockaddr_un& sa) noexcept;

}  // namespace takyon::mpi::detail
