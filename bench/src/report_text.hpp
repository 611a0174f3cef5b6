// SPDX-License-Identifier: MIT
// The terminal report: banner, floors, one table per provider and mode (printed row by row as
// sizes finish, which doubles as progress), and the PASS/MISS lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_placement.hpp"
#include "machine_info.hpp"
#include "results.hpp"
#include "targets.hpp"

namespace takyon::bench {

/// `sockets`: the run has socket providers (their tables and columns get explained too).
void print_banner(const MachineInfo& machine, const CpuPlacement& placement,
                  const std::vector<std::uint64_t>& sizes, double measure_s, std::uint64_t iters,
                  bool sockets);
/// The title and column heads of one provider and mode's table.
void print_table_header(const std::string& interconnect, bool polling, bool processes);
/// One size: the cache-line floor, latency (with its ratio to that floor) and bandwidth (with
/// the memcpy floor's bandwidth and the ratio to it).
void print_table_row(const Record& floor, const Record& latency, const Record& bandwidth,
                     const Record& memcpy_floor);
/// A socket provider's table: its title (the provider strings), what the plain baseline is, and
/// the column heads (a loss column for connectionless providers).
void print_socket_table_header(const std::string& title, bool polling, const std::string& plain,
                               bool datagram);
/// One size: the plain latency, the provider's latency and its ratio to plain, the provider's
/// and the plain bandwidth and their ratio; connectionless: messages lost by each stream.
void print_socket_table_row(const Record& plain_latency, const Record& latency, const Record& plain_bandwidth,
                            const Record& bandwidth, bool datagram);
/// The PASS/MISS/SKIP lines, after a warning if other processes were busy during the run.
void print_targets(const std::vector<TargetResult>& targets, double other_load_during);

}  // namespace takyon::bench
