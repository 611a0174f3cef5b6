// SPDX-License-Identifier: MIT
// ucx_perftest slices between the provider's own, and the records that compare the two.
#include "ucx_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace takyon::bench {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// ucx_perftest's "MB/s" is MiB/s: times this is decimal MB/s (bytes per microsecond).
constexpr double kMegabytesPerMebibyte = 1.048576;
constexpr std::uint64_t kMinIterations = 10;
constexpr std::uint64_t kMaxIterations = 1'000'000;
constexpr std::uint64_t kMinWarmup = 10;
constexpr std::uint64_t kMaxWarmup = 10'000;
// Starting both processes and connecting takes well under a second; a run may take this long
// beyond 20 times what its iterations should.
constexpr double kBaseTimeoutS = 30;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One iteration's time before a slice has measured it: a generous guess, and the first slice
// aims at a quarter of the budget, so that a slow test (ucp_put_bw over tcp) does not overrun
// much.
double guess_seconds(const std::string& tls, bool latency, std::uint64_t bytes) {
  const bool tcp = tls == "tcp";
  const double wire = static_cast<double>(bytes) / (tcp ? 1e9 : 5e9);
  return latency ? (tcp ? 30e-6 : 2e-6) + 2 * wire : (tcp ? 5e-6 : 1e-6) + wire;
}

double median(std::vector<double> values) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

bool ucx_compared_size(std::uint64_t bytes) {
  return bytes == 8 || bytes == kMiB;
}

const std::vector<std::string>& perftest_tests(bool latency) {
  static const std::vector<std::string> kLatency = {"ucp_put_lat", "tag_lat", "ucp_am_lat"};
  static const std::vector<std::string> kBandwidth = {"ucp_put_bw", "tag_bw", "ucp_am_bw"};
  return latency ? kLatency : kBandwidth;
}

bool perftest_test_compared(const std::string& test) {
  return test == "ucp_put_lat" || test == "tag_lat" || test == "ucp_put_bw" || test == "tag_bw";
}

PerftestComparison::PerftestComparison(std::string executable, std::vector<std::string> transports,
                                       const CpuPlacement& placement, const Budget& budget, int slices)
    : executable_(std::move(executable)),
      transports_(std::move(transports)),
      placement_(placement),
      budget_(budget),
      slices_(std::max(slices, 1)) {}

PerftestComparison::Series& PerftestComparison::series(const std::string& tls, const std::string& test,
                                                       std::uint64_t bytes, bool latency) {
  for (Series& s : series_) {
    if (s.tls == tls && s.test == test && s.bytes == bytes) return s;
  }
  Series s;
  s.tls = tls;
  s.test = test;
  s.bytes = bytes;
  s.latency = latency;
  series_.push_back(std::move(s));
  return series_.back();
}

const PerftestComparison::Series* PerftestComparison::find(const std::string& tls, const std::string& test,
                                                           std::uint64_t bytes) const {
  for (const Series& s : series_) {
    if (s.tls == tls && s.test == test && s.bytes == bytes) return &s;
  }
  return nullptr;
}

AfterPart PerftestComparison::slices_after(std::uint64_t bytes, bool latency) {
  return [this, bytes, latency](std::uint64_t part, std::uint64_t parts) {
    const auto slices = static_cast<std::uint64_t>(slices_);
    // Slice boundaries crossed by this part (more than one only if there are fewer parts than slices).
    const std::uint64_t due = (part + 1) * slices / parts - part * slices / parts;
    for (std::uint64_t i = 0; i < due; ++i) {
      for (const std::string& tls : transports_) {
        for (const std::string& test : perftest_tests(latency)) run_slice(series(tls, test, bytes, latency));
      }
    }
  };
}

