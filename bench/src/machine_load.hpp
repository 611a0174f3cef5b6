// SPDX-License-Identifier: MIT
// How much of the machine other processes used: the bench's numbers are only as quiet as that.
#pragma once

namespace takyon::bench {

/// CPU seconds so far: the whole machine's busy and total time (/proc/stat, steal counted as
/// busy: a hypervisor running someone else delays a spinner just the same) and this process's
/// own, reaped children included (getrusage).
struct CpuSnapshot {
  double machine_busy_s = 0;
  double machine_total_s = 0;
  double own_s = 0;
  bool valid = false;
};

CpuSnapshot cpu_snapshot();

/// Fraction (0..1) of the machine's CPU capacity that other processes used between two snapshots;
/// negative when unknown.
double foreign_load(const CpuSnapshot& before, const CpuSnapshot& after);

/// foreign_load() over a short idle interval now (the bench does nothing meanwhile).
double sample_foreign_load(double wait_s);

}  // namespace takyon::bench
