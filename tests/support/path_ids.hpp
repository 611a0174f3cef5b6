// SPDX-License-Identifier: MIT
// Path IDs unique across concurrently running test processes, and the /dev/shm entries they leave.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace takyon::test {

/// A path ID no other live test process uses: (getpid() << 10) | per-process counter. PIDs are
/// below 2^22 on Linux, so the result fits 32 bits; the counter wraps after 1024 IDs, long after
/// the paths that used the early ones were destroyed. Never 0. Call in the parent before fork().
uint32_t unique_path_id();

/// The IDs unique_path_id() handed out since the last call (the current test's IDs).
std::vector<uint32_t> take_issued_path_ids();

/// /dev/shm entries whose name contains "takyon" and the ID as a whole '-'-delimited field.
std::vector<std::string> shm_entries_for_id(uint32_t id);

/// Removes those entries (cleanup after tests that kill a process on purpose).
void remove_shm_entries_for_id(uint32_t id);

}  // namespace takyon::test
