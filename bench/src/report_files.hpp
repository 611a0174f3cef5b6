// SPDX-License-Identifier: MIT
// The machine-readable reports: CSV (one line per record) and JSON (machine, config, records,
// targets, errors). Times in both are microseconds per message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_placement.hpp"
#include "machine_info.hpp"
#include "results.hpp"
#include "targets.hpp"

namespace takyon::bench {

/// The CSV header line (without newline); the smoke test checks it.
const char* csv_header();

/// Writes the CSV; creates missing parent directories. Throws std::runtime_error on failure.
void write_csv(const std::string& path, const Results& results);

struct JsonContext {
  const MachineInfo& machine;
  const CpuPlacement& placement;
  const std::vector<std::uint64_t>& sizes;
  double warmup_s;
  double measure_s;
  std::uint64_t iters;
  bool quick;
  const std::string& ucx_perftest;  ///< --vs-ucx-perftest: "<path> (UCX <version>)"; "" without it.
  const std::string& collectives;   ///< --collectives: config.collectives, a JSON object; "" without it.
};

/// Writes the JSON; creates missing parent directories. Throws std::runtime_error on failure.
void write_json(const std::string& path, const JsonContext& context, const Results& results,
                const std::vector<TargetResult>& targets);

}  // namespace takyon::bench
