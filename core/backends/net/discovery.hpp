// SPDX-License-Identifier: MIT
// Port discovery for the guide's ephemeral form "Socket -server/-client -IP=<server addr> -ID=<n>":
// the server listens on a port the system assigns and answers queries for (its address, n); the
// client multicasts a query and connects to the port in the answer.
//
// Queries go to an administratively scoped group (239.255.84.89, port 23089; override with
// TAKYON_DISCOVERY_GROUP and TAKYON_DISCOVERY_PORT) with TTL 1, out of the interface that routes to
// the server, so discovery works on one host (loopback) and between hosts on one subnet, never
// beyond. Answers come back by unicast to the query's source port and echo its random nonce, so a
// stale answer from an earlier incarnation is never taken.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string>

#include "backends/net/socket_common.hpp"

namespace takyon::detail {

/// The group and port in use: TAKYON_DISCOVERY_GROUP and TAKYON_DISCOVERY_PORT, or their defaults.
/// A value that is no multicast address or no port is an error naming the variable.
Status discovery_group(Ipv4Endpoint& out, const std::string& provider, ErrorLog& log);

class DiscoveryResponder {
 public:
  /// Joins the discovery group on the interface holding `server`, to answer for (server, id).
  Status open(in_addr server, uint32_t id, uint16_t tcp_port, const std::string& provider, ErrorLog& log);
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  /// Answers every query that has arrived (non-blocking).
  void answer();

 private:
  common::UniqueFd fd_;
  in_addr server_{};
  uint32_t id_ = 0;
  uint16_t tcp_port_ = 0;
};

/// Asks until `deadline` which port the server for (server, id) listens on. kTimedOut if no
/// server answered; an error if the query cannot be sent at all.
Status discover_port(in_addr server, uint32_t id, Deadline deadline, const std::string& provider,
                     uint16_t& port, ErrorLog& log);

}  // namespace takyon::detail
