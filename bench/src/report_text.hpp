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

void print_banner(const MachineInfo& machine, const CpuPlacement& placement,
                  const std::vector<std::uint64_t>& sizes, double measure_s, std::uint64_t iters);
/// The title and column heads of one provider and mode's table.
void print_table_header(const std::string& interconnect, bool polling, bool processes);
/// One size: the cache-line floor, latency (with its ratio to that floor) and bandwidth (with
/// the memcpy floor's bandwidth and the ratio to it).
void print_table_row(const Record& floor, const Record& latency, const Record& bandwidth,
                     const Record& memcpy_floor);
/// The PASS/MISS/SKIP lines, after a warning if other processes were busy during the run.
void print_targets(const std::vector<TargetResult>& targets, double other_load_during);

}  // namespace takyon::bench
