// SPDX-License-Identifier: MIT
// Shared-memory segments for the inboxes (see segment.hpp).
#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace takyon::mpi::shm {
namespace {

[[noreturn]] void fail(const std::string& name, const char* call, int err) {
  throw std::runtime_error("shared-memory segment /dev/shm" + name + ": " + call + ": " + std::strerror(err));
}

}  // namespace

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    release();
    name_ = std::move(other.name_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owner_linked_ = std::exchange(other.owner_linked_, false);
  }
  return *this;
}

Segment::~Segment() {
  release();
}

void Segment::release() noexcept {
  unlink();
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

Segment Segment::create(const std::string& name, std::size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 && errno == EEXIST) {  // a leftover of a crashed job with the same id: ours to replace
    shm_unlink(name.c_str());
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  }
  if (fd < 0) fail(name, "shm_open", errno);
  Segment seg;
  seg.name_ = name;
  seg.owner_linked_ = true;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int err = errno;
    close(fd);
    fail(name, "ftruncate", err);
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (p == MAP_FAILED) fail(name, "mmap", err);
  seg.data_ = p;
  seg.size_ = bytes;
  return seg;
}

Segment Segment::open(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) fail(name, "shm_open", errno);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    fail(name, "fstat", err);
  }
  void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (p == MAP_FAILED) fail(name, "mmap", err);
  Segment seg;
  seg.name_ = name;
  seg.data_ = p;
  seg.size_ = static_cast<std::size_t>(st.st_size);
  return seg;
}

void Segment::unlink() {
  if (owner_linked_) shm_unlink(name_.c_str());
  owner_linked_ = false;
}

}  // namespace takyon::mpi::shm
