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

/// `sockets`: the run has socket providers (their tables and columns get explained too);
/// `perftest`: --vs-ucx-perftest's ucx_perftest and UCX version ("" without it).
void print_banner(const MachineInfo& machine, const CpuPlacement& placement,
                  const std::vector<std::uint64_t>& sizes, double measure_s, std::uint64_t iters,
                  bool sockets, const std::string& perftest);
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
/// --vs-ucx-perftest, after a Ucx provider's table: per compared size and transport, the
/// provider's latency and bandwidth next to each ucx_perftest test's, and the provider against
/// the best compared test of that transport; then a row with UCX's best over the transports.
/// `ours` holds the provider's records of the run, `compared` the ucx_perftest_* ones.
void print_perftest_table(const std::string& provider, const std::string& mode,
                          const std::vector<std::string>& transports, int slices,
                          const std::vector<std::uint64_t>& sizes, const std::vector<Record>& ours,
                          const std::vector<Record>& compared);
/// The PASS/MISS/SKIP lines, after a warning if other processes were busy during the run.
void print_targets(const std::vector<TargetResult>& targets, double other_load_during);

}  // namespace takyon::bench
