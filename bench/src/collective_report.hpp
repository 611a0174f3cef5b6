// SPDX-License-Identifier: MIT
// The terminal report of takyon-bench --collectives: a banner and one table per provider and
// mode, printed row by row as tests finish.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collective_graph.hpp"
#include "machine_info.hpp"
#include "results.hpp"

namespace takyon::bench {

/// What the run measures and how (the members, tree, sizes, samples).
void print_collective_banner(const MachineInfo& machine, const CollectiveLayout& layout,
                             const std::vector<std::uint64_t>& sizes, std::uint64_t warmups,
                             std::uint64_t samples_small, std::uint64_t samples_large);
/// The title and column heads of one table.
void print_collective_header(const GraphSpec& spec);
/// One measured test: its p50/p99/min, the p2p one-way of its size, the ratio and the model.
void print_collective_row(const Record& record, const Record* p2p);

}  // namespace takyon::bench
