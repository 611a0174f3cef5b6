// SPDX-License-Identifier: MIT
// Ucx provider sweeps with their baselines and, on request, ucx_perftest between their samples.
#include "ucx_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "control_pair.hpp"
#include "path_driver.hpp"
#include "peer.hpp"
#include "report_text.hpp"
#include "socket_driver.hpp"
#include "socket_sweep.hpp"
#include "ucx_compare.hpp"

namespace takyon::bench {
namespace {

constexpr double kNoRatio = std::numeric_limits<double>::quiet_NaN();
// ucx_perftest runs per test, transport and compared size, spread over the provider's samples.
constexpr int kPerftestSlices = 4;
constexpr int kQuickPerftestSlices = 2;
constexpr double kUnsteadyFloor = 2.0;

// Endpoint B, in the forked child: its links, then 'ready', then A's commands until quit.
void serve(const UcxProviderStrings& strings, bool polling, std::uint64_t buffer_bytes, PlainSockets* plain,
           CachelinePingPong* line, int ctl) {
  const std::unique_ptr<Link> provider = open_path_link(strings.b, false, polling, buffer_bytes);
  const std::unique_ptr<Link> plain_link = plain != nullptr ? plain->open(false, buffer_bytes) : nullptr;
  ctl_write(ctl, &kPeerReady, 1);
  // Shared-memory kinds have no plain link (their baselines are the floors): no plain command comes.
  run_socket_peer(ctl, *provider, plain_link ? *plain_link : *provider, line);
  provider->close();
}

double bandwidth_ratio(const Record& baseline, const Record& bandwidth) {
  return bandwidth.summary.p50 > 0 ? baseline.summary.p50 / bandwidth.summary.p50 : kNoRatio;
}

// Started writes in windows (ucp_put_bw's pattern), against ucx_perftest's ucp_put_bw of this size
// over the kind's transports (the fastest) where `compared` holds it.
Record write_bandwidth_record(SocketDriver& driver, const std::string& provider, const std::string& mode,
                              std::uint64_t bytes, std::uint64_t window, const Budget& budget,
                              const std::vector<Record>& compared) {
  Record put = make_record(provider, mode, test_name::kWriteBandwidth, bytes,
                           measure(driver.write_bandwidth(bytes, window), budget));
  put.window = window;
  put.ratio_to_floor = kNoRatio;
  double fastest = 0;  // ns per message
  for (const Record& r : compared) {
    if (r.bytes == bytes && r.test.starts_with(test_name::kUcxPerftestPrefix) &&
        r.test.ends_with("_ucp_put_bw") && r.summary.p50 > 0 && (fastest == 0 || r.summary.p50 < fastest)) {
      fastest = r.summary.p50;
    }
  }
  if (fastest > 0 && put.summary.p50 > 0) put.ratio_to_floor = fastest / put.summary.p50;
  return put;
}

void print_write_bandwidth_row(const Record& put) {
  std::printf("  started writes %8llu B, window %llu: %9.1f MB/s", static_cast<unsigned long long>(put.bytes),
              static_cast<unsigned long long>(put.window), put.bandwidth_mbps());
  if (std::isfinite(put.ratio_to_floor))
    std::printf("  (x%.2f of ucx_perftest ucp_put_bw)", put.ratio_to_floor);
  std::printf("\n");
}

}  // namespace

bool run_ucx_sweep(const std::string& provider, UcxKind kind, bool polling, const SweepSetup& setup,
                   Results& results) {
  const std::string mode = mode_name(polling);
  const bool floors = ucx_uses_floors(kind);
  const std::uint64_t buffer_bytes = std::max<std::uint64_t>(setup.sizes.back(), 8);
  std::string what = provider + " " + mode;
  std::optional<Peer> peer;
  std::optional<PerftestComparison> perftest;
  if (!setup.ucx_perftest.empty()) {
    perftest.emplace(setup.ucx_perftest, ucx_perftest_transports(kind), setup.placement, setup.budget,
                     setup.options.quick ? kQuickPerftestSlices : kPerftestSlices);
  }
  try {
    const UcxProviderStrings strings = make_ucx_provider_strings(kind, next_path_id());
    what = strings.title + " " + mode;
    if (floors) {
      print_table_header(strings.title, polling, true);
    } else {
      print_socket_table_header(strings.title, polling, plain_description(SocketKind::kTcp), false);
    }
    std::vector<Record> records;
    std::vector<Record> compared;
    double floor_low = std::numeric_limits<double>::infinity();
    double floor_high = 0;
    {
      ControlPair control;
      std::optional<PlainSockets> plain;
      if (!floors) plain.emplace(SocketKind::kTcp);
      CachelinePingPong line;  // before the fork: the peer process shares it
      PlainSockets* plain_ptr = plain ? &*plain : nullptr;
      peer.emplace(PeerKind::kProcess, setup.placement.cpu_b, [&, polling, buffer_bytes] {
        serve(strings, polling, buffer_bytes, plain_ptr, &line, control.keep(1));
      });
      const int ctl = control.keep(0);
      const std::unique_ptr<Link> link = open_path_link(strings.a, true, polling, buffer_bytes);
      const std::unique_ptr<Link> plain_link = plain ? plain->open(true, buffer_bytes) : nullptr;
      // On an error B must hear of it before A's path is destroyed (see socket_sweep.cpp).
      const ControlPair::CloseOnUnwind guard(control, 0);
      char ready = 0;
      ctl_read(ctl, &ready, 1);
      if (ready != kPeerReady) throw std::runtime_error("endpoint B did not get ready");

      SocketDriver driver(ctl, *link, plain_link ? *plain_link : *link);
      const int slices = perftest ? perftest->slices() : 1;
      for (std::uint64_t bytes : setup.sizes) {
        const bool compare = perftest && ucx_compared_size(bytes);
        const AfterPart latency_hook = compare ? perftest->slices_after(bytes, true) : AfterPart{};
        const AfterPart bandwidth_hook = compare ? perftest->slices_after(bytes, false) : AfterPart{};
        const std::uint64_t window = window_messages(bytes);
        Record latency;
        Record bandwidth;
        if (floors) {
          Record floor = make_record(provider, mode, test_name::kFloorCacheline, bytes,
                                     measure(driver.cacheline_floor(line), floor_budget(setup.budget)));
          floor_low = std::min(floor_low, floor.summary.p50);
          floor_high = std::max(floor_high, floor.summary.p50);
          latency =
              make_record(provider, mode, test_name::kLatency, bytes,
                          measure_sliced(driver.latency(false, bytes), setup.budget, slices, latency_hook));
          latency.ratio_to_floor = latency.summary.p50 / floor.summary.p50;
          Record copy = make_record(provider, mode, test_name::kFloorMemcpy, bytes,
                                    measure(setup.copier.workload(bytes, window), setup.budget));
          copy.window = window;
          bandwidth = make_record(
              provider, mode, test_name::kBandwidth, bytes,
              measure_sliced(driver.bandwidth(false, bytes, window), setup.budget, slices, bandwidth_hook));
          bandwidth.window = window;
          bandwidth.ratio_to_floor = bandwidth_ratio(copy, bandwidth);
          print_table_row(floor, latency, bandwidth, copy);
          records.push_back(std::move(floor));
          records.push_back(latency);
          records.push_back(std::move(copy));
          records.push_back(bandwidth);
        } else {
          // The baseline and the provider in turns, ucx_perftest (if asked for) between some of the turns.
          const auto [plain_lat, lat] =
              measure_alternating(driver.latency(true, bytes), driver.latency(false, bytes), setup.budget,
                                  kBaselineSlices, latency_hook);
          Record base_lat =
              make_record(provider, mode, plain_latency_test(SocketKind::kTcp), bytes, plain_lat);
          latency = make_record(provider, mode, test_name::kLatency, bytes, lat);
          latency.ratio_to_floor = latency.summary.p50 / base_lat.summary.p50;
          const auto [plain_bw, bw] = measure_alternating(driver.bandwidth(true, bytes, window),
                                                          driver.bandwidth(false, bytes, window),
                                                          setup.budget, kBaselineSlices, bandwidth_hook);
          Record base_bw =
              make_record(provider, mode, plain_bandwidth_test(SocketKind::kTcp), bytes, plain_bw);
          bandwidth = make_record(provider, mode, test_name::kBandwidth, bytes, bw);
          base_bw.window = bandwidth.window = window;
          bandwidth.ratio_to_floor = bandwidth_ratio(base_bw, bandwidth);
          print_socket_table_row(base_lat, latency, base_bw, bandwidth, false);
          records.push_back(std::move(base_lat));
          records.push_back(latency);
          records.push_back(std::move(base_bw));
          records.push_back(bandwidth);
        }
        if (compare) perftest->add_records(provider, mode, bytes, &latency, &bandwidth, compared);
        if (ucx_compared_size(bytes)) {
          Record put = write_bandwidth_record(driver, provider, mode, bytes, window, setup.budget, compared);
          print_write_bandwidth_row(put);
          records.push_back(std::move(put));
        }
      }
      driver.quit();
      link->close();
    }
    peer->join();
    if (perftest) {
      print_perftest_table(provider, mode, perftest->transports(), perftest->slices(), setup.sizes, records,
                           compared);
      for (const std::string& error : perftest->errors()) {
        std::fprintf(stderr, "takyon-bench: %s %s: %s\n", provider.c_str(), mode.c_str(), error.c_str());
        results.errors.push_back(what);
        results.errors.back().append(": ").append(error);
      }
    }
    if (floors && floor_low > 0 && floor_high / floor_low > kUnsteadyFloor) {
      char text[160];
      std::snprintf(text, sizeof(text),
                    ": the cache-line floor moved between %.3f and %.3f us during the sweep", floor_low / 1e3,
                    floor_high / 1e3);
      results.warnings.push_back(what + text);
      std::printf("warning: %s%s\n", what.c_str(), text);
    }
    for (Record& r : records) results.records.push_back(std::move(r));
    for (Record& r : compared) results.records.push_back(std::move(r));
    return true;
  } catch (const std::exception& e) {
    std::string message = what + " failed: " + e.what();
    if (peer) {
      try {
        peer->join();
      } catch (const std::exception& peer_error) {
        message += std::string("\n  and ") + peer_error.what();
      }
    }
    std::fprintf(stderr, "takyon-bench: %s\n", message.c_str());
    results.errors.push_back(message);
    return false;
  }
}

}  // namespace takyon::bench
