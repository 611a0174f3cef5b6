// SPDX-License-Identifier: MIT
// What the socket providers share: IPv4 address parsing, waits bounded by a
// Deadline, and the questions asked of the host's interfaces (which local address routes to a
// peer, what MTU an interface has).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/unique_fd.hpp"
#include "deadline.hpp"
#include "error_log.hpp"

namespace takyon::detail {

/// An IPv4 address and port.
struct Ipv4Endpoint {
  in_addr addr{};
  uint16_t port = 0;
  [[nodiscard]] sockaddr_in sockaddr() const noexcept;
  /// "10.0.0.1:4000" (or "10.0.0.1" when port is 0).
  [[nodiscard]] std::string text() const;
};

/// Parses dotted-quad IPv4 text. `what` names the option in the error ("-IP", "-group").
Status parse_ipv4(std::string_view text, const std::string& provider, const char* what, in_addr& out,
                  ErrorLog& log);
std::string ipv4_text(in_addr addr);

/// Sets O_NONBLOCK; errors name `what`.
Status set_nonblocking(int fd, const char* what, ErrorLog& log);
/// setsockopt wrapper whose error names the option.
Status set_option(int fd, int level, int name, int value, const char* option_name, ErrorLog& log);

/// poll() one descriptor until one of `events` or the deadline. Returns kOk with `revents` set,
/// kTimedOut at the deadline (revents 0), kSystem on a poll failure. EINTR is retried.
/// `max_wait_ns` (>= 0) caps the sleep so callers can do periodic work.
Status wait_fd(int fd, short events, Deadline deadline, int64_t max_wait_ns, short& revents, ErrorLog& log);

/// The local address the kernel would use to reach `peer` (a UDP connect, which sends nothing).
Status local_address_for(in_addr peer, in_addr& out, ErrorLog& log);

/// The MTU of the interface holding local address `local`.
Status interface_mtu(in_addr local, int& mtu, ErrorLog& log);

/// Liveness of a TCP connection while a call waits; call it every kLinkTickNs. `outq_since_ns`
/// (start at 0) remembers since when the kernel has held unacknowledged bytes. kOk with `idle`
/// set when nothing is unacknowledged (send a heartbeat now, so a dead link shows up as
/// unacknowledged bytes); kDisconnected once bytes went unacknowledged for kLinkSilenceNs with no
/// ACK at all (a delayed ACK takes at most 200 ms on Linux). A closed receive window is a live
/// but busy peer as long as it answers the window probes.
inline constexpr int64_t kLinkTickNs = 100'000'000;
inline constexpr int64_t kLinkSilenceNs = 500'000'000;
Status check_tcp_link(int fd, int64_t& outq_since_ns, const std::string& peer, bool& idle, ErrorLog& log);

/// True if `addr` is an address of one of this host's interfaces (in this network namespace).
bool is_local_address(in_addr addr);

}  // namespace takyon::detail
