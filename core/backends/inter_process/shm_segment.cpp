// SPDX-License-Identifier: MIT
// ShmSegment implementation.
#include "backends/inter_process/shm_segment.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <random>
#include <thread>

#include "buffer_alloc.hpp"
#include "common/sys.hpp"

namespace takyon::detail {
namespace {

constexpr uint64_t kMagic = 0x54414b594f4e5348ull;  // "TAKYONSH"
constexpr uint32_t kVersion = 4;

uint64_t random_nonce() {
  static thread_local std::mt19937_64 engine(std::random_device{}() ^ static_cast<uint64_t>(now_ns()) ^
                                             static_cast<uint64_t>(getpid()));
  uint64_t value = 0;
  while (value == 0) value = engine();
  return value;
}

// Tries an exclusive lock for a few milliseconds: a peer's liveness probe holds a shared lock
// only for an instant, a live owner holds it for good.
bool lock_exclusive(int fd) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (sys::ops().flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(250));
  }
  return false;
}

}  // namespace

std::string segment_name(const std::string& provider, uint64_t id, char side) {
  return strf("/takyon-%u-%s-%llu-%c", static_cast<unsigned>(getuid()), provider.c_str(),
              static_cast<unsigned long long>(id), side);
}

ShmSegment::~ShmSegment() {
  close();
}

void ShmSegment::close() noexcept {
  object_.close();
}

void ShmSegment::unlink_and_close() noexcept {
  object_.unlink_if_ours();
  close();
}

bool ShmSegment::owner_gone() const noexcept {
  if (object_.fd() < 0) return true;
  if (sys::ops().flock(object_.fd(), LOCK_SH | LOCK_NB) == 0) {
    sys::ops().flock(object_.fd(), LOCK_UN);
    return true;
  }
  return false;
}

void ShmSegment::unlink_if_stale_and_close() noexcept {
  if (object_.fd() >= 0 && sys::ops().flock(object_.fd(), LOCK_EX | LOCK_NB) == 0) object_.unlink_if_ours();
  close();
}

MailboxSlot* ShmSegment::slots() const noexcept {
  return reinterpret_cast<MailboxSlot*>(base() + header().slots_offset);
}

std::vector<uint64_t> ShmSegment::send_sizes() const {
  const auto* sizes = reinterpret_cast<const uint64_t*>(base() + header().sizes_offset);
  return {sizes, sizes + header().nsend};
}

std::vector<uint64_t> ShmSegment::recv_sizes() const {
  const auto* sizes = reinterpret_cast<const uint64_t*>(base() + header().sizes_offset);
  return {sizes + header().nsend, sizes + header().nsend + header().nrecv};
}

std::byte* ShmSegment::recv_buffer(uint32_t i) const noexcept {
  const auto* offsets = reinterpret_cast<const uint64_t*>(base() + header().recv_offsets_offset);
  return offsets[i] == 0 ? nullptr : base() + offsets[i];
}

