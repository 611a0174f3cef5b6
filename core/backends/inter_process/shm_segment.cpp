// SPDX-License-Identifier: MIT
// ShmSegment implementation.
#include "backends/inter_process/shm_segment.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "buffer_alloc.hpp"

namespace takyon::detail {
namespace {

constexpr uint64_t kMagic = 0x54414b594f4e5348ull;  // "TAKYONSH"
constexpr uint32_t kVersion = 6;                    // 6: small messages inside the mailbox slot

}  // namespace

void ShmSegment::close() noexcept {
  object_.close();
  slots_ = nullptr;
  send_sizes_.clear();
  recv_sizes_.clear();
  recv_buffers_.clear();
  polling_ = false;
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
  if (!object_.seal_size(error)) {
    object_.close();
    return TAKYON_FAIL(log, Status::kSystem, "sealing the size of the shared memory %s failed: %s",
                       label.c_str(), error.text().c_str());
  }
  if (!object_.map(total, error)) {
    object_.close();
    return TAKYON_FAIL(log, error.err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of %s (%llu bytes) failed: %s", label.c_str(),
                       static_cast<unsigned long long>(total), errno_text(error.err).c_str());
  }
  std::byte* const at = object_.data();
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
  header->polling = layout.polling ? 1 : 0;
  if (nrecv > 0) new (at + slots_offset) MailboxSlot[nrecv];
  auto* sizes = reinterpret_cast<uint64_t*>(at + sizes_offset);
  std::copy(layout.send_bytes.begin(), layout.send_bytes.end(), sizes);
  std::copy(layout.recv_bytes.begin(), layout.recv_bytes.end(), sizes + nsend);
  std::copy(recv_offsets.begin(), recv_offsets.end(), reinterpret_cast<uint64_t*>(at + recv_offsets_offset));
  slots_ = reinterpret_cast<MailboxSlot*>(at + slots_offset);
  send_sizes_ = layout.send_bytes;
  recv_sizes_ = layout.recv_bytes;
  polling_ = layout.polling;
  for (uint32_t i = 0; i < nrecv; ++i)
    recv_buffers_.push_back(recv_offsets[i] == 0 ? nullptr : at + recv_offsets[i]);
  return Status::kOk;
}

Status ShmSegment::adopt_peer(common::UniqueFd fd, const std::string& label, ErrorLog& log) {
  close();
  object_.adopt(std::move(fd), label);
  const auto refuse = [&](const std::string& why) {
    close();
    return TAKYON_FAIL(log, Status::kProtocol, "the peer's shared memory %s %s", label.c_str(), why.c_str());
  };
  if (!object_.size_sealed()) return refuse("is not a sealed memfd of a Takyon endpoint");
  common::SysError error;
  uint64_t size = 0;
  if (!object_.current_size(size, error)) {
    close();
    return TAKYON_FAIL(log, Status::kSystem, "the peer's shared memory %s: %s", label.c_str(),
                       error.text().c_str());
  }
  if (size < sizeof(SegmentHeader)) return refuse("is too small for a segment header");
  if (!object_.map(size, error)) {
    close();
    return TAKYON_FAIL(log, error.err == ENOMEM ? Status::kNoMemory : Status::kSystem,
                       "mmap of the peer's %s failed: %s", label.c_str(), errno_text(error.err).c_str());
  }
  object_.close_fd();

  // Everything below is read once from memory the peer can still write; each offset is checked
  // against the size without arithmetic that could wrap.
  std::byte* const at = object_.data();
  const SegmentHeader& h = header();
  const uint64_t magic = h.magic;
  const uint32_t version = h.version;
  const uint64_t total = h.total_bytes;
  const uint32_t nsend = h.nsend;
  const uint32_t nrecv = h.nrecv;
  const uint64_t slots_offset = h.slots_offset;
  const uint64_t sizes_offset = h.sizes_offset;
  const uint64_t recv_offsets_offset = h.recv_offsets_offset;
  const bool polling = h.polling == 1;
  const auto fits = [size](uint64_t offset, uint64_t count, uint64_t element) {
    return offset <= size && count <= (size - offset) / element;
  };
  if (magic != kMagic || version != kVersion || total != size)
    return refuse("is not a Takyon segment of this version");
  if (slots_offset % alignof(MailboxSlot) != 0 || sizes_offset % 8 != 0 || recv_offsets_offset % 8 != 0 ||
      slots_offset < sizeof(SegmentHeader) || !fits(slots_offset, nrecv, sizeof(MailboxSlot)) ||
      !fits(sizes_offset, uint64_t{nsend} + nrecv, 8) || !fits(recv_offsets_offset, nrecv, 8)) {
    return refuse("describes tables outside itself");
  }
  std::vector<uint64_t> sizes(uint64_t{nsend} + nrecv);
  if (!sizes.empty()) std::memcpy(sizes.data(), at + sizes_offset, sizes.size() * 8);
  std::vector<uint64_t> offsets(nrecv);
  if (!offsets.empty()) std::memcpy(offsets.data(), at + recv_offsets_offset, offsets.size() * 8);
  send_sizes_.assign(sizes.begin(), sizes.begin() + nsend);
  recv_sizes_.assign(sizes.begin() + nsend, sizes.end());
  for (uint32_t i = 0; i < nrecv; ++i) {
    if (recv_sizes_[i] > 0 && (offsets[i] < sizeof(SegmentHeader) || !fits(offsets[i], recv_sizes_[i], 1))) {
      return refuse(strf("describes receive buffer %u outside itself", i));
    }
    recv_buffers_.push_back(recv_sizes_[i] == 0 ? nullptr : at + offsets[i]);
  }
  slots_ = reinterpret_cast<MailboxSlot*>(at + slots_offset);
  polling_ = polling;
  return Status::kOk;
}

}  // namespace takyon::detail
