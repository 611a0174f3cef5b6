// SPDX-License-Identifier: MIT
// takyon-bench command line: providers, modes, sizes, iteration control and output files.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace takyon::bench {

/// A bad command line; what() says which argument and why.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Options {
  std::vector<std::string> providers;  ///< Provider names without -ID (the bench appends one).
  std::vector<bool> polling_modes;     ///< true: polling, false: event driven; in run order.
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = std::uint64_t{4} << 20;
  bool max_bytes_given = false;  ///< --max-bytes on the command line (--collectives defaults to 1M).
  std::uint64_t iters = 0;       ///< 0: sized from a time budget per size.
  bool quick = false;
  bool check_targets = false;
  bool vs_ucx_perftest = false;  ///< Also run ucx_perftest next to the Ucx providers (ucx_compare.hpp).
  bool help = false;
  /// --cpu-probe: only the cache-line ping-pong between choose_cpus()'s pair, one line of output
  /// (takyon-report runs it before every benchmark run: it tells how far apart the CPUs are now).
  bool cpu_probe = false;
  /// --collectives: only the collective sweep (collective_sweep.hpp), over `members` members,
  /// a tree of fan-out `fanout`, as threads and/or processes, event driven unless --mode says.
  bool collectives = false;
  int members = 4;
  int fanout = 2;
  std::vector<bool> collective_processes = {false, true};  ///< false: threads, true: processes.
  std::vector<bool> collective_polling = {false};
  std::string csv_path;
  std::string json_path;
  std::string command_line;  ///< argv, shell-quoted, for the JSON report.
};

/// The providers `--provider all` runs: every row of the provider table the generic sweep drives
/// (generic_driver), then the socket configurations (InterProcessSocket, Socket, Unicast,
/// Multicast), then, if libtakyon has UCX, the Ucx configurations (UcxTcp, UcxShm, UcxShmAm).
const std::vector<std::string>& all_providers();
/// Whether the generic sweep (a path by ID to a peer thread or process) drives provider `name`: a
/// reliable, connected, two-way, non-stream row addressed by ID that no configuration of its own
/// drives (sockets, Ucx).
bool generic_driver(std::string_view name);
/// Whether a configuration of its own (socket_providers, ucx_providers) drives table row `name`.
bool has_own_driver(std::string_view name);
/// Rows of the provider table that no sweep drives (reported, so a new provider is not silently
/// left out of the benchmark).
std::vector<std::string> providers_without_driver();

/// Was takyon-bench (and so libtakyon) built with the Ucx provider?
bool have_ucx();

/// Parses argv. Throws UsageError.
Options parse_options(int argc, char** argv);

/// The --help text.
std::string usage_text();

/// "4M", "64K", "1G", "512" (binary multipliers; K/KB/KiB alike). Throws UsageError.
std::uint64_t parse_size(std::string_view text);

/// Sizes to sweep: 0 (if min_bytes is 0) and the powers of two in [min_bytes, max_bytes];
/// --quick keeps a few of them (0, 8 B, 512 B, 32 KiB, 1 MiB, 4 MiB).
std::vector<std::uint64_t> sweep_sizes(const Options& options);

/// "0 B", "8 B", "4 KiB", "1 MiB".
std::string format_size(std::uint64_t bytes);

}  // namespace takyon::bench
