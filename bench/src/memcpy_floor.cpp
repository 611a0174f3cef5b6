// SPDX-License-Identifier: MIT
// Round-robin memcpy between page-aligned buffer pairs, timed per window.
#include "memcpy_floor.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "clock.hpp"

namespace takyon::bench {

MemcpyFloor::MemcpyFloor(int nbufs, std::uint64_t max_bytes)
    : buffer_bytes_(static_cast<std::size_t>(max_bytes > 0 ? max_bytes : 1)), nbufs_(nbufs) {
  for (int i = 0; i < 2 * nbufs_; ++i) {
    void* p = mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap for the memcpy floor");
    std::memset(p, i, buffer_bytes_);  // fault the pages in before anything is timed
    buffers_.push_back(p);
  }
}

MemcpyFloor::~MemcpyFloor() {
  for (void* p : buffers_) munmap(p, buffer_bytes_);
}

Workload MemcpyFloor::workload(std::uint64_t bytes, std::uint64_t window) {
  Workload w;
  w.messages_per_time = static_cast<double>(window);
  w.messages_per_iter = window;
  w.batch = true;  // tiny windows (a few ns per copy) are timed several at a time
  w.run = [this, bytes, window](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    const auto size = static_cast<std::size_t>(bytes);
    std::uint64_t next = 0;
    std::int64_t start = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample * window; ++i) {
        const auto b = static_cast<std::size_t>(next++ % static_cast<std::uint64_t>(nbufs_));
        std::memcpy(buffers_[static_cast<std::size_t>(nbufs_) + b], buffers_[b], size);
        clobber_memory();
      }
      const std::int64_t end = now_ns();
      out.push_back(static_cast<double>(end - start));
      start = end;
    }
  };
  return w;
}

}  // namespace takyon::bench
