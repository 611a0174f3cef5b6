// SPDX-License-Identifier: MIT
// A shared-memory segment in /dev/shm (0600) for the inboxes: created and owned by one rank, mapped
// by its peers, unlinked as soon as every peer has mapped it so a crash leaves no file behind. A thin
// owner of a common::ShmObject (common/shm_object.hpp) that throws.
//
// Creating reserves the memory (ShmObject::resize), so a full /dev/shm is create()'s error, not a
// SIGBUS at the first touch. Opening checks that the segment is this user's and mode 0600: /dev/shm
// is writable by everyone, and another local user could have created the name first.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/shm_object.hpp"

namespace takyon::mpi::shm {

/// A segment that could not be created or used: the message names it (/dev/shm/...) and the cause;
/// `sys` is the failed system call, if one failed (call "" otherwise).
class SegmentError : public std::runtime_error {
 public:
  SegmentError(const std::string& what, common::SysError sys) : std::runtime_error(what), sys_(sys) {}
  [[nodiscard]] const common::SysError& sys() const noexcept { return sys_; }
  /// /dev/shm (or the memory behind it) has no room for the segment.
  [[nodiscard]] bool out_of_space() const noexcept;

 private:
  common::SysError sys_;
};

class Segment {
 public:
  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  Segment(Segment&& other) noexcept
      : object_(std::move(other.object_)), owner_linked_(std::exchange(other.owner_linked_, false)) {}
  Segment& operator=(Segment&& other) noexcept;
  ~Segment() { unlink(); }

  /// Creates `name` (a POSIX shm name, "/takyon-mpi-...") of `bytes`, mode 0600, zero-filled, its
  /// memory reserved, and maps it. A name that exists already is an error (it names the owner).
  /// Throws SegmentError.
  static Segment create(const std::string& name, std::size_t bytes);
  /// Maps an existing segment; its size is read from the file. Refuses one that is not this user's
  /// or not mode 0600 (the message names the owner). Throws SegmentError.
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
