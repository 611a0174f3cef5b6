// SPDX-License-Identifier: MIT
// The order in which ranks are given CPUs: takyon-run's binding and libtakyon_mpi's placement of
// unbound ranks use the same one, so an unbound rank's home CPU is where --bind-to core puts it.
#pragma once

#include <sched.h>

#include <vector>

namespace takyon::mpi {

/// The CPUs of `set` in placement order: one hardware thread of each core first (package by package,
/// cores in order), then each core's next thread, and so on. Without sysfs topology (some
/// containers) every CPU counts as a core of its own, in increasing order.
[[nodiscard]] std::vector<int> cpus_cores_first(const cpu_set_t& set);

/// The CPUs this process may run on (sched_getaffinity), in placement order; empty if the kernel
/// does not say.
[[nodiscard]] std::vector<int> allowed_cpus_cores_first();

}  // namespace takyon::mpi
