// SPDX-License-Identifier: MIT
// Shared-memory segments for the inboxes (see segment.hpp).
#include "shm/segment.hpp"

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace takyon::mpi::shm {
namespace {

[[noreturn]] void fail(const std::string& name, const common::SysError& error) {
  throw std::runtime_error("shared-memory segment /dev/shm" + name + ": " + error.text());
}

}  // namespace

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    unlink();
    object_ = std::move(other.object_);
    owner_linked_ = std::exchange(other.owner_linked_, false);
  }
  return *this;
}

Segment Segment::create(const std::string& name, std::size_t bytes) {
  Segment seg;
  common::SysError error;
  if (!seg.object_.create(name, error) && error.err == EEXIST) {
    // A leftover of a crashed job with the same id: ours to replace.
    seg.object_.unlink();
    seg.object_.create(name, error);
  }
  if (seg.object_.fd() < 0) fail(name, error);
  seg.owner_linked_ = true;
  if (!seg.object_.resize(bytes, error) || !seg.object_.map(bytes, error)) fail(name, error);
  seg.object_.close_fd();
  return seg;
}

Segment Segment::open(const std::string& name) {
  Segment seg;
  common::SysError error;
  std::uint64_t bytes = 0;
  if (!seg.object_.open(name, error) || !seg.object_.current_size(bytes, error) ||
      !seg.object_.map(bytes, error)) {
    fail(name, error);
  }
  seg.object_.close_fd();
  return seg;
}

void Segment::unlink() noexcept {
  if (owner_linked_) object_.unlink();
  owner_linked_ = false;
}

}  // namespace takyon::mpi::shm
