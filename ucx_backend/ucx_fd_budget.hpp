// SPDX-License-Identifier: MIT
// File descriptors before UCX opens them. UCX 1.13 does not fail cleanly when a descriptor it needs
// is refused (EMFILE): ucp_init and ucp_worker_create crash or call ucs_fatal ("failed to set active
// message handler"), which aborts the process. So the module counts what is free under
// RLIMIT_NOFILE before each step that opens descriptors, and refuses the step when too few are.
#pragma once

#include <string>

#include "error_log.hpp"

namespace takyon::detail {

struct FdCount {
  long open = 0;   ///< descriptors open below the limit
  long limit = 0;  ///< RLIMIT_NOFILE's soft limit
  [[nodiscard]] long free() const noexcept { return limit > open ? limit - open : 0; }
};

/// Counts the open descriptors (/proc/self/fd). A count it cannot take (no /proc) reports as many free
/// as the limit allows.
FdCount count_fds() noexcept;

/// kOk when at least `need` descriptors are free; else fails with "Ucx: not enough free file
/// descriptors for <what> (need ~N, M free under RLIMIT_NOFILE=L)".
Status require_free_fds(long need, const char* what, const std::string& provider, ErrorLog& log);

// What UCX opens, estimated from what it opens descriptors for: ucp_init its async thread's epoll
// and event descriptors (and a device file per RDMA device); a worker its epoll and wakeup
// descriptors plus, per transport resource, a listening socket and event descriptors (tcp) or a
// shared-memory file and signal socket (posix); an endpoint a socket or two per tcp lane. Each
// estimate keeps a wide margin over what UCX was seen to open: a refused descriptor costs the
// process, a spare one nothing.

/// ucp_init: its async thread's epoll and event descriptors, and a device file per RDMA device.
inline constexpr long kUcxContextFds = 16;
/// ucp_worker_create, the endpoint's connection and its registered buffers, for a context with
/// `resources` transport resources (ucp_context_print_info) and `buffers` receive buffers.
[[nodiscard]] long ucx_endpoint_fds(long resources, long buffers) noexcept;

}  // namespace takyon::detail
