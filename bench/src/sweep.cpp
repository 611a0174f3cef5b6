// SPDX-License-Identifier: MIT
// Path sweeps with their floors, turning measurements into records and table rows.
#include "sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cacheline_pingpong.hpp"
#include "memcpy_floor.hpp"
#include "path_driver.hpp"
#include "peer.hpp"
#include "report_text.hpp"

namespace takyon::bench {
namespace {

constexpr double kNoRatio = std::numeric_limits<double>::quiet_NaN();
// Floors of one table further apart than this are reported: its ratios then compare each size
// with its own floor, but raw latencies across sizes are not comparable.
constexpr double kUnsteadyFloor = 2.0;

std::string format_us(double ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", ns / 1e3);
  return text;
}

/// The generic sweep's peer is a process where the provider reaches beyond threads of one process.
bool is_inter_process(const std::string& provider) {
  const TakyonProviderInfo* p = takyon::find_provider(provider);
  return p != nullptr && p->reach >= TAKYON_REACH_PROCESSES;
}

}  // namespace

Budget floor_budget(const Budget& tests) {
  // A shorter run let a single interruption move its p50.
  Budget budget = tests;
  budget.warmup_s = 0.005;
  budget.measure_s = 0.015;
  budget.min_samples = 10;
  budget.iters = 0;
  return budget;
}

std::uint32_t next_path_id() {
  static std::atomic<std::uint32_t> counter{0};
  const auto pid = static_cast<std::uint32_t>(getpid()) & 0x3FFFFFu;
  return (pid << 10) | (counter.fetch_add(1) & 0x3FFu);
}

Budget make_budget(const Options& options) {
  Budget budget;
  if (options.quick) {
    budget.warmup_s = 0.001;
    budget.measure_s = 0.004;
    budget.min_samples = 3;
  }
  budget.iters = options.iters;
  return budget;
}

namespace {

// One table: its records and how far its cache-line floor moved.
struct Attempt {
  std::vector<Record> records;
  double floor_low = std::numeric_limits<double>::infinity();
  double floor_high = 0;
  [[nodiscard]] double spread() const { return floor_low > 0 ? floor_high / floor_low : 0; }
};

// The one-sided tests' size: where the cache-line floor is what a write could cost.
constexpr std::uint64_t kOneSidedBytes = 8;

// The path's one-sided ping-pongs next to the floor just measured (polling mode, 8 B): a write
// where it needs no call from the peer, and a piggyback write where the provider has them.
void one_sided_rows(takyon::Path& path, PathDriver& driver, const std::string& provider,
                    const std::string& mode, const Record& floor, const SweepSetup& setup, Attempt& out) {
  const TakyonPathCapabilities caps = path.capabilities();
  std::string line = "  one-sided " + std::to_string(kOneSidedBytes) + " B, one-way p50:";
  const auto add = [&](std::string_view test, const Workload& workload, const char* label) {
    Record r = make_record(provider, mode, test, kOneSidedBytes, measure(workload, setup.budget));
    r.ratio_to_floor = r.summary.p50 / floor.summary.p50;
    char text[96];
    std::snprintf(text, sizeof(text), " %s %s us (%.2fx floor)", label, format_us(r.summary.p50).c_str(),
                  r.ratio_to_floor);
    line += text;
    out.records.push_back(std::move(r));
  };
  if (caps.write && !caps.one_sided_needs_peer_call)
    add(test_name::kWriteLatency, driver.write_latency(kOneSidedBytes), "write");
  if (caps.piggyback)
    add(test_name::kPiggybackLatency, driver.piggyback_latency(kOneSidedBytes), "piggyback write");
  if (caps.write || caps.piggyback) std::printf("%s\n", line.c_str());
}

// Creates the path and its peer, sweeps, prints the table. Throws on failure.
Attempt sweep_once(const std::string& provider, bool polling, const SweepSetup& setup) {
  const std::string mode = mode_name(polling);
  const std::uint64_t buffer_bytes = std::max<std::uint64_t>(setup.sizes.back(), sizeof(Command));
  const std::string interconnect = provider + " -ID=" + std::to_string(next_path_id());
  const bool processes = is_inter_process(provider);
  print_table_header(interconnect, polling, processes);

  Attempt out;
  std::optional<Peer> peer;
  try {
    CachelinePingPong line;  // before the fork: a peer process shares it
    const takyon::PathOptions options_b = bench_path_options(interconnect, false, polling, buffer_bytes);
    peer.emplace(processes ? PeerKind::kProcess : PeerKind::kThread, setup.placement.cpu_b,
                 [options_b, &line] { run_path_peer(options_b, line); });
    {
      takyon::Path path(bench_path_options(interconnect, true, polling, buffer_bytes));
      fill_send_buffers(path);
      PathDriver driver(path, line);
      for (std::uint64_t bytes : setup.sizes) {
        // Each test sits right next to its floor: on a VM the host may move a vCPU mid-sweep.
        Record floor = make_record(provider, mode, test_name::kFloorCacheline, bytes,
                                   measure(driver.cacheline_floor(), floor_budget(setup.budget)));
        out.floor_low = std::min(out.floor_low, floor.summary.p50);
        out.floor_high = std::max(out.floor_high, floor.summary.p50);
        Record latency = make_record(provider, mode, test_name::kLatency, bytes,
                                     measure(driver.latency(bytes), setup.budget));
        latency.ratio_to_floor = latency.summary.p50 / floor.summary.p50;

        const std::uint64_t window = window_messages(bytes);
        Record copy = make_record(provider, mode, test_name::kFloorMemcpy, bytes,
                                  measure(setup.copier.workload(bytes, window), setup.budget));
        copy.window = window;
        Record bandwidth = make_record(provider, mode, test_name::kBandwidth, bytes,
                                       measure(driver.bandwidth(bytes, window), setup.budget));
        bandwidth.window = window;
        bandwidth.ratio_to_floor =
            bandwidth.summary.p50 > 0 ? copy.summary.p50 / bandwidth.summary.p50 : kNoRatio;

        print_table_row(floor, latency, bandwidth, copy);
        if (bytes == kOneSidedBytes && polling)
          one_sided_rows(path, driver, provider, mode, floor, setup, out);
        for (Record* r : {&floor, &latency, &copy, &bandwidth}) out.records.push_back(std::move(*r));
      }
      driver.quit();
      path.destroy();
    }
    peer->join();
    return out;
  } catch (const std::exception& e) {
    std::string message = interconnect + " " + mode + ": " + e.what();
    if (peer) {
      try {
        peer->join();
      } catch (const std::exception& peer_error) {
        message += std::string("\n  and ") + peer_error.what();
      }
    }
    throw std::runtime_error(message);
  }
}

}  // namespace

bool run_path_sweep(const std::string& provider, bool polling, const SweepSetup& setup, Results& results) {
  const std::string what = provider + " " + mode_name(polling);
  try {
    Attempt best = sweep_once(provider, polling, setup);
    if (best.spread() > kUnsteadyFloor) {
      // The host moved a vCPU (or something else ran) mid-table: sizes measured before and
      // after are not comparable. One more try usually gets a steady table.
      std::printf("the cache-line floor moved between %s and %s us during this table: measuring it again\n",
                  format_us(best.floor_low).c_str(), format_us(best.floor_high).c_str());
      Attempt again = sweep_once(provider, polling, setup);
      if (again.spread() < best.spread()) best = std::move(again);
    }
    if (best.spread() > kUnsteadyFloor) {
      const std::string warning = what + ": the cache-line floor moved between " + format_us(best.floor_low) +
                                  " and " + format_us(best.floor_high) +
                                  " us during the sweep (the host moved a vCPU, or something else ran)";
      std::printf("warning: %s\n", warning.c_str());
      results.warnings.push_back(warning);
    }
    for (Record& r : best.records) results.records.push_back(std::move(r));
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "takyon-bench: %s failed: %s\n", what.c_str(), e.what());
    results.errors.push_back(e.what());
    return false;
  }
}

}  // namespace takyon::bench
