// SPDX-License-Identifier: MIT
// A shared-memory segment in /dev/shm (0600): created and owned by one rank, mapped by its peers,
// unlinked as soon as every peer has mapped it so a crash leaves no file behind.
#pragma once

#include <cstddef>
#include <string>

namespace takyon::mpi::shm {

class Segment {
 public:
  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  Segment(Segment&& other) noexcept { *this = std::move(other); }
  Segment& operator=(Segment&& other) noexcept;
  ~Segment();

  /// Creates `name` (a POSIX shm name, "/takyon-mpi-...") of `bytes`, zero-filled, and maps it.
  /// Throws std::runtime_error naming the segment and the failing call.
  static Segment create(const std::string& name, std::size_t bytes);
  /// Maps an existing segment; its size is read from the file. Throws std::runtime_error.
  static Segment open(const std::string& name);

  /// Removes the name (the mappings stay valid). Idempotent.
  void unlink();

  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  /// Unlinks (if still linked) and unmaps; leaves an empty segment. The destructor and the move
  /// assignment (which must not destroy the string it is about to assign to) share it.
  void release() noexcept;

  std::string name_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  bool owner_linked_ = false;
};

}  // namespace takyon::mpi::shm
