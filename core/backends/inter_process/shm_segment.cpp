// SPDX-License-Identifier: MIT
// ShmSegment implementation.
#include "backends/inter_process/shm_segment.hpp"

#include <algorithm>
#include <cerrno>
#include <new>

#include "buffer_alloc.hpp"

namespace takyon::detail {
namespace {

constexpr uint64_t kMagic = 0x54414b594f4e5348ull;  // "TAKYONSH"
constexpr uint32_t kVersion = 5;

}  // namespace

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

Status ShmSegment::create(const std::string& label, const SegmentLayout& layout, ErrorLog& log) {
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

  common::SysError error;
  if (!object_.create_anonymous(label, error)) {
    return TAKYON_FAIL(log,
                       error.err == ENOMEM || error.err == EMFILE || error.err == ENFILE ? Status::kNoMemory
                                                                                         : Status::kSystem,
                       "creating the shared memory %s failed: %s", label.c_str(), error.text().c_str());
  }
  if (!object_.resize(total, error)) {
    const bool no_space = error.err == ENOMEM || error.err == ENOSPC;
    object_.close();
    return TAKYON_FAIL(log, no_space ? Status::kNoMemory : Status::kSystem,
                       "%sreserving %llu bytes of shared memory for %s failed: %s",
                       no_space ? "not enough memory: " : "", static_cast<unsigned long long>(total),
                       label.c_str(), error.text().c_str());
  }
  if (!object_.map(total, error)) {
    object_.close();
    return TAKYON_FAIL(log, error.err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of %s (%llu bytes) failed: %s", label.c_str(),
                       static_cast<unsigned long long>(total), errno_text(error.err).c_str());
  }
  std::byte* const at = base();
  auto* header = new (at) SegmentHeader{};
  header->magic = kMagic;
  header->version = kVersion;
  header->pointer = layout.pointer ? 1 : 0;
  header->nsend = nsend;
  header->nrecv = nrecv;
  header->total_bytes = total;
  header->slots_offset = slots_offset;
  header->sizes_offset = sizes_offset;
  header->recv_offsets_offset = recv_offsets_offset;
  if (nrecv > 0) new (at + slots_offset) MailboxSlot[nrecv];
  auto* sizes = reinterpret_cast<uint64_t*>(at + sizes_offset);
  std::copy(layout.send_bytes.begin(), layout.send_bytes.end(), sizes);
  std::copy(layout.recv_bytes.begin(), layout.recv_bytes.end(), sizes + nsend);
  std::copy(recv_offsets.begin(), recv_offsets.end(), reinterpret_cast<uint64_t*>(at + recv_offsets_offset));
  return Status::kOk;
}

Status ShmSegment::adopt_peer(common::UniqueFd fd, const std::string& label, ErrorLog& log) {
  close();
  object_.adopt(std::move(fd), label);
  common::SysError error;
  uint64_t size = 0;
  if (!object_.current_size(size, error)) {
    close();
    return TAKYON_FAIL(log, Status::kSystem, "the peer's shared memory %s: %s", label.c_str(),
                       error.text().c_str());
  }
  if (size < sizeof(SegmentHeader)) {
    close();
    return TAKYON_FAIL(log, Status::kProtocol, "the peer's shared memory %s is too small (%llu bytes)",
                       label.c_str(), static_cast<unsigned long long>(size));
  }
  if (!object_.map(size, error)) {
    close();
    return TAKYON_FAIL(log, error.err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of the peer's %s failed: %s", label.c_str(), errno_text(error.err).c_str());
  }
  object_.close_fd();
  const SegmentHeader& h = header();
  const uint64_t end_of_tables = h.recv_offsets_offset + 8ull * h.nrecv;
  if (h.magic != kMagic || h.version != kVersion || h.total_bytes != size || h.nrecv > size ||
      h.nsend > size || end_of_tables > size ||
      h.sizes_offset + 8ull * (uint64_t{h.nsend} + h.nrecv) > size ||
      h.slots_offset + uint64_t{h.nrecv} * sizeof(MailboxSlot) > size) {
    close();
    return TAKYON_FAIL(log, Status::kProtocol,
                       "the peer's shared memory %s is not a Takyon segment of this version", label.c_str());
  }
  const std::vector<uint64_t> recv = recv_sizes();
  const auto* offsets = reinterpret_cast<const uint64_t*>(base() + h.recv_offsets_offset);
  for (uint32_t i = 0; i < h.nrecv; ++i) {
    if (recv[i] > 0 && (offsets[i] == 0 || offsets[i] > size || recv[i] > size - offsets[i])) {
      close();
      return TAKYON_FAIL(log, Status::kProtocol,
                         "the peer's shared memory %s describes receive buffer %u outside it", label.c_str(),
                         i);
    }
  }
  return Status::kOk;
}

}  // namespace takyon::detail
