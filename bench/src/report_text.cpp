// SPDX-License-Identifier: MIT
// Fixed-width text output; flushed per line so a piped run shows progress.
#include "report_text.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "options.hpp"
#include "ucx_compare.hpp"

namespace takyon::bench {
namespace {

double us(double ns) {
  return ns / 1e3;
}

const Record* find_record(const std::vector<Record>& records, std::string_view test, std::uint64_t bytes) {
  for (const Record& r : records) {
    if (r.test == test && r.bytes == bytes) return &r;
  }
  return nullptr;
}

// A ucx_perftest figure: one-way latency p50 (us) or decimal MB/s; "-" if it did not run.
std::string perftest_cell(const Record* r, bool latency) {
  if (r == nullptr || !std::isfinite(r->summary.p50)) return "-";
  char text[32];
  if (latency) {
    std::snprintf(text, sizeof(text), "%.3f", us(r->summary.p50));
  } else {
    std::snprintf(text, sizeof(text), "%.0f", r->bandwidth_mbps());
  }
  return text;
}

std::string ratio_cell(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", ratio);
  return text;
}

}  // namespace

void print_banner(const MachineInfo& machine, const CpuPlacement& placement,
                  const std::vector<std::uint64_t>& sizes, double measure_s, std::uint64_t iters,
                  bool sockets, const std::string& perftest) {
  std::printf("takyon-bench %s (%s build), %s, %u CPUs, %s\n", machine.git_describe.c_str(),
              machine.build_type.c_str(), machine.cpu_model.c_str(), machine.online_cpus,
              placement.describe().c_str());
  if (machine.build_type == "Debug") std::printf("warning: Debug build: measure a Release build\n");
  // Two spinning sides need two otherwise idle CPUs; anything else running shows up as noise.
  if (machine.other_load_before > kNoisyOtherLoad) {
    std::printf("warning: other processes are using %.0f%% of the CPUs: expect noisy numbers\n",
                machine.other_load_before * 100);
  }
  if (iters > 0) {
    std::printf("sizes %s .. %s (%zu), %llu timed iterations per size and test\n",
                format_size(sizes.front()).c_str(), format_size(sizes.back()).c_str(), sizes.size(),
                static_cast<unsigned long long>(iters));
  } else {
    std::printf("sizes %s .. %s (%zu), ~%.0f ms per size and test\n", format_size(sizes.front()).c_str(),
                format_size(sizes.back()).c_str(), sizes.size(), measure_s * 1e3);
  }
  std::printf(
      "times are per message in microseconds; latency = RTT/2; 'x floor' = latency p50 / cache-line\n"
      "ping-pong p50 (1.00 is the hardware floor); 'x memcpy' = bandwidth / memcpy bandwidth (p50);\n"
      "'floor' = cache-line ping-pong p50, measured right before each size's latency; 'memcpy' =\n"
      "memcpy with the bandwidth test's buffers, measured right before each size's bandwidth\n");
  if (sockets) {
    std::printf(
        "socket providers: 'plain' = the same test on a plain blocking socket (TCP, Unix or UDP, written\n"
        "directly on send/recv) between the same two processes, measured right before each size's test;\n"
        "'x plain' = latency / plain latency and bandwidth / plain bandwidth (p50)\n");
  }
  if (!perftest.empty()) {
    std::printf(
        "--vs-ucx-perftest: %s at 8 B and 1 MiB over each Ucx provider's\n"
        "transports (server on B's CPU, client on A's), its runs between the provider's samples; its latency "
        "is\n"
        "one-way (RTT/2) p50 like ours, its 'MB/s' (MiB/s) are converted to decimal MB/s; it polls, so the\n"
        "targets use polling mode\n",
        perftest.c_str());
  }
  std::fflush(stdout);
}

void print_table_header(const std::string& interconnect, bool polling, bool processes) {
  std::printf("\n== %s, %s (floor: cache-line ping-pong between the two %s) ==\n", interconnect.c_str(),
              mode_name(polling).c_str(), processes ? "processes" : "threads");
  std::printf("%10s | %7s | %9s %9s %9s %8s | %10s %10s %9s %8s\n", "bytes", "floor", "lat p50", "p99", "min",
              "x floor", "bw MB/s", "memcpy", "us/msg", "x memcpy");
  std::fflush(stdout);
}

void print_table_row(const Record& floor, const Record& latency, const Record& bandwidth,
                     const Record& memcpy_floor) {
  std::printf("%10llu | %7.3f | %9.3f %9.3f %9.3f %8.2f | %10.0f %10.0f %9.3f %8.2f\n",
              static_cast<unsigned long long>(latency.bytes), us(floor.summary.p50), us(latency.summary.p50),
              us(latency.summary.p99), us(latency.summary.min), latency.ratio_to_floor,
              bandwidth.bandwidth_mbps(), memcpy_floor.bandwidth_mbps(), us(bandwidth.summary.p50),
              bandwidth.ratio_to_floor);
  std::fflush(stdout);
}

void print_socket_table_header(const std::string& title, bool polling, const std::string& plain,
                               bool datagram) {
  std::printf("\n== %s, %s (plain: %s) ==\n", title.c_str(), mode_name(polling).c_str(), plain.c_str());
  std::printf("%10s | %9s | %9s %9s %9s %8s | %10s %10s %9s %8s", "bytes", "plain", "lat p50", "p99", "min",
              "x plain", "bw MB/s", "plain", "us/msg", "x plain");
  if (datagram) std::printf(" | %7s %7s", "lost", "plain");
  std::printf("\n");
  std::fflush(stdout);
}

void print_socket_table_row(const Record& plain_latency, const Record& latency, const Record& plain_bandwidth,
                            const Record& bandwidth, bool datagram) {
  std::printf("%10llu | %9.3f | %9.3f %9.3f %9.3f %8.2f | %10.0f %10.0f %9.3f %8.2f",
              static_cast<unsigned long long>(latency.bytes), us(plain_latency.summary.p50),
              us(latency.summary.p50), us(latency.summary.p99), us(latency.summary.min),
              latency.ratio_to_floor, bandwidth.bandwidth_mbps(), plain_bandwidth.bandwidth_mbps(),
              us(bandwidth.summary.p50), bandwidth.ratio_to_floor);
  if (datagram) {
    std::printf(" | %7lld %7lld", static_cast<long long>(bandwidth.lost),
                static_cast<long long>(plain_bandwidth.lost));
  }
  std::printf("\n");
  std::fflush(stdout);
}

void print_perftest_table(const std::string& provider, const std::string& mode,
                          const std::vector<std::string>& transports, int slices,
                          const std::vector<std::uint64_t>& sizes, const std::vector<Record>& ours,
                          const std::vector<Record>& compared) {
  std::string tls_list;
  for (const std::string& tls : transports) tls_list += (tls_list.empty() ? "" : " | ") + tls;
  std::printf(
      "\n-- %s, %s vs ucx_perftest (UCX_TLS=%s; %d run(s) per test between the provider's samples;\n"
      "   latency one-way p50 us, bandwidth decimal MB/s; 'x best' = provider / best of put and tag) --\n",
      provider.c_str(), mode.c_str(), tls_list.c_str(), slices);
  std::printf("%10s %-5s | %9s", "bytes", "tls", "ours lat");
  for (const std::string& test : perftest_tests(true)) std::printf(" %11s", test.c_str());
  std::printf(" %6s | %9s", "x best", "ours MB/s");
  for (const std::string& test : perftest_tests(false)) std::printf(" %10s", test.c_str());
  std::printf(" %6s\n", "x best");
  for (std::uint64_t bytes : sizes) {
    if (!ucx_compared_size(bytes)) continue;
    const Record* latency = find_record(ours, test_name::kLatency, bytes);
    const Record* bandwidth = find_record(ours, test_name::kBandwidth, bytes);
    const std::string our_lat = latency != nullptr ? perftest_cell(latency, true) : "-";
    const std::string our_bw = bandwidth != nullptr ? perftest_cell(bandwidth, false) : "-";
    for (const std::string& tls : transports) {
      std::printf("%10llu %-5s | %9s", static_cast<unsigned long long>(bytes), tls.c_str(), our_lat.c_str());
      for (const bool is_latency : {true, false}) {
        // This transport's best of the compared tests: the lowest time per message.
        double best_ratio = std::numeric_limits<double>::quiet_NaN();
        double best_p50 = std::numeric_limits<double>::infinity();
        for (const std::string& test : perftest_tests(is_latency)) {
          const Record* r =
              find_record(compared, std::string(test_name::kUcxPerftestPrefix) + tls + "_" + test, bytes);
          std::printf(is_latency ? " %11s" : " %10s", perftest_cell(r, is_latency).c_str());
          if (r != nullptr && perftest_test_compared(test) && r->summary.p50 < best_p50) {
            best_p50 = r->summary.p50;
            best_ratio = r->ratio_to_floor;
          }
        }
        std::printf(" %6s", ratio_cell(best_ratio).c_str());
        if (is_latency) std::printf(" | %9s", our_bw.c_str());
      }
      std::printf("\n");
    }
    const Record* best_lat = find_record(compared, test_name::kUcxBestLatency, bytes);
    const Record* best_bw = find_record(compared, test_name::kUcxBestBandwidth, bytes);
    auto best_text = [](const Record* r, bool is_latency) {
      if (r == nullptr) return std::string("none ran");
      const std::string from = r->from.substr(std::min(r->from.size(), test_name::kUcxPerftestPrefix.size()));
      return from + " " + perftest_cell(r, is_latency) + " -> x" + ratio_cell(r->ratio_to_floor);
    };
    std::printf("%10llu %-5s | best: %s | best: %s\n", static_cast<unsigned long long>(bytes), "all",
                best_text(best_lat, true).c_str(), best_text(best_bw, false).c_str());
  }
  std::fflush(stdout);
}

void print_targets(const std::vector<TargetResult>& targets, double other_load_during) {
  if (other_load_during > kNoisyOtherLoad) {
    // A preempted spinner can inflate a floor more than a path (flattering the ratios) or the
    // reverse: neither PASS nor MISS means much then.
    std::printf(
        "\nwarning: other processes used %.0f%% of the CPUs during the run; rerun on an idle machine\n",
        other_load_during * 100);
  }
  if (targets.empty()) return;
  std::printf(
      "\nTargets (p50 vs p50; shared-memory providers in polling mode; socket providers in polling and in\n"
      "event mode, each against the plain socket measured next to it; Ucx providers in polling mode against\n"
      "ucx_perftest's best measured in turns with them, with --vs-ucx-perftest):\n");
  for (const TargetResult& t : targets)
    std::printf("%s  %s\n", verdict_name(t.verdict), t.description.c_str());
  std::fflush(stdout);
}

}  // namespace takyon::bench
