// SPDX-License-Identifier: MIT
// Fixed-width text of the collective sweep; flushed per line so a piped run shows progress.
#include "collective_report.hpp"

#include <cmath>
#include <cstdio>

#include "collective_member.hpp"
#include "options.hpp"

namespace takyon::bench {

void print_collective_banner(const MachineInfo& machine, const CollectiveLayout& layout,
                             const std::vector<std::uint64_t>& sizes, std::uint64_t warmups,
                             std::uint64_t samples_small, std::uint64_t samples_large) {
  std::printf("takyon-bench --collectives %s (%s build), %s, %u CPUs\n", machine.git_describe.c_str(),
              machine.build_type.c_str(), machine.cpu_model.c_str(), machine.online_cpus);
  if (machine.build_type == "Debug") std::printf("warning: Debug build: measure a Release build\n");
  if (machine.other_load_before > kNoisyOtherLoad) {
    std::printf("warning: other processes are using %.0f%% of the CPUs: expect noisy numbers\n",
                machine.other_load_before * 100);
  }
  std::printf(
      "%d members; barrier, reduce, allreduce, bcast over a tree of fan-out %d (depth %d); alltoall\n"
      "over a full mesh (%d paths); members pinned round-robin, 0 and 1 on different cores.\n",
      layout.members, layout.fanout, layout.depth(), layout.mesh_paths());
  std::printf(
      "Each sample: an untimed barrier, then one collective; latency = from the last member\n"
      "entering it (bcast: the root entering) to the last member leaving it, on the machine's\n"
      "monotonic clock. p2p = ping-pong root <-> member 1 on tree path 0, RTT/2, same samples.\n"
      "ratio = p50 / p2p p50 of the same size; model = the tree's critical path in p2p hops\n"
      "(barrier, allreduce: 2 x depth; reduce, bcast: depth; alltoall: 1, all pairs at once).\n");
  if (!sizes.empty()) {
    std::printf("sizes %s .. %s (%zu; reduce/allreduce: doubles; alltoall: bytes per member), ",
                format_size(sizes.front()).c_str(), format_size(sizes.back()).c_str(), sizes.size());
  }
  std::printf("%llu warm-up + %llu timed samples per test (%llu above %s)\n",
              static_cast<unsigned long long>(warmups), static_cast<unsigned long long>(samples_small),
              static_cast<unsigned long long>(samples_large), format_size(MemberPlan::kLargeBytes).c_str());
  std::fflush(stdout);
}

void print_collective_header(const GraphSpec& spec) {
  std::printf("\n%s, %d %s, %s, tree fan-out %d, depth %d\n", collective_provider(spec.processes).c_str(),
              spec.layout.members, spec.processes ? "processes" : "threads",
              spec.polling ? "polling" : "event driven", spec.layout.fanout, spec.layout.depth());
  std::printf("%-10s %9s %10s %10s %10s %12s %7s %6s %8s\n", "collective", "size", "p50 us", "p99 us",
              "min us", "p2p 1way us", "ratio", "model", "samples");
  std::fflush(stdout);
}

void print_collective_row(const Record& record, const Record* p2p) {
  const std::string name = record.test.substr(record.test.find('_') + 1);
  char p2p_text[32] = "-";
  char ratio_text[32] = "-";
  if (p2p != nullptr) std::snprintf(p2p_text, sizeof(p2p_text), "%.3f", p2p->summary.p50 / 1e3);
  if (std::isfinite(record.ratio_to_floor))
    std::snprintf(ratio_text, sizeof(ratio_text), "%.2f", record.ratio_to_floor);
  std::printf("%-10s %9s %10.3f %10.3f %10.3f %12s %7s %6.0f %8llu\n", name.c_str(),
              format_size(record.bytes).c_str(), record.summary.p50 / 1e3, record.summary.p99 / 1e3,
              record.summary.min / 1e3, p2p_text, ratio_text, record.model_ratio,
              static_cast<unsigned long long>(record.summary.iterations));
  std::fflush(stdout);
}

}  // namespace takyon::bench
