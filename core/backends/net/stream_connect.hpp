// SPDX-License-Identifier: MIT
// Connecting a byte stream between the two endpoints of a path: the abstract Unix socket of
// InterProcessSocket, and TCP server/client with a fixed port or one found by discovery. The
// socket providers carry their messages over the stream; the Ucx provider uses it to exchange
// addresses and keys at create, and afterwards as its liveness and close channel.
#pragma once

#include <string>

#include "backend.hpp"
#include "backends/net/socket_common.hpp"

namespace takyon::detail {

/// A connected, non-blocking stream socket and who is at the other end.
struct StreamConnection {
  common::UniqueFd fd;
  bool tcp = true;         ///< TCP (link checks apply) or a Unix socket.
  std::string peer;        ///< "server 10.0.0.1:4000", "endpoint A (@takyon-...)": for messages.
  pid_t peer_pid = 0;      ///< Unix sockets: the peer process, as the kernel tells (SO_PEERCRED).
  common::UniqueFd claim;  ///< Unix sockets with hold_claims: the bound name that keeps this side taken.
};

/// Endpoint A listens on the abstract Unix socket @`name` and accepts only its own user's
/// process; endpoint B connects, retrying until A appears or `deadline`, and goes on only if the
/// listener is its own user's process (abstract names have no permissions: anyone may bind one).
/// A name held by another user is an error naming that user. With `hold_claims`, each side first
/// binds @`name`-A or @`name`-B and returns it in `claim`: while held, a second endpoint of the
/// same side fails at once.
Status connect_unix_stream(const std::string& name, const EndpointConfig& config, Deadline deadline,
                           ErrorLog& log, StreamConnection& out, bool hold_claims = false);

/// TCP from the provider's `-server|-client -IP=<addr> (-port=<p> | -ID=<n>) [-reuse]`.
Status connect_tcp_stream(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                          StreamConnection& out);

}  // namespace takyon::detail
