// SPDX-License-Identifier: MIT
// ShmSegment: one endpoint's shared memory (header, mailbox slots, receive buffers), an anonymous
// common::ShmObject (memfd). It has no name anywhere: the peer gets its descriptor over the
// endpoints' checked Unix socket, so no other user can open, squat or replace it, nothing is
// left behind by a crash, and the size of /dev/shm does not matter. Its memory is reserved when
// created, so lack of memory is a create error, never a signal later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/common/mailbox.hpp"
#include "common/shm_object.hpp"
#include "error_log.hpp"

namespace takyon::detail {

struct SegmentLayout {
  std::vector<uint64_t> send_bytes;
  std::vector<uint64_t> recv_bytes;
  bool pointer = false;
  bool polling = false;  ///< The endpoint never sleeps: waking it needs no fence.
};

/// At offset 0 of every segment.
struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t pointer;
  uint32_t nsend;
  uint32_t nrecv;
  uint64_t total_bytes;
  uint64_t slots_offset;         ///< nrecv mailbox slots, one per receive buffer.
  uint64_t sizes_offset;         ///< nsend send sizes, then nrecv receive sizes (uint64_t each).
  uint64_t recv_offsets_offset;  ///< nrecv offsets of the receive buffers (uint64_t each).
  uint32_t polling;              ///< 1: the endpoint polls, never sleeping on a futex.
  alignas(64) MailboxHeader mailbox;
};

class ShmSegment {
 public:
  /// Creates, reserves, seals (its size can never change), maps and initialises this endpoint's
  /// segment; `label` names it in messages ("takyon-0-InterProcessMemcpy-7-A").
  Status create(const std::string& label, const SegmentLayout& layout, ErrorLog& log);
  /// Maps the peer's segment from the descriptor it sent, after checking that its size is sealed
  /// and that it is a segment of this version whose tables lie inside it. The tables are read
  /// once, here: later changes the peer makes to them are never looked at.
  Status adopt_peer(common::UniqueFd fd, const std::string& label, ErrorLog& log);
  /// Unmaps and closes.
  void close() noexcept;
  /// Closes the descriptor once the peer has its own; the mapping stays.
  void close_fd() noexcept { object_.close_fd(); }

  [[nodiscard]] int fd() const noexcept { return object_.fd(); }
  [[nodiscard]] bool mapped() const noexcept { return object_.mapped(); }
  [[nodiscard]] SegmentHeader& header() const noexcept {
    return *reinterpret_cast<SegmentHeader*>(object_.data());
  }
  [[nodiscard]] MailboxSlot* slots() const noexcept { return slots_; }
  [[nodiscard]] const std::vector<uint64_t>& send_sizes() const noexcept { return send_sizes_; }
  [[nodiscard]] const std::vector<uint64_t>& recv_sizes() const noexcept { return recv_sizes_; }
  [[nodiscard]] std::byte* recv_buffer(uint32_t i) const noexcept { return recv_buffers_[i]; }
  /// The endpoint polls (as the segment said when created or adopted).
  [[nodiscard]] bool polling() const noexcept { return polling_; }
  [[nodiscard]] const std::string& label() const noexcept { return object_.name(); }

 private:
  common::ShmObject object_;
  // The geometry, as this endpoint wrote it or validated it once.
  MailboxSlot* slots_ = nullptr;
  std::vector<uint64_t> send_sizes_;
  std::vector<uint64_t> recv_sizes_;
  std::vector<std::byte*> recv_buffers_;
  bool polling_ = false;
};

}  // namespace takyon::detail
