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

/// Writes the CSV and/or JSON named (an empty path: not written) and prints where they went.
/// Returns false, having printed why, if one could not be written.
bool write_report_files(const std::string& csv_path, const std::string& json_path, const JsonContext& context,
                        const Results& results, const std::vector<TargetResult>& targets);

/// Prints the failed runs of `results` to stderr; true if there were any.
bool print_failed_runs(const Results& results);

}  // namespace takyon::bench
