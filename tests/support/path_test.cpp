// SPDX-License-Identifier: MIT
// Base fixture with /dev/shm leftover checks.
#include "support/path_test.hpp"

#include "support/path_ids.hpp"

namespace takyon::test {

uint32_t PathTest::new_id() {
  return unique_path_id();
}

void PathTest::SetUp() {
  (void)take_issued_path_ids();
}

void PathTest::TearDown() {
  for (uint32_t id : take_issued_path_ids()) {
    const std::vector<std::string> left = shm_entries_for_id(id);
    if (left.empty()) continue;
    if (stale_ok_.count(id) != 0) {
      remove_shm_entries_for_id(id);
      continue;
    }
    std::string names;
    for (const std::string& name : left) names += " /dev/shm/" + name;
    ADD_FAILURE() << "path ID " << id << " left shared memory behind:" << names;
    remove_shm_entries_for_id(id);
  }
}

}  // namespace takyon::test
