// SPDX-License-Identifier: MIT
// CPU placement order (see cpu_order.hpp).
#include "cpu_order.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace takyon::mpi {
namespace {

/// A number from a sysfs topology file of `cpu`, or -1 when there is none.
int topology_value(int cpu, const char* file) {
  const std::string path = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + file;
  FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return -1;
  int value = -1;
  if (std::fscanf(f, "%d", &value) != 1) value = -1;
  std::fclose(f);
  return value;
}

}  // namespace

std::vector<int> cpus_cores_first(const cpu_set_t& set) {
  struct Cpu {
    int thread;  ///< which of its core's CPUs in `set` this is (0: the first)
    int package;
    int core;
    int id;
  };
  std::vector<Cpu> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    const int package = topology_value(c, "physical_package_id");
    const int core = topology_value(c, "core_id");
    int thread = 0;
    if (core >= 0) {
      for (const Cpu& other : cpus) thread += other.package == package && other.core == core ? 1 : 0;
    }
    cpus.push_back({thread, package, core < 0 ? c : core, c});
  }
  std::stable_sort(cpus.begin(), cpus.end(), [](const Cpu& a, const Cpu& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.package != b.package) return a.package < b.package;
    return a.core < b.core;
  });
  std::vector<int> ids;
  ids.reserve(cpus.size());
  for (const Cpu& c : cpus) ids.push_back(c.id);
  return ids;
}

std::vector<int> allowed_cpus_cores_first() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  return cpus_cores_first(set);
}

}  // namespace takyon::mpi
