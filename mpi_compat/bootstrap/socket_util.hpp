// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the rendezvous client and the launcher.
#pragma once

#include <string>
#include <string_view>

#include "common/unique_fd.hpp"

namespace takyon::mpi::detail {

using common::UniqueFd;

/// strerror(err) as a std::string.
[[nodiscard]] std::string errno_text(int err);

/// Writes all of data to a socket (blocking, MSG_NOSIGNAL, retries EINTR). Returns 0 or an errno.
[[nodiscard]] int send_all(int fd, std::string_view data) noexcept;

/// Parses "a.b.c.d:port" (IPv4). Returns false when it is not one.
[[nodiscard]] bool parse_ipv4_endpoint(std::string_view text, unsigned& addr_be, unsigned short& port_be);

}  // namespace takyon::mpi::detail
