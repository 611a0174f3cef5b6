// SPDX-License-Identifier: MIT
// The socket providers' factories and provider specs: connected (Socket over TCP,
// InterProcessSocket over a Unix socket) and connectionless (UDP unicast and multicast).
#pragma once

#include "backend.hpp"

namespace takyon::detail {

struct SocketBackend {
  /// "InterProcessSocket -ID=n": endpoint A listens on the abstract Unix socket
  /// @takyon-<uid>-InterProcessSocket-<n>, endpoint B connects.
  static Status create_inter_process(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                     std::unique_ptr<Backend>& out);
  /// "Socket -server|-client -IP=<addr> (-port=<p> | -ID=<n>) [-reuse]" over TCP.
  static Status create_tcp(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                           std::unique_ptr<Backend>& out);
  static Status create_unicast_send(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                    std::unique_ptr<Backend>& out);
  static Status create_unicast_recv(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                    std::unique_ptr<Backend>& out);
  static Status create_multicast_send(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                      std::unique_ptr<Backend>& out);
  static Status create_multicast_recv(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                      std::unique_ptr<Backend>& out);
};

}  // namespace takyon::detail
