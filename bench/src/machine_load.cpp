// SPDX-License-Identifier: MIT
// /proc/stat and getrusage snapshots for the busy-machine warnings.
#include "machine_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace takyon::bench {
namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

double own_cpu_seconds() {
  rusage self{};
  rusage children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) +
         seconds(children.ru_stime);
}

}  // namespace

CpuSnapshot cpu_snapshot() {
  CpuSnapshot out;
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0) return out;
  std::istringstream fields(line.substr(4));
  // user nice system idle iowait irq softirq steal
  double v[8] = {};
  for (double& x : v) fields >> x;
  const long ticks = sysconf(_SC_CLK_TCK);
  if (!fields && !fields.eof()) return out;
  const double tick = ticks > 0 ? 1.0 / static_cast<double>(ticks) : 0.01;
  const double busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  out.machine_busy_s = busy * tick;
  out.machine_total_s = (busy + v[3] + v[4]) * tick;
  out.own_s = own_cpu_seconds();
  out.valid = true;
  return out;
}

double foreign_load(const CpuSnapshot& before, const CpuSnapshot& after) {
  const double total = after.machine_total_s - before.machine_total_s;
  if (!before.valid || !after.valid || total <= 0) return -1;
  const double foreign = (after.machine_busy_s - before.machine_busy_s) - (after.own_s - before.own_s);
  return std::clamp(foreign / total, 0.0, 1.0);
}

double sample_foreign_load(double wait_s) {
  const CpuSnapshot before = cpu_snapshot();
  std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  return foreign_load(before, cpu_snapshot());
}

}  // namespace takyon::bench
