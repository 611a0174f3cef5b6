// SPDX-License-Identifier: MIT
// ShmObject (see shm_object.hpp).
#include "common/shm_object.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "common/sys.hpp"

namespace takyon::common {

std::string SysError::text() const {
  return std::string(call) + ": " + std::strerror(err);
}

std::string uid_text(uid_t uid) {
  std::string text = "uid " + std::to_string(uid);
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(4096);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    text += std::string(" (") + found->pw_name + ")";
  }
  return text;
}

ShmObject::ShmObject(ShmObject&& other) noexcept
    : name_(std::move(other.name_)),
      fd_(std::move(other.fd_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

ShmObject& ShmObject::operator=(ShmObject&& other) noexcept {
  if (this != &other) {
    close();
    name_ = std::move(other.name_);
    fd_ = std::move(other.fd_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

bool ShmObject::create(const std::string& name, SysError& error) {
  close();
  name_ = name;
  fd_.reset(sys::ops().shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd_.valid()) {
    error = {"shm_open", errno};
    return false;
  }
  // A umask may have taken bits away; peers that check the mode expect exactly 0600.
  if (fchmod(fd_.get(), 0600) != 0) {
    error = {"fchmod", errno};
    sys::ops().shm_unlink(name.c_str());
    fd_.reset();
    return false;
  }
  return true;
}

bool ShmObject::open(const std::string& name, SysError& error) {
  close();
  name_ = name;
  fd_.reset(sys::ops().shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600));
  if (fd_.valid()) return true;
  error = {"shm_open", errno};
  return false;
}

bool ShmObject::create_anonymous(const std::string& label, SysError& error) {
  close();
  name_ = label;
  fd_.reset(sys::ops().memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd_.valid()) return true;
  error = {"memfd_create", errno};
  return false;
}

void ShmObject::adopt(UniqueFd fd, const std::string& label) {
  close();
  name_ = label;
  fd_ = std::move(fd);
}

bool ShmObject::seal_size(SysError& error) {
  if (fcntl(fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) return true;
  error = {"fcntl(F_ADD_SEALS)", errno};
  return false;
}

bool ShmObject::size_sealed() const noexcept {
  struct stat st {};
  const int seals = fcntl(fd_.get(), F_GET_SEALS);
  return seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW) &&
         fstat(fd_.get(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ShmObject::current_size(std::uint64_t& bytes, SysError& error) const {
  struct stat st {};
  if (fstat(fd_.get(), &st) != 0) {
    error = {"fstat", errno};
    return false;
  }
  bytes = static_cast<std::uint64_t>(st.st_size);
  return true;
}

bool ShmObject::owner(uid_t& uid, mode_t& mode, SysError& error) const {
  struct stat st {};
  if (fstat(fd_.get(), &st) != 0) {
    error = {"fstat", errno};
    return false;
  }
  uid = st.st_uid;
  mode = st.st_mode & 07777;
  return true;
}

bool ShmObject::resize(std::uint64_t bytes, SysError& error) {
  if (sys::ops().ftruncate(fd_.get(), static_cast<off_t>(bytes)) != 0) {
    error = {"ftruncate", errno};
    return false;
  }
  if (bytes == 0) return true;  // posix_fallocate refuses a length of 0
  int err = 0;
  do {
    err = sys::ops().posix_fallocate(fd_.get(), 0, static_cast<off_t>(bytes));
  } while (err == EINTR);
  if (err == 0) return true;
  error = {"posix_fallocate", err};
  return false;
}

bool ShmObject::map(std::uint64_t bytes, SysError& error) {
  void* addr = sys::ops().mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
  if (addr == MAP_FAILED) {
    error = {"mmap", errno};
    return false;
  }
  data_ = static_cast<std::byte*>(addr);
  size_ = bytes;
  return true;
}

bool ShmObject::name_is_ours() const noexcept {
  struct stat by_fd {};
  struct stat by_name {};
  const std::string path = "/dev/shm" + name_;
  return fd_.valid() && fstat(fd_.get(), &by_fd) == 0 && stat(path.c_str(), &by_name) == 0 &&
         by_fd.st_ino == by_name.st_ino && by_fd.st_dev == by_name.st_dev;
}

void ShmObject::unlink_if_ours() noexcept {
  if (name_is_ours()) sys::ops().shm_unlink(name_.c_str());
}

void ShmObject::unlink() noexcept {
  if (name_.starts_with('/'))
    sys::ops().shm_unlink(name_.c_str());  // anonymous objects have no name to remove
}

void ShmObject::close() noexcept {
  if (data_ != nullptr) sys::ops().munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  fd_.reset();
}

}  // namespace takyon::common
