// SPDX-License-Identifier: MIT
// ShmSegment: one endpoint's named shared memory (header, mailbox slots, receive buffers), over a
// common::ShmObject.
// The owner holds an exclusive flock on it for its lifetime, so a live endpoint is told apart
// from a segment a crashed process left behind; a stale segment is unlinked, never truncated
// (a surviving peer may still have it mapped).
#pragma once

#include <sys/types.h>

#include <atomic>
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
};

/// At offset 0 of every segment.
struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t pointer;
  int32_t pid;
  uint32_t nsend;
  uint32_t nrecv;
  uint64_t nonce;  ///< Random per segment: tells incarnations of an endpoint apart.
  uint64_t total_bytes;
  uint64_t slots_offset;             ///< nrecv mailbox slots, one per receive buffer.
  uint64_t sizes_offset;             ///< nsend send sizes, then nrecv receive sizes (uint64_t each).
  uint64_t recv_offsets_offset;      ///< nrecv offsets of the receive buffers (uint64_t each).
  std::atomic<uint32_t> ready;       ///< 1 once everything above is written.
  std::atomic<uint64_t> peer_nonce;  ///< Nonce of the peer segment this endpoint connected to.
  std::atomic<uint32_t> rejected;    ///< Set by the PEER when it refuses the pairing (reason below).
  char reject_reason[512];           ///< Written by the peer before it sets `rejected`.
  alignas(64) MailboxHeader mailbox;
};

class ShmSegment {
 public:
  ShmSegment() = default;
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  /// Creates and initialises this endpoint's segment `name`. Fails (kInvalidArgument) if a live
  /// endpoint owns the name; replaces a stale one.
  Status create(const std::string& name, const SegmentLayout& layout, Deadline deadline, ErrorLog& log);
  /// Maps the peer's segment if it exists, is owned by a live endpoint, is initialised and not
  /// closing. kOk when mapped, kTimedOut when not (yet) available, other statuses on errors.
  Status open_peer(const std::string& name, ErrorLog& log);
  /// Unmaps and closes without unlinking.
  void close() noexcept;
  /// Removes this endpoint's name (owner only), then closes.
  void unlink_and_close() noexcept;
  /// Removes a peer segment's name if its owner is gone (no exclusive lock held), then closes.
  void unlink_if_stale_and_close() noexcept;
  /// true if no live process holds the owner's lock.
  [[nodiscard]] bool owner_gone() const noexcept;

  [[nodiscard]] bool mapped() const noexcept { return object_.mapped(); }
  [[nodiscard]] SegmentHeader& header() const noexcept {
    return *reinterpret_cast<SegmentHeader*>(object_.data());
  }
  [[nodiscard]] MailboxSlot* slots() const noexcept;
  [[nodiscard]] std::vector<uint64_t> send_sizes() const;
  [[nodiscard]] std::vector<uint64_t> recv_sizes() const;
  [[nodiscard]] std::byte* recv_buffer(uint32_t i) const noexcept;
  [[nodiscard]] const std::string& name() const noexcept { return object_.name(); }

 private:
  [[nodiscard]] std::byte* base() const noexcept { return object_.data(); }
  common::ShmObject object_;
};

/// "/takyon-<uid>-<provider>-<id>-<A|B>".
std::string segment_name(const std::string& provider, uint64_t id, char side);

}  // namespace takyon::detail

static_assert(sizeof(uint64_t) + 2 * sizeof(uint32_t) == 16, "SegmentHeader::pid is read at offset 16");
