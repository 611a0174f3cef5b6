// SPDX-License-Identifier: MIT
// Shared helpers of the fault tests: error-message checks and the disconnect latency budget.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace takyon::test {

/// The contract: a call waiting on a peer that died or destroyed its endpoint returns within
/// 100 ms of the kill() call or the peer's takyonDestroy() call. No slack: a disconnect is seen well
/// within the budget, also under ASan and TSan.
inline constexpr double kDisconnectBudget = 0.100;

/// A bad interconnect string and what its error must mention.
struct BadInterconnect {
  std::string text;
  std::vector<std::string> all_of;  // case-sensitive
  std::vector<std::string> any_of;  // case-insensitive; empty: no requirement
};
/// Syntax and value errors in the provider string of `provider` (both APIs reject each).
std::vector<BadInterconnect> bad_interconnects(const std::string& provider);

/// `number` appears as a whole number (no digit right before or after it).
bool mentions_number(std::string_view text, std::string_view number);

}  // namespace takyon::test
