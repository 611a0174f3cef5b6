// SPDX-License-Identifier: MIT
// Copy floor: plain memcpy with the same buffers and window as the bandwidth test.
#pragma once

#include <cstdint>
#include <vector>

#include "measure.hpp"

namespace takyon::bench {

/// `nbufs` source and `nbufs` destination buffers of `max_bytes` each (page aligned,
/// pre-faulted), copied round robin like the bandwidth test's sends: the same footprint, one
/// thread, no synchronisation. Runs on the calling thread (pinned like endpoint A, the side
/// that copies in the Memcpy providers).
class MemcpyFloor {
 public:
  MemcpyFloor(int nbufs, std::uint64_t max_bytes);
  ~MemcpyFloor();
  MemcpyFloor(const MemcpyFloor&) = delete;
  MemcpyFloor& operator=(const MemcpyFloor&) = delete;
  MemcpyFloor(MemcpyFloor&&) = delete;
  MemcpyFloor& operator=(MemcpyFloor&&) = delete;

  /// One iteration = a window of `window` copies of `bytes`; per-message figures are per copy.
  Workload workload(std::uint64_t bytes, std::uint64_t window);

 private:
  std::vector<void*> buffers_;  // nbufs sources, then nbufs destinations
  std::size_t buffer_bytes_ = 0;
  int nbufs_ = 0;
};

}  // namespace takyon::bench