Status ShmSegment::create(const std::string& name, const SegmentLayout& layout, Deadline deadline,
                          ErrorLog& log) {
  close();
  const uint32_t nsend = static_cast<uint32_t>(layout.send_bytes.size());
  const uint32_t nrecv = static_cast<uint32_t>(layout.recv_bytes.size());
  const uint64_t slots_offset = round_up(sizeof(SegmentHeader), 64);
  const uint64_t sizes_offset = slots_offset + uint64_t{nrecv} * sizeof(MailboxSlot);
  const uint64_t recv_offsets_offset = sizes_offset + 8ull * (nsend + nrecv);
  uint64_t total = round_up(recv_offsets_offset + 8ull * nrecv, page_size());
  std::vector<uint64_t> recv_offsets(nrecv, 0);
  for (uint32_t i = 0; i < nrecv; ++i) {
    if (layout.recv_bytes[i] == 0) continue;
    recv_offsets[i] = total;
    if (layout.recv_bytes[i] > (UINT64_MAX >> 2) - total) {
      return TAKYON_FAIL(log, Status::kNoMemory, "receive buffers too large for one shared memory segment");
    }
    total += round_up(layout.recv_bytes[i], page_size());
  }

  // Claim the name: create it fresh, or replace a segment whose owner is gone.
  common::SysError error;
  for (;;) {
    if (object_.create(name, error)) {
      if (lock_exclusive(object_.fd()) && object_.name_is_ours()) break;
      object_.close();  // someone raced us for the name; look again
    } else if (error.err == EEXIST) {
      common::ShmObject existing;
      if (!existing.open(name, error)) continue;  // vanished in between: try to create again
      if (!lock_exclusive(existing.fd())) {
        int32_t pid = 0;
        uint64_t bytes = 0;
        if (existing.current_size(bytes, error) && bytes >= sizeof(SegmentHeader)) {
          alignas(SegmentHeader) unsigned char raw[sizeof(SegmentHeader)];
          if (pread(existing.fd(), raw, sizeof(raw), 0) == static_cast<ssize_t>(sizeof(raw))) {
            std::memcpy(&pid, raw + 16, sizeof(pid));  // SegmentHeader::pid follows magic and version/pointer
          }
        }
        return TAKYON_FAIL(log, Status::kInvalidArgument,
                           "shared memory %s is owned by a live endpoint (process %d): the same side of this "
                           "path already exists",
                           name.c_str(), static_cast<int>(pid));
      }
      // Stale: its owner died without destroying the path. Remove the name, keep the memory
      // for whoever still has it mapped.
      existing.unlink_if_ours();
    } else {
      return TAKYON_FAIL(log, Status::kSystem, "shm_open(%s) failed: %s", name.c_str(),
                         errno_text(error.err).c_str());
    }
    if (deadline.expired()) {
      return TAKYON_FAIL(log, Status::kTimeout, "could not claim shared memory %s within path_create_timeout",
                         name.c_str());
    }
  }
  if (!object_.resize(total, error)) {
    unlink_and_close();
    return TAKYON_FAIL(log, error.err == ENOMEM || error.err == ENOSPC ? Status::kNoMemory : Status::kSystem,
                       "ftruncate(%s, %llu) failed: %s", name.c_str(), static_cast<unsigned long long>(total),
                       errno_text(error.err).c_str());
  }
  if (!object_.map(total, error)) {
    unlink_and_close();
    return TAKYON_FAIL(log, error.err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of %s (%llu bytes) failed: %s", name.c_str(),
                       static_cast<unsigned long long>(total), errno_text(error.err).c_str());
  }
  std::byte* const at = base();
  auto* header = new (at) SegmentHeader{};
  header->magic = kMagic;
  header->version = kVersion;
  header->pointer = layout.pointer ? 1 : 0;
  header->pid = static_cast<int32_t>(getpid());
  header->nsend = nsend;
  header->nrecv = nrecv;
  header->nonce = random_nonce();
  header->total_bytes = total;
  header->slots_offset = slots_offset;
  header->sizes_offset = sizes_offset;
  header->recv_offsets_offset = recv_offsets_offset;
  if (nrecv > 0) new (at + slots_offset) MailboxSlot[nrecv];
  auto* sizes = reinterpret_cast<uint64_t*>(at + sizes_offset);
  std::copy(layout.send_bytes.begin(), layout.send_bytes.end(), sizes);
  std::copy(layout.recv_bytes.begin(), layout.recv_bytes.end(), sizes + nsend);
  std::copy(recv_offsets.begin(), recv_offsets.end(), reinterpret_cast<uint64_t*>(at + recv_offsets_offset));
  header->ready.store(1, std::memory_order_release);
  return Status::kOk;
}

Status ShmSegment::open_peer(const std::string& name, ErrorLog& log) {
  close();
  common::SysError error;
  if (!object_.open(name, error)) {
    if (error.err == ENOENT) return Status::kTimedOut;
    return TAKYON_FAIL(log, Status::kSystem, "shm_open(%s) failed: %s", name.c_str(),
                       errno_text(error.err).c_str());
  }
  uint64_t size = 0;
  if (!object_.current_size(size, error) || size < sizeof(SegmentHeader) || owner_gone()) {
    close();  // being created, or left behind by a dead process
    return Status::kTimedOut;
  }
  if (!object_.map(size, error)) {
    close();
    return TAKYON_FAIL(log, Status::kSystem, "mmap of the peer's %s failed: %s", name.c_str(),
                       errno_text(error.err).c_str());
  }
  const SegmentHeader& h = header();
  if (h.ready.load(std::memory_order_acquire) != 1 ||
      h.mailbox.closing.load(std::memory_order_acquire) != 0) {
    close();
    return Status::kTimedOut;
  }
  const uint64_t end_of_tables = h.recv_offsets_offset + 8ull * h.nrecv;
  if (h.magic != kMagic || h.version != kVersion || h.total_bytes != size || end_of_tables > size ||
      h.slots_offset + uint64_t{h.nrecv} * sizeof(MailboxSlot) > size) {
    close();
    return TAKYON_FAIL(log, Status::kProtocol, "shared memory %s is not a Takyon segment of this version",
                       name.c_str());
  }
  const std::vector<uint64_t> recv = recv_sizes();
  for (uint32_t i = 0; i < h.nrecv; ++i) {
    const auto* offsets = reinterpret_cast<const uint64_t*>(base() + h.recv_offsets_offset);
    if (recv[i] > 0 && (offsets[i] == 0 || offsets[i] > size || recv[i] > size - offsets[i])) {
      close();
      return TAKYON_FAIL(log, Status::kProtocol,
                         "shared memory %s describes receive buffer %u outside the segment", name.c_str(), i);
    }
  }
  return Status::kOk;
}

}  // namespace takyon::detail
