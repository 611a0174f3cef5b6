// SPDX-License-Identifier: MIT
// The cache-line ping-pong: odd values go A -> peer, even values back, ~0 stops the echo.
#include "cacheline_pingpong.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <new>
#include <system_error>

#include "clock.hpp"

namespace takyon::bench {
namespace {

constexpr std::uint64_t kStop = ~std::uint64_t{0};  // A -> peer: leave echo()
constexpr std::uint64_t kStopped = kStop - 1;       // peer -> A: left (even: not a ping)
constexpr std::size_t kMappingBytes = 4096;

}  // namespace

CachelinePingPong::CachelinePingPong() {
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "cross-process atomics need lock-free");
  mapping_ = mmap(nullptr, kMappingBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::system_error(errno, std::generic_category(), "mmap(MAP_SHARED|MAP_ANONYMOUS)");
  }
  line_ = new (mapping_) Line{};
  line_->value.store(0, std::memory_order_relaxed);
}

CachelinePingPong::~CachelinePingPong() {
  if (mapping_ != nullptr) munmap(mapping_, kMappingBytes);
}

void CachelinePingPong::echo() {
  std::atomic<std::uint64_t>& value = line_->value;
  for (;;) {
    const std::uint64_t seen = value.load(std::memory_order_acquire);
    if (seen == kStop) {
      value.store(kStopped, std::memory_order_release);
      return;
    }
    if ((seen & 1u) != 0) {
      value.store(seen + 1, std::memory_order_release);
    } else {
      cpu_relax();
    }
  }
}

void CachelinePingPong::run(std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
  std::atomic<std::uint64_t>& value = line_->value;
  std::uint64_t seq = sequence_;
  std::int64_t start = now_ns();
  for (std::uint64_t s = 0; s < samples; ++s) {
    for (std::uint64_t i = 0; i < per_sample; ++i) {
      value.store(seq + 1, std::memory_order_release);
      while (value.load(std::memory_order_acquire) != seq + 2) cpu_relax();
      seq += 2;
    }
    const std::int64_t end = now_ns();
    out.push_back(static_cast<double>(end - start));
    start = end;
  }
  sequence_ = seq;
}

void CachelinePingPong::stop() {
  // Wait for the peer to leave echo(): a ping of the next run must not reach the old one.
  line_->value.store(kStop, std::memory_order_release);
  while (line_->value.load(std::memory_order_acquire) != kStopped) cpu_relax();
}

}  // namespace takyon::bench
