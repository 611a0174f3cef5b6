// SPDX-License-Identifier: MIT
// The run of a socket provider: each size's latency and bandwidth next to the same test on a
// plain socket, between the same two processes.
#pragma once

#include <string>

#include "results.hpp"
#include "socket_providers.hpp"
#include "sweep.hpp"

namespace takyon::bench {

/// A provider and its plain baseline are timed in this many alternating slices each.
inline constexpr int kBaselineSlices = 16;

/// One socket provider in one mode: endpoint B in a forked process on cpu_b, endpoint A here, a
/// control channel and the plain baseline's sockets made before the fork, and for each size (up
/// to the datagram limit for connectionless kinds), back to back: plain latency, latency, plain
/// bandwidth, bandwidth. Prints the table; records everything under this provider and mode
/// (ratio_to_floor = ratio to plain). A failure is recorded in results.errors and printed;
/// returns false then. Call with no other threads running (it forks).
bool run_socket_sweep(const std::string& provider, SocketKind kind, bool polling, const SweepSetup& setup,
                      Results& results);

}  // namespace takyon::bench