void PerftestComparison::run_slice(Series& s) {
  if (s.failed) return;
  PerftestRun run;
  run.tls = s.tls;
  run.test = s.test;
  run.bytes = s.bytes;
  const bool measured = s.seconds_per_iteration > 0;
  const double per_iteration = measured ? s.seconds_per_iteration : guess_seconds(s.tls, s.latency, s.bytes);
  if (budget_.iters > 0) {
    // --iters counts round trips (latency) and messages (bandwidth), as ucx_perftest's -n does.
    run.iters = std::max<std::uint64_t>(
        (budget_.iters + static_cast<std::uint64_t>(slices_) - 1) / static_cast<std::uint64_t>(slices_), 1);
  } else {
    const double target_s = budget_.measure_s / (measured ? 1.0 : 4.0);
    run.iters =
        std::clamp(static_cast<std::uint64_t>(target_s / per_iteration), kMinIterations, kMaxIterations);
  }
  run.warmup = std::clamp<std::uint64_t>(run.iters / 10, kMinWarmup, kMaxWarmup);
  run.server_cpu = placement_.cpu_b;
  run.client_cpu = placement_.cpu_a;
  run.timeout_s = kBaseTimeoutS + 20 * static_cast<double>(run.iters + run.warmup) * per_iteration;
  try {
    const PerftestFinal final = run_ucx_perftest(executable_, run);
    s.slices.emplace_back(final);
    // Ping-pong latency is one-way: an iteration is a round trip.
    s.seconds_per_iteration = final.latency_overall_us * 1e-6 * (s.latency ? 2 : 1);
  } catch (const std::exception& e) {
    s.failed = true;
    errors_.emplace_back(e.what());
  }
}

Record PerftestComparison::record_of(const Series& s, const std::string& provider, const std::string& mode) {
  double iterations = 0;
  double total_ns = 0;
  double fastest_ns = std::numeric_limits<double>::infinity();
  std::vector<double> typical_ns;
  for (const PerftestFinal& f : s.slices) {
    iterations += f.iterations;
    if (s.latency) {
      typical_ns.push_back(f.latency_typical_us * 1e3);
      total_ns += f.latency_overall_us * 1e3 * f.iterations;
      fastest_ns = std::min(fastest_ns, f.latency_typical_us * 1e3);
    } else {
      // Time per message from the whole slice's bandwidth, in decimal MB/s = bytes per us.
      const double ns =
          f.bandwidth_overall_mib > 0
              ? static_cast<double>(s.bytes) / (f.bandwidth_overall_mib * kMegabytesPerMebibyte) * 1e3
              : kNaN;
      total_ns += ns * f.iterations;
      fastest_ns = std::min(fastest_ns, ns);
    }
  }
  Summary summary;
  summary.iterations = static_cast<std::uint64_t>(iterations);
  summary.mean = iterations > 0 ? total_ns / iterations : kNaN;
  // Latency: the median of the slices' 50th percentiles; bandwidth: bytes over time, all slices.
  summary.p50 = s.latency ? median(typical_ns) : summary.mean;
  summary.p99 = kNaN;  // ucx_perftest reports no tail
  summary.min = fastest_ns;
  return make_record(provider, mode, std::string(test_name::kUcxPerftestPrefix) + s.tls + "_" + s.test,
                     s.bytes, summary);
}

void PerftestComparison::add_records(const std::string& provider, const std::string& mode,
                                     std::uint64_t bytes, const Record* latency, const Record* bandwidth,
                                     std::vector<Record>& out) const {
  for (const bool is_latency : {true, false}) {
    const Record* ours = is_latency ? latency : bandwidth;
    std::optional<Record> best;
    for (const std::string& tls : transports_) {
      for (const std::string& test : perftest_tests(is_latency)) {
        const Series* s = find(tls, test, bytes);
        if (s == nullptr || s->slices.empty()) continue;
        Record r = record_of(*s, provider, mode);
        // Lower is better for latency, higher for bandwidth: both as the provider's figure against UCX's.
        if (ours != nullptr && ours->summary.p50 > 0 && r.summary.p50 > 0) {
          r.ratio_to_floor =
              is_latency ? ours->summary.p50 / r.summary.p50 : r.summary.p50 / ours->summary.p50;
        } else {
          r.ratio_to_floor = kNaN;
        }
        // Both best figures are the lowest time per message of the compared tests.
        if (perftest_test_compared(test) && std::isfinite(r.summary.p50) &&
            (!best || r.summary.p50 < best->summary.p50)) {
          best = r;
          best->from = r.test;
        }
        out.push_back(std::move(r));
      }
    }
    if (best) {
      best->test = std::string(is_latency ? test_name::kUcxBestLatency : test_name::kUcxBestBandwidth);
      out.push_back(std::move(*best));
    }
  }
}

}  // namespace takyon::bench
