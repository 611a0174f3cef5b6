// SPDX-License-Identifier: MIT
// The socket providers takyon-bench runs, the plain socket baseline each is compared with, and the
// provider strings of one run (unique IDs, free ports and a multicast group chosen per run).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace takyon::bench {

/// What carries a socket provider's messages, and so which plain socket is its baseline.
enum class SocketKind {
  kUnix,       ///< InterProcessSocket: a Unix stream socket; baseline a plain AF_UNIX stream.
  kTcp,        ///< Socket: TCP over 127.0.0.1; baseline plain TCP with TCP_NODELAY.
  kUnicast,    ///< UnicastSendSocket/UnicastRecvSocket pairs; baseline plain UDP.
  kMulticast,  ///< MulticastSendSocket/MulticastRecvSocket pairs; baseline plain (unicast) UDP.
};

/// The bench's name of a socket provider ("Socket", "InterProcessSocket", "Unicast",
/// "Multicast") -> its kind; false if `name` is not one of them.
bool find_socket_provider(std::string_view name, SocketKind& kind);
/// The socket configurations, in --provider all's order: InterProcessSocket, Socket, Unicast, Multicast.
const std::vector<std::string>& socket_provider_names();
/// Whether a socket configuration drives provider-table row `name` (one-way pairs count both rows).
bool socket_driver_covers(std::string_view name);

/// Connectionless: one-way UDP paths, a message is one datagram and may be lost.
inline bool is_datagram(SocketKind kind) {
  return kind == SocketKind::kUnicast || kind == SocketKind::kMulticast;
}

/// The largest message the kind carries (65507 bytes for UDP on IPv4; lo has a 64 KiB MTU, so
/// multicast's MTU-28 limit is the same there).
std::uint64_t max_socket_message(SocketKind kind);

/// "tcp", "unix" or "udp": the baseline's records are plain_<tag>_latency / plain_<tag>_bandwidth.
const char* plain_tag(SocketKind kind);
/// The test names of the baseline records for this kind.
std::string plain_latency_test(SocketKind kind);
std::string plain_bandwidth_test(SocketKind kind);
/// "plain TCP", "plain Unix socket" or "plain UDP", for target lines.
const char* plain_short(SocketKind kind);
/// One line: what the baseline is ("blocking send/recv on a TCP connection over 127.0.0.1 ...").
const char* plain_description(SocketKind kind);

/// The provider strings of one run, each as one side of it passes it to takyon. Connected kinds
/// use one path (`a`, `b`); connectionless kinds use two one-way paths: A->B (A sends, B
/// receives) and B->A.
struct SocketProviderStrings {
  std::string a;                         ///< Connected: endpoint A's string (the listening/server side).
  std::string b;                         ///< Connected: endpoint B's string.
  std::string a_to_b_send, a_to_b_recv;  ///< Connectionless, A->B: at A, at B.
  std::string b_to_a_send, b_to_a_recv;  ///< Connectionless, B->A: at B, at A.
  std::string title;                     ///< For the table header.
};

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0 and released), as text.
/// Throws std::system_error if none can be had.
std::string free_loopback_port();

/// Picks what makes a run unique among concurrently running processes: an -ID= from the pid and
/// a counter (InterProcessSocket), ports that were free a moment ago (bound to port 0 and
/// released), a multicast group from the pid. Throws std::system_error if no port can be had.
SocketProviderStrings make_socket_provider_strings(SocketKind kind, std::uint32_t id);

}  // namespace takyon::bench
