// SPDX-License-Identifier: MIT
// Latency floor: one cache line bounced between endpoint A and the peer of the path under test.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace takyon::bench {

/// One 64-byte line in a MAP_SHARED anonymous mapping, so that a peer forked after construction
/// shares it as a peer thread does. A stores an odd value and spins until the peer (in echo())
/// stores value + 1: each one-way step is one store and one spinning load of a single line, the
/// fewest cache-line transfers any shared-memory message can cost. The path peer runs echo() on
/// command, so the floor is measured by the same two threads or processes, on the same CPUs,
/// right next to each path measurement.
class CachelinePingPong {
 public:
  CachelinePingPong();
  ~CachelinePingPong();
  CachelinePingPong(const CachelinePingPong&) = delete;
  CachelinePingPong& operator=(const CachelinePingPong&) = delete;
  CachelinePingPong(CachelinePingPong&&) = delete;
  CachelinePingPong& operator=(CachelinePingPong&&) = delete;

  /// Peer side: answers every odd value until stop() (also across several runs).
  void echo();
  /// A side: `samples` samples of `per_sample` round trips each (the peer must be in echo()).
  void run(std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out);
  /// A side: makes echo() return and waits until it has.
  void stop();

 private:
  struct alignas(64) Line {
    std::atomic<std::uint64_t> value;
  };
  void* mapping_ = nullptr;
  Line* line_ = nullptr;
  std::uint64_t sequence_ = 0;  // A's last even value
};

}  // namespace takyon::bench
