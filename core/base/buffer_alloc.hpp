// SPDX-License-Identifier: MIT
// PageBuffer: page-aligned memory Takyon allocates for a path (anonymous mmap, freed by RAII).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "error_log.hpp"

namespace takyon::detail {

class PageBuffer {
 public:
  PageBuffer() = default;
  ~PageBuffer();
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  /// Maps `bytes` (rounded up to pages) of zeroed private memory. 0 bytes maps nothing.
  Status allocate(uint64_t bytes, ErrorLog& log);
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] uint64_t size() const noexcept { return size_; }

 private:
  void release() noexcept;
  std::byte* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t mapped_ = 0;
};

/// A buffer of a path: the application's memory at `app_addr`, or, when that is null and `bytes`
/// > 0, a new PageBuffer appended to `owned` (which the endpoint keeps for the path's life).
Status use_or_allocate(std::byte* app_addr, uint64_t bytes, std::vector<PageBuffer>& owned, ErrorLog& log,
                       std::byte*& out);

/// System page size.
uint64_t page_size() noexcept;
/// `bytes` rounded up to a multiple of `alignment` (a power of two).
constexpr uint64_t round_up(uint64_t bytes, uint64_t alignment) noexcept {
  return (bytes + alignment - 1) & ~(alignment - 1);
}

}  // namespace takyon::detail
