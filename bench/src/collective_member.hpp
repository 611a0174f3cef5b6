// SPDX-License-Identifier: MIT
// One member of the collective sweep (a thread or a process): its paths from the graph, the
// timed loop every member runs in lock step, and the per-sample times all members share.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "collective_graph.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::bench {

enum class CollectiveTest { kP2p, kBarrier, kReduce, kAllreduce, kBcast, kAlltoall };

/// "p2p", "barrier", "reduce", "allreduce", "bcast", "alltoall".
const char* collective_test_name(CollectiveTest test);

/// What every member runs, in the same order: p2p and barrier at 0 B, then per size p2p, reduce,
/// allreduce, bcast, alltoall. Each test: `warmups` untimed samples, then samples(bytes) timed
/// ones. Every member derives the same plan from the options, so none needs to be told.
struct MemberPlan {
  std::vector<std::uint64_t> sizes;  ///< Bytes, multiples of 8 (reduce elements are doubles).
  std::uint64_t warmups = 30;
  std::uint64_t samples_small = 300;  ///< Sizes up to kLargeBytes.
  std::uint64_t samples_large = 60;   ///< Above: a sample there costs up to milliseconds.
  static constexpr std::uint64_t kLargeBytes = 64 * 1024;

  [[nodiscard]] std::uint64_t samples(std::uint64_t bytes) const {
    return bytes <= kLargeBytes ? samples_small : samples_large;
  }
  [[nodiscard]] std::uint64_t max_samples() const { return std::max(samples_small, samples_large); }
  [[nodiscard]] std::uint64_t max_bytes() const { return sizes.empty() ? 8 : sizes.back(); }
};

/// Each member's clock readings around each timed sample, in one MAP_SHARED anonymous mapping
/// (made before fork, so member processes share it). The monotonic clock is one clock for every
/// process of a machine, so members' readings compare directly.
class SharedTimes {
 public:
  SharedTimes(int members, std::uint64_t samples);
  ~SharedTimes();
  SharedTimes(const SharedTimes&) = delete;
  SharedTimes& operator=(const SharedTimes&) = delete;

  void put(int member, std::uint64_t sample, std::int64_t start_ns, std::int64_t end_ns);
  [[nodiscard]] std::int64_t start(int member, std::uint64_t sample) const;
  [[nodiscard]] std::int64_t end(int member, std::uint64_t sample) const;

 private:
  struct Slot {
    std::atomic<std::int64_t> start;
    std::atomic<std::int64_t> end;
  };
  [[nodiscard]] Slot& slot(int member, std::uint64_t sample) const;
  int members_;
  std::uint64_t samples_;
  std::size_t bytes_;
  void* mapping_ = nullptr;
};

/// Called on member 0 after each test with the per-sample latencies in ns: p2p one-way (RTT/2);
/// a collective from the last member entering it (bcast: the root entering) to the last member
/// leaving it.
using CollectiveSink = std::function<void(CollectiveTest test, std::uint64_t bytes, std::vector<double> ns)>;

/// Runs member `member` (group instance `member` of the graph's one group): creates its paths,
/// gets its collectives, runs the plan, destroys its paths. `sink` is used on member 0 only.
/// Throws std::runtime_error naming the member, test and size, with takyonExtensionError().
void run_collective_member(TakyonGraph* graph, int member, const CollectiveLayout& layout,
                           const MemberPlan& plan, SharedTimes& times, const CollectiveSink& sink);

}  // namespace takyon::bench
