// SPDX-License-Identifier: MIT
// The ucx_perftest half of --vs-ucx-perftest: UCX's own benchmark over the transports a Ucx
// configuration uses, run in slices between the provider's own samples of the same size, and the
// records comparing the two.
//
// Like with like: ucx_perftest's latency tests are ping-pongs reported as RTT/2 with a 50th
// percentile ("typical"), the same one-way p50 takyon-bench reports; its bandwidth is MiB/s
// (bytes / 2^20 per second, headed "MB/s"), converted here to takyon-bench's decimal MB/s.
// ucx_perftest gives no per-message percentiles for bandwidth, so its whole-run figure is
// compared with takyon-bench's p50. Both sides spin: ucx_perftest runs in its default wait mode
// (poll), so the targets use the provider's polling mode; event-mode ratios are reported too.
// The perftest server runs on endpoint B's CPU and the client on A's; while they run, the two
// endpoints of the provider's path wait on their control channel without spinning.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_placement.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "ucx_perftest.hpp"

namespace takyon::bench {

/// Does --vs-ucx-perftest run ucx_perftest at this size? The targets' sizes: 8 B and 1 MiB.
bool ucx_compared_size(std::uint64_t bytes);

/// ucx_perftest tests run at each compared size, in this order: latency ("ucp_put_lat",
/// "tag_lat", "ucp_am_lat") and bandwidth ("ucp_put_bw", "tag_bw", "ucp_am_bw"). UCX's best is
/// taken over the first two of each; the active-message tests are reported, not compared.
const std::vector<std::string>& perftest_tests(bool latency);
/// Is this test one of those UCX's best is taken over?
bool perftest_test_compared(const std::string& test);

/// One Ucx provider and mode's comparison: what ucx_perftest measured at each compared size.
class PerftestComparison {
 public:
  /// `slices`: ucx_perftest runs per test, transport and size, spread over the provider's parts.
  PerftestComparison(std::string executable, std::vector<std::string> transports,
                     const CpuPlacement& placement, const Budget& budget, int slices);

  /// For measure_sliced()/measure_alternating() of the provider's latency (bandwidth) at `bytes`:
  /// after the parts that end one of `slices` equal shares, runs one slice of every latency
  /// (bandwidth) test over every transport.
  AfterPart slices_after(std::uint64_t bytes, bool latency);

  /// Appends the records of `bytes`: one per test and transport that ran (ucx_perftest_<tls>_<test>)
  /// and UCX's best latency and bandwidth, each with ratio_to_floor = the provider's figure
  /// (`latency`, `bandwidth`: its records of that size; either may be null) against it.
  void add_records(const std::string& provider, const std::string& mode, std::uint64_t bytes,
                   const Record* latency, const Record* bandwidth, std::vector<Record>& out) const;

  /// ucx_perftest runs that failed, with their command line and output; the comparison goes on
  /// without that test (it is not run again).
  [[nodiscard]] const std::vector<std::string>& errors() const { return errors_; }
  [[nodiscard]] const std::vector<std::string>& transports() const { return transports_; }
  [[nodiscard]] int slices() const { return slices_; }

 private:
  struct Series {
    std::string tls;
    std::string test;
    std::uint64_t bytes = 0;
    bool latency = true;
    std::vector<PerftestFinal> slices;
    double seconds_per_iteration = 0;  // from the last slice; 0: not run yet
    bool failed = false;
  };
  Series& series(const std::string& tls, const std::string& test, std::uint64_t bytes, bool latency);
  void run_slice(Series& s);
  [[nodiscard]] const Series* find(const std::string& tls, const std::string& test,
                                   std::uint64_t bytes) const;
  [[nodiscard]] static Record record_of(const Series& s, const std::string& provider,
                                        const std::string& mode);

  std::string executable_;
  std::vector<std::string> transports_;
  CpuPlacement placement_;
  Budget budget_;
  int slices_;
  std::vector<Series> series_;
  std::vector<std::string> errors_;
};

}  // namespace takyon::bench
