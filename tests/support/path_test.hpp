// SPDX-License-Identifier: MIT
// Base fixture: hands out unique path IDs and fails a test that leaves its shared memory behind.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "support/path_attrs.hpp"

namespace takyon::test {

class PathTest : public ::testing::Test {
 protected:
  /// A fresh path ID for this test (see unique_path_id()).
  uint32_t new_id();
  /// For tests that kill a process on purpose: TearDown removes the ID's /dev/shm leftovers
  /// instead of failing.
  void allow_stale_shm(uint32_t id) { stale_ok_.insert(id); }
  void SetUp() override;
  /// Every ID issued during the test must have no /dev/shm entry left.
  void TearDown() override;

 private:
  std::set<uint32_t> stale_ok_;
};

/// Provider-parameterized variant.
class ProviderTest : public PathTest, public ::testing::WithParamInterface<ProviderParam> {
 protected:
  [[nodiscard]] const char* provider() const { return GetParam().provider; }
  [[nodiscard]] bool polling() const { return GetParam().polling; }
  [[nodiscard]] Mode mode() const { return mode_for(GetParam().provider); }
  [[nodiscard]] bool pointer() const { return is_pointer(GetParam().provider); }
  [[nodiscard]] bool inter_process() const { return is_inter_process(GetParam().provider); }
};

}  // namespace takyon::test
