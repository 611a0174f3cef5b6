// SPDX-License-Identifier: MIT
// ShmObject: a POSIX shared-memory object (/dev/shm), the one place the tree creates, sizes, maps and
// unlinks them. Both layers build their segments on it: the inter-process provider's endpoint
// segments (ownership by flock, header and mailbox; core/backends/inter_process/shm_segment.hpp) and
// the MPI inboxes (mpi_compat/src/shm/segment.hpp). Every call goes through the system-call seam
// (common/sys.hpp), so tests can make each one fail; a failure reports the call and its errno.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/unique_fd.hpp"

namespace takyon::common {

/// A failed system call: which one and its errno.
struct SysError {
  const char* call = "";
  int err = 0;
  /// "ftruncate: No space left on device".
  [[nodiscard]] std::string text() const;
};

/// "uid 65534 (nobody)": a user id, with its name where the system can resolve it.
[[nodiscard]] std::string uid_text(uid_t uid);

class ShmObject {
 public:
  ShmObject() = default;
  ~ShmObject() { close(); }
  ShmObject(ShmObject&& other) noexcept;
  ShmObject& operator=(ShmObject&& other) noexcept;
  ShmObject(const ShmObject&) = delete;
  ShmObject& operator=(const ShmObject&) = delete;

  /// Creates `name` ("/takyon-..."), mode 0600 whatever the umask (readable and writable by this
  /// user only); fails with EEXIST when the name is taken. Closes whatever this object held first.
  bool create(const std::string& name, SysError& error);
  /// Opens the existing object `name` read-write (ENOENT when there is none).
  bool open(const std::string& name, SysError& error);
  /// Creates an object with no name in /dev/shm (memfd_create): nobody can open, squat or leave
  /// it behind; it is shared by passing its descriptor. `label` names it in messages and in
  /// /proc/<pid>/fd. Closes whatever this object held first.
  bool create_anonymous(const std::string& label, SysError& error);
  /// Takes over `fd`, an object created by another process's create_anonymous.
  void adopt(UniqueFd fd, const std::string& label);
  /// Anonymous objects: forbids any later change of size, by anyone holding the descriptor (so a
  /// peer cannot truncate the memory under a mapping and turn the next access into SIGBUS).
  bool seal_size(SysError& error);
  /// Whether the size is sealed so (a regular memfd with F_SEAL_SHRINK and F_SEAL_GROW).
  [[nodiscard]] bool size_sealed() const noexcept;
  /// The object's current size (fstat).
  bool current_size(std::uint64_t& bytes, SysError& error) const;
  /// Its owner and permission bits (fstat): `mode` holds the bits of 07777 only.
  bool owner(uid_t& uid, mode_t& mode, SysError& error) const;
  /// Sets the size (ftruncate) and reserves the memory behind the first `bytes` bytes
  /// (posix_fallocate): tmpfs sizes a file without checking for space, and the first touch of a page
  /// it cannot back would be a SIGBUS, so a full /dev/shm is this call's failure instead
  /// ({"posix_fallocate", ENOSPC}). The new bytes read as zero.
  bool resize(std::uint64_t bytes, SysError& error);
  /// Maps the first `bytes` bytes read-write and shared.
  bool map(std::uint64_t bytes, SysError& error);

  /// Whether the name still names this object (not removed, not replaced by a newer one).
  [[nodiscard]] bool name_is_ours() const noexcept;
  /// Removes the name if it still names this object.
  void unlink_if_ours() noexcept;
  /// Removes the name whatever it names now (for names only this process creates).
  void unlink() noexcept;
  /// Closes the descriptor; the mapping stays.
  void close_fd() noexcept { fd_.reset(); }
  /// Unmaps and closes; the name stays.
  void close() noexcept;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] bool mapped() const noexcept { return data_ != nullptr; }

 private:
  std::string name_;
  UniqueFd fd_;
  std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace takyon::common
