// SPDX-License-Identifier: MIT
// takyon-bench: latency and bandwidth sweeps of the Takyon providers against on-machine floors.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "cacheline_pingpong.hpp"
#include "collective_sweep.hpp"
#include "cpu_placement.hpp"
#include "machine_info.hpp"
#include "machine_load.hpp"
#include "memcpy_floor.hpp"
#include "options.hpp"
#include "path_protocol.hpp"
#include "report_files.hpp"
#include "report_text.hpp"
#include "socket_providers.hpp"
#include "socket_sweep.hpp"
#include "sweep.hpp"
#include "targets.hpp"
#include "ucx_perftest.hpp"
#include "ucx_providers.hpp"
#include "ucx_sweep.hpp"

namespace {

constexpr int kExitTargetMissed = 1;
constexpr int kExitFailure = 2;

/// --cpu-probe: the cache-line ping-pong between choose_cpus()'s two CPUs, one-way ns, median of 9
/// samples of 2000 round trips after one for warm-up.
int cpu_probe() {
  using namespace takyon::bench;
  const CpuPlacement placement = choose_cpus();
  if (!placement.pinned()) {
    std::printf("cpu-probe: n/a (%s)\n", placement.describe().c_str());
    return 0;
  }
  CachelinePingPong line;
  std::thread peer([&] {
    pin_current_thread(placement.cpu_b);
    line.echo();
  });
  pin_current_thread(placement.cpu_a);
  constexpr std::uint64_t kRoundTrips = 2000;
  std::vector<double> samples;
  line.run(1, kRoundTrips, samples);
  samples.clear();
  line.run(9, kRoundTrips, samples);
  line.stop();
  peer.join();
  std::sort(samples.begin(), samples.end());
  const double one_way = samples[samples.size() / 2] / double(kRoundTrips) / 2.0;
  std::printf("cpu-probe: %.1f ns one-way (%s)\n", one_way, placement.describe().c_str());
  return 0;
}

int run(const takyon::bench::Options& options) {
  using namespace takyon::bench;
  MachineInfo machine = collect_machine_info(options.command_line);
  machine.other_load_before = sample_foreign_load(0.25);
  const CpuPlacement placement = choose_cpus();
  // The main thread is endpoint A for the whole run: both floors and every path.
  pin_current_thread(placement.cpu_a);
  const std::vector<std::uint64_t> sizes = sweep_sizes(options);
  MemcpyFloor copier(kWindowBuffers, sizes.back());
  std::string perftest;
  if (options.vs_ucx_perftest) {
    perftest = find_ucx_perftest();
    if (perftest.empty()) {
      std::fprintf(
          stderr,
          "takyon-bench: --vs-ucx-perftest: no ucx_perftest on PATH (apt-get install ucx-utils, or set "
          "TAKYON_BENCH_UCX_PERFTEST)\n");
      return kExitFailure;
    }
  }
  const SweepSetup setup{options, placement, sizes, make_budget(options), copier, perftest};
  SocketKind kind{};
  const bool sockets =
      std::any_of(options.providers.begin(), options.providers.end(),
                  [&kind](const std::string& p) { return find_socket_provider(p, kind) || p == "UcxTcp"; });
  const std::string perftest_info =
      perftest.empty() ? "" : perftest + " (" + ucx_perftest_version(perftest) + ")";
  print_banner(machine, placement, setup.sizes, setup.budget.measure_s, setup.budget.iters, sockets,
               perftest_info);

  for (const std::string& name : providers_without_driver()) {
    std::fprintf(stderr, "takyon-bench: provider %s: no sweep drives it yet (not benchmarked)\n",
                 name.c_str());
  }
  const CpuSnapshot start = cpu_snapshot();
  Results results;
  for (const std::string& provider : options.providers) {
    for (bool polling : options.polling_modes) {
      UcxKind ucx{};
      if (find_ucx_provider(provider, ucx)) {
        run_ucx_sweep(provider, ucx, polling, setup, results);
      } else if (find_socket_provider(provider, kind)) {
        run_socket_sweep(provider, kind, polling, setup, results);
      } else {
        run_path_sweep(provider, polling, setup, results);
      }
    }
  }

  machine.other_load_during = foreign_load(start, cpu_snapshot());
  const std::vector<TargetResult> targets =
      evaluate_targets(results, options.providers, options.vs_ucx_perftest);
  print_targets(targets, machine.other_load_during);

  const std::string no_collectives;
  const JsonContext context{machine,
                            placement,
                            setup.sizes,
                            setup.budget.warmup_s,
                            setup.budget.measure_s,
                            setup.budget.iters,
                            options.quick,
                            perftest_info,
                            no_collectives};
  const int status =
      write_report_files(options.csv_path, options.json_path, context, results, targets) ? 0 : kExitFailure;
  if (print_failed_runs(results)) return kExitFailure;
  if (status != 0) return status;
  if (options.check_targets) {
    for (const TargetResult& t : targets) {
      if (t.verdict == Verdict::kMiss) return kExitTargetMissed;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  takyon::bench::Options options;
  try {
    options = takyon::bench::parse_options(argc, argv);
  } catch (const takyon::bench::UsageError& e) {
    std::fprintf(stderr, "takyon-bench: %s\n", e.what());
    return kExitFailure;
  }
  if (options.help) {
    std::fputs(takyon::bench::usage_text().c_str(), stdout);
    return 0;
  }
  try {
    if (options.cpu_probe) return cpu_probe();
    if (options.collectives) return takyon::bench::run_collectives(options);
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "takyon-bench: %s\n", e.what());
    return kExitFailure;
  }
}
