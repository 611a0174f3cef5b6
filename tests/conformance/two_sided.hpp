// SPDX-License-Identifier: MIT
// The TwoSided conformance fixture: one test body runs for every provider, polling and event driven.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "support/byte_pattern.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test {

class TwoSided : public ProviderTest {
 protected:
  /// This provider's attributes for endpoint `ep`: all buffers `bytes`, default timeouts.
  [[nodiscard]] Attrs attrs_for(uint32_t id, const Endpoint& ep, int nbufs_atob, int nbufs_btoa,
                                uint64_t bytes) const {
    return Attrs(provider(), id, ep.is_a(), polling(), nbufs_atob, nbufs_btoa, bytes);
  }
  /// Runs the endpoints in this provider's mode (threads or processes).
  void run(const EndpointFn& fn_a, const EndpointFn& fn_b) const { run_endpoints(mode(), fn_a, fn_b); }
};

/// A timeout that fired on time: not before 80% of what was asked (clock granularity), and not after
/// 120% of it plus 100 ms, the scheduling delay a loaded machine may add (a parallel ctest on few
/// cores can make a short event-mode timeout over UcxTcp fire noticeably late). Still far below what
/// a wrong unit or a poll that looks once a second would give.
inline bool fired_on_time(double measured_s, double requested_s) {
  return measured_s >= requested_s * 0.8 && measured_s <= requested_s * 1.2 + 0.1;
}

}  // namespace takyon::test
