// SPDX-License-Identifier: MIT
// The collective sweep: one graph per provider and mode, its members started as threads or
// forked processes, member 0's per-sample latencies turned into records and table rows.
#include "collective_sweep.hpp"

#include <sched.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "collective_graph.hpp"
#include "collective_member.hpp"
#include "collective_report.hpp"
#include "cpu_placement.hpp"
#include "machine_info.hpp"
#include "machine_load.hpp"
#include "peer.hpp"
#include "report_files.hpp"
#include "results.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::bench {
namespace {

constexpr int kExitFailure = 2;
// Restores the calling thread's CPU affinity when it goes (member 0 runs pinned on it).
class AffinityGuard {
 public:
  AffinityGuard() { saved_ = sched_getaffinity(0, sizeof(mask_), &mask_) == 0; }
  ~AffinityGuard() {
    if (saved_) (void)sched_setaffinity(0, sizeof(mask_), &mask_);
  }
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;

 private:
  cpu_set_t mask_{};
  bool saved_ = false;
};

MemberPlan make_plan(const Options& options) {
  MemberPlan plan;
  Options sized = options;
  if (!options.max_bytes_given) sized.max_bytes = std::uint64_t{1} << 20;
  for (std::uint64_t bytes : sweep_sizes(sized)) {
    if (bytes >= sizeof(double) && bytes % sizeof(double) == 0) plan.sizes.push_back(bytes);
  }
  if (options.quick) {
    plan.warmups = 10;
    plan.samples_small = 30;
    plan.samples_large = 10;
  }
  if (options.iters > 0) {
    plan.samples_small = options.iters;
    plan.samples_large = options.iters;
  }
  return plan;
}

// The model: the collective's critical path counted in point-to-point hops.
double model_hops(CollectiveTest test, const CollectiveLayout& layout) {
  switch (test) {
    case CollectiveTest::kP2p:
    case CollectiveTest::kAlltoall:
      return 1;
    case CollectiveTest::kBarrier:
    case CollectiveTest::kAllreduce:
      return 2.0 * layout.depth();
    case CollectiveTest::kReduce:
    case CollectiveTest::kBcast:
      return layout.depth();
  }
  return 0;
}

class GraphFile {
 public:
  explicit GraphFile(const GraphSpec& spec) : name_(write_collective_graph(spec)) {}
  ~GraphFile() {
    std::error_code ignored;
    std::filesystem::remove(name_, ignored);
  }
  GraphFile(const GraphFile&) = delete;
  GraphFile& operator=(const GraphFile&) = delete;
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Loads the graph for process_id, runs `body` with it, frees it.
template <typename Body>
void with_graph(int process_id, const std::string& file, Body body) {
  TakyonGraph* graph = takyonLoadGraphDescription(process_id, file.c_str());
  if (graph == nullptr) {
    throw std::runtime_error("takyonLoadGraphDescription(" + std::to_string(process_id) + ", " + file +
                             "): " + takyonExtensionError());
  }
  try {
    body(graph);
  } catch (...) {
    takyonFreeGraphDescription(graph, process_id);
    throw;
  }
  takyonFreeGraphDescription(graph, process_id);
}

// One table: members started, member 0 here. Throws on failure (joining every member first).
void run_table(const GraphSpec& spec, const MemberPlan& plan, Results& results) {
  const std::string provider = collective_provider(spec.processes);
  const std::string mode = mode_name(spec.polling);
  const CollectiveLayout& layout = spec.layout;
  const GraphFile file(spec);
  SharedTimes times(layout.members, plan.max_samples());
  print_collective_header(spec);

  std::map<std::uint64_t, Record> p2p;
  const CollectiveSink sink = [&](CollectiveTest test, std::uint64_t bytes, std::vector<double> ns) {
    const auto samples = static_cast<std::uint64_t>(ns.size());
    Record r = make_record(provider, mode, std::string("collective_") + collective_test_name(test), bytes,
                           summarize(std::move(ns), samples));
    r.model_ratio = model_hops(test, layout);
    if (test == CollectiveTest::kP2p) p2p[bytes] = r;
    const auto baseline = p2p.find(bytes);
    const Record* base = baseline == p2p.end() ? nullptr : &baseline->second;
    r.ratio_to_floor = base != nullptr && base->summary.p50 > 0 ? r.summary.p50 / base->summary.p50
                                                                : std::numeric_limits<double>::quiet_NaN();
    print_collective_row(r, base);
    results.records.push_back(std::move(r));
  };
  const CollectiveSink none = [](CollectiveTest, std::uint64_t, std::vector<double>) {};

  // Pinned round-robin, member 0 and 1 (the p2p pair) on two different cores: unpinned, the
  // scheduler sometimes puts the pair on one core, where an event-driven hop is a cheap local
  // switch instead of a much slower cross-core wake-up, and a whole row of the table flips
  // between the two.
  const std::vector<int> cpus = member_cpus(layout.members);
  const AffinityGuard restore_affinity;
  pin_current_thread(cpus[0]);
  std::vector<std::unique_ptr<Peer>> members;
  std::string failure;
  try {
    if (spec.processes) {
      // Fork first (this process has no other threads yet); each member loads its own view.
      for (int m = 1; m < layout.members; ++m) {
        members.push_back(
            std::make_unique<Peer>(PeerKind::kProcess, cpus[static_cast<std::size_t>(m)], [&, m] {
              with_graph(m, file.name(),
                         [&](TakyonGraph* g) { run_collective_member(g, m, layout, plan, times, none); });
            }));
      }
      with_graph(0, file.name(),
                 [&](TakyonGraph* g) { run_collective_member(g, 0, layout, plan, times, sink); });
    } else {
      with_graph(0, file.name(), [&](TakyonGraph* g) {
        std::exception_ptr error;
        try {
          for (int m = 1; m < layout.members; ++m) {
            members.push_back(std::make_unique<Peer>(
                PeerKind::kThread, cpus[static_cast<std::size_t>(m)],
                [&, g, m] { run_collective_member(g, m, layout, plan, times, none); }));
          }
          run_collective_member(g, 0, layout, plan, times, sink);
        } catch (...) {
          error = std::current_exception();
        }
        // The threads use the graph: they finish (or time out) before it is freed. Their errors
        // stay with them and are collected below.
        for (auto& member : members) {
          try {
            member->join();
          } catch (const std::exception&) {
          }
        }
        if (error) std::rethrow_exception(error);
      });
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    try {
      members[i]->join();
    } catch (const std::exception& e) {
      failure += std::string(failure.empty() ? "" : "\n  and ") + e.what();
    }
  }
  if (!failure.empty()) throw std::runtime_error(provider + " " + mode + ": " + failure);
}

}  // namespace

int run_collectives(const Options& options) {
  MachineInfo machine = collect_machine_info(options.command_line);
  machine.other_load_before = sample_foreign_load(0.25);
  const CollectiveLayout layout{options.members, options.fanout};
  const MemberPlan plan = make_plan(options);
  print_collective_banner(machine, layout, plan.sizes, plan.warmups, plan.samples_small, plan.samples_large);

  const CpuSnapshot start = cpu_snapshot();
  Results results;
  for (bool processes : options.collective_processes) {
    for (bool polling : options.collective_polling) {
      const GraphSpec spec{layout, processes, polling, plan.max_bytes()};
      if (polling && static_cast<unsigned>(layout.members) > machine.online_cpus) {
        const std::string warning =
            collective_provider(processes) + " polling: " + std::to_string(layout.members) +
            " spinning members on " + std::to_string(machine.online_cpus) +
            " CPUs take turns on the cores: expect scheduler time slices, not latency";
        std::printf("\nwarning: %s\n", warning.c_str());
        results.warnings.push_back(warning);
      }
      try {
        run_table(spec, plan, results);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "takyon-bench: collectives %s\n", e.what());
        results.errors.push_back(e.what());
      }
    }
  }
  machine.other_load_during = foreign_load(start, cpu_snapshot());
  if (machine.other_load_during > kNoisyOtherLoad) {
    std::printf("\nwarning: other processes used %.0f%% of the CPUs during the run: expect noisy numbers\n",
                machine.other_load_during * 100);
  }

  const CpuPlacement placement = choose_cpus();  // members 0 and 1; the others round-robin (run_table)
  const std::string no_perftest;
  const std::string config = "{\"members\": " + std::to_string(layout.members) +
                             ", \"fanout\": " + std::to_string(layout.fanout) +
                             ", \"depth\": " + std::to_string(layout.depth()) +
                             ", \"warmup_samples\": " + std::to_string(plan.warmups) +
                             ", \"samples\": " + std::to_string(plan.samples_small) +
                             ", \"samples_above_64KiB\": " + std::to_string(plan.samples_large) + "}";
  const JsonContext context{machine,       placement,     plan.sizes,  0,     0,
                            options.iters, options.quick, no_perftest, config};
  const bool written = write_report_files(options.csv_path, options.json_path, context, results, {});
  if (print_failed_runs(results) || !written) return kExitFailure;
  return 0;
}

}  // namespace takyon::bench
