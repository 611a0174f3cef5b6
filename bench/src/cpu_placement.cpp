// SPDX-License-Identifier: MIT
// CPU choice from the affinity mask and sysfs topology, and per-thread pinning.
#include "cpu_placement.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace takyon::bench {
namespace {

std::string read_topology(int cpu, const char* file) {
  std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Parses a sysfs CPU list such as "0,64" or "0-3,8".
std::set<int> parse_cpu_list(const std::string& text) {
  std::set<int> out;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ',')) {
    if (part.empty()) continue;
    try {
      const auto dash = part.find('-');
      const int first = std::stoi(part.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
      for (int cpu = first; cpu <= last; ++cpu) out.insert(cpu);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  return out;
}

}  // namespace

std::string CpuPlacement::describe() const {
  if (!pinned()) {
    return "not pinned (" + std::to_string(allowed_cpus) + " CPU allowed: both sides share it)";
  }
  return "A on CPU " + std::to_string(cpu_a) + ", B on CPU " + std::to_string(cpu_b);
}

CpuPlacement choose_cpus() {
  const std::vector<int> cpus = allowed_cpus();
  CpuPlacement out;
  out.allowed_cpus = static_cast<int>(cpus.size());
  if (cpus.size() < 2) return out;
  out.cpu_a = cpus[0];
  const std::set<int> siblings = parse_cpu_list(read_topology(out.cpu_a, "thread_siblings_list"));
  const std::string package = read_topology(out.cpu_a, "physical_package_id");
  int same_package = -1;
  int other_core = -1;
  for (std::size_t i = 1; i < cpus.size(); ++i) {
    const int cpu = cpus[i];
    if (siblings.contains(cpu)) continue;
    if (other_core < 0) other_core = cpu;
    if (same_package < 0 && read_topology(cpu, "physical_package_id") == package) same_package = cpu;
  }
  out.cpu_b = same_package >= 0 ? same_package : (other_core >= 0 ? other_core : cpus[1]);
  return out;
}

std::vector<int> member_cpus(int members) {
  const CpuPlacement pair = choose_cpus();
  std::vector<int> out(static_cast<std::size_t>(std::max(members, 0)), -1);
  if (!pair.pinned()) return out;
  std::vector<int> order{pair.cpu_a, pair.cpu_b};
  for (int cpu : allowed_cpus()) {
    if (cpu != pair.cpu_a && cpu != pair.cpu_b) order.push_back(cpu);
  }
  for (std::size_t m = 0; m < out.size(); ++m) out[m] = order[m % order.size()];
  return out;
}

void pin_current_thread(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // pid 0: the calling thread (Linux applies affinity per thread).
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    const std::string why = std::error_code(errno, std::generic_category()).message();
    std::fprintf(stderr, "takyon-bench: warning: cannot pin to CPU %d: %s\n", cpu, why.c_str());
  }
}

}  // namespace takyon::bench
