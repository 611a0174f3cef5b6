// SPDX-License-Identifier: MIT
// Shared-memory segments for the inboxes (see segment.hpp).
#include "shm/segment.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace takyon::mpi::shm {
namespace {

std::string path_of(const std::string& name) {
  return "/dev/shm" + name;
}

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

[[noreturn]] void fail(const std::string& name, const common::SysError& error) {
  throw SegmentError("shared-memory segment " + path_of(name) + ": " + error.text(), error);
}

}  // namespace

bool SegmentError::out_of_space() const noexcept {
  const bool sizing =
      std::strcmp(sys_.call, "posix_fallocate") == 0 || std::strcmp(sys_.call, "ftruncate") == 0;
  return sizing && (sys_.err == ENOSPC || sys_.err == ENOMEM);
}

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
  if (!seg.object_.create(name, error)) {
    // The names hold a random part: taken means someone made it on purpose. Never reuse it.
    struct stat st {};
    if (error.err == EEXIST && stat(path_of(name).c_str(), &st) == 0) {
      throw SegmentError("shared-memory segment " + path_of(name) + " exists already (owned by " +
                             common::uid_text(st.st_uid) + ", mode " + mode_text(st.st_mode) + ")",
                         error);
    }
    fail(name, error);
  }
  seg.owner_linked_ = true;
  if (!seg.object_.resize(bytes, error) || !seg.object_.map(bytes, error)) fail(name, error);
  seg.object_.close_fd();
  return seg;
}

Segment Segment::open(const std::string& name) {
  Segment seg;
  common::SysError error;
  uid_t uid = 0;
  mode_t mode = 0;
  if (!seg.object_.open(name, error) || !seg.object_.owner(uid, mode, error)) fail(name, error);
  if (uid != geteuid() || mode != 0600) {
    throw SegmentError("shared-memory segment " + path_of(name) + " is owned by " + common::uid_text(uid) +
                           " with mode " + mode_text(mode) + ", not by this user (" +
                           common::uid_text(geteuid()) + ") with mode 0600: refusing to map it",
                       {});
  }
  std::uint64_t bytes = 0;
  if (!seg.object_.current_size(bytes, error) || !seg.object_.map(bytes, error)) fail(name, error);
  seg.object_.close_fd();
  return seg;
}

void Segment::unlink() noexcept {
  if (owner_linked_) object_.unlink();
  owner_linked_ = false;
}

}  // namespace takyon::mpi::shm
