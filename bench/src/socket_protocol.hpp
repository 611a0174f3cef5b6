// SPDX-License-Identifier: MIT
// How the two processes of a socket test agree on what to run: a control channel (an AF_UNIX
// socket pair made before the fork) beside the links under test, so that a lost datagram can
// never lose a command, and the sequence stamps of the connectionless tests.
//
// Per run:  A -> B  Command            B -> A  'T' (taken)
//           ... the test on the provider's link or the plain one ...
//           A -> B  'E' (clean) or 'D' (A saw a stall or a stale ack: both drain the link)
//           B -> A  RunReport; if either side asks, both throw away what is left in their
//                   receive queue of that link (only connectionless links ever have any)
#pragma once

#include <cstddef>
#include <cstdint>

namespace takyon::bench {

/// B -> A after each run: what B received.
struct RunReport {
  std::uint64_t received = 0;    ///< Data messages (pings, stream messages), stale ones included.
  std::uint64_t late = 0;        ///< Stream messages of a window B had already acknowledged.
  std::uint64_t gap_acks = 0;    ///< Windows B acknowledged after a silence (a message was lost).
  std::uint32_t drain = 0;       ///< B saw something unexpected: drain both receive queues.
  std::uint32_t left_early = 0;  ///< B stopped waiting because A had finished.
};

/// A waits this long for a window's acknowledgement over UDP before counting a stall and moving
/// on, and this long for a pong before calling the ping-pong broken (one datagram in flight is
/// never dropped on loopback; if it is, the run fails with that message instead of hanging).
inline constexpr double kAckWaitS = 0.1;
inline constexpr double kPongWaitS = 2.0;

/// The window number in the first min(bytes, 8) bytes of a connectionless message (little
/// endian); messages under 8 bytes carry its low bytes, a 0-byte message nothing.
void stamp(std::byte* data, std::uint64_t bytes, std::uint64_t value);
/// The stamped value, completed from `near` (the window expected) where only low bytes fit.
std::uint64_t read_stamp(const std::byte* data, std::uint64_t bytes, std::uint64_t near);

/// Blocking write/read of exactly `bytes` on the control channel; throw if the other process
/// went away.
void ctl_write(int fd, const void* data, std::size_t bytes);
void ctl_read(int fd, void* data, std::size_t bytes);
/// Without blocking: has A's end-of-run byte arrived? Throws if A went away.
bool ctl_end_pending(int fd);

}  // namespace takyon::bench
