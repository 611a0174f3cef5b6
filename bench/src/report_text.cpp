// SPDX-License-Identifier: MIT
// Fixed-width text output; flushed per line so a piped run shows progress.
#include "report_text.hpp"

#include <cstdio>

#include "options.hpp"

namespace takyon::bench {
namespace {

double us(double ns) {
  return ns / 1e3;
}

}  // namespace

void print_banner(const MachineInfo& machine, const CpuPlacement& placement,
                  const std::vector<std::uint64_t>& sizes, double measure_s, std::uint64_t iters,
                  bool sockets) {
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
      "event mode, each against the plain socket measured next to it):\n");
  for (const TargetResult& t : targets)
    std::printf("%s  %s\n", verdict_name(t.verdict), t.description.c_str());
  std::fflush(stdout);
}

}  // namespace takyon::bench
