// SPDX-License-Identifier: MIT
// PageBuffer implementation.
#include "buffer_alloc.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/sys.hpp"

namespace takyon::detail {

uint64_t page_size() noexcept {
  static const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return size;
}

PageBuffer::~PageBuffer() {
  release();
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

Status PageBuffer::allocate(uint64_t bytes, ErrorLog& log) {
  release();
  if (bytes == 0) return Status::kOk;
  const uint64_t mapped = round_up(bytes, page_size());
  void* addr = sys::ops().mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED) {
    const int err = errno;
    return TAKYON_FAIL(log, err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of %llu bytes for a transport buffer failed: %s",
                       static_cast<unsigned long long>(bytes), errno_text(err).c_str());
  }
  data_ = static_cast<std::byte*>(addr);
  size_ = bytes;
  mapped_ = mapped;
  return Status::kOk;
}

void PageBuffer::release() noexcept {
  if (data_ != nullptr) sys::ops().munmap(data_, mapped_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = 0;
}

Status use_or_allocate(std::byte* app_addr, uint64_t bytes, std::vector<PageBuffer>& owned, ErrorLog& log,
                       std::byte*& out) {
  out = app_addr;
  if (app_addr != nullptr || bytes == 0) return Status::kOk;
  PageBuffer buffer;
  if (buffer.allocate(bytes, log) != Status::kOk) return log.status();
  out = buffer.data();
  owned.push_back(std::move(buffer));
  return Status::kOk;
}

}  // namespace takyon::detail
