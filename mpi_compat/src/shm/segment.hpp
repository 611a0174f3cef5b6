// SPDX-License-Identifier: MIT
// A shared-memory segment in /dev/shm (0600) for the inboxes: created and owned by one rank, mapped
// by its peers, unlinked as soon as every peer has mapped it so a crash leaves no file behind. A thin
// owner of a common::ShmObject (common/shm_object.hpp) that throws.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "common/shm_object.hpp"

namespace takyon::mpi::shm {

class Segment {
 public:
  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  Segment(Segment&& other) noexcept
      : object_(std::move(other.object_)), owner_linked_(std::exchange(other.owner_linked_, false)) {}
  Segment& operator=(Segment&& other) noexcept;
  ~Segment() { unlink(); }

  /// Creates `name` (a POSIX shm name, "/takyon-mpi-...") of `bytes`, zero-filled, and maps it.
  /// Throws std::runtime_error naming the segment and the failing call.
  static Segment create(const std::string& name, std::size_t bytes);
  /// Maps an existing segment; its size is read from the file. Throws std::runtime_error.
  static Segment open(const std::string& name);

  /// Removes the name (the mappings stay valid). Idempotent.
  void unlink() noexcept;

  [[nodiscard]] void* data() const { return object_.data(); }
  [[nodiscard]] std::size_t size() const { return std::size_t(object_.size()); }
  [[nodiscard]] const std::string& name() const { return object_.name(); }

 private:
  common::ShmObject object_;
  bool owner_linked_ = false;
};

}  // namespace takyon::mpi::shm
