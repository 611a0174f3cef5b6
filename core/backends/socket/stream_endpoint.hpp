// SPDX-License-Identifier: MIT
// StreamEndpoint: the connected socket providers (Socket over TCP, InterProcessSocket over a Unix
// socket) once a connection exists. One protocol over any byte stream:
//   - create: both sides send a greeting with their buffer layout and answer with a verdict, so a
//     mismatch or a stranger on the port is reported by both sides;
//   - a message is a 40-byte frame header (buffer, bytes, offset, piggyback) and the payload, read straight
//     into the receive buffer;
//   - per-buffer credits: a sender may not send into a receive buffer that still holds an
//     unreceived message (it waits, as the shared-memory providers do). Credits ride on the next
//     outgoing frame, or go alone when the peer asks or before this side waits;
//   - one-sided operations: a write, read or atomic is a request frame that the target endpoint
//     carries out when it next reads its socket (inside any call on the path) and answers with a
//     reply frame, in order; a blocking operation waits for its reply, a started one leaves it
//     queued for the finish test (remote_finish);
//   - liveness over TCP: while a call waits it sends a tiny heartbeat every 100 ms and declares
//     the link lost when the kernel has had unacknowledged bytes and no ACK for 500 ms.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "backends/net/socket_common.hpp"
#include "buffer_alloc.hpp"

namespace takyon::detail {

/// The frame header on the wire (little-endian). `ncredits` buffers of the receiver of this frame
/// are free again; the first is `credit0`, the rest follow the header as uint32 values.
struct WireFrame {
  uint32_t type;
  uint32_t buffer;
  uint64_t bytes;
  uint64_t offset;
  uint32_t ncredits;
  uint32_t credit0;
  uint32_t piggyback;  ///< A data frame's 32-bit value (takyonWritePiggyback).
  uint32_t reserved;
};
static_assert(sizeof(WireFrame) == 40);

class StreamEndpoint final : public Backend {
 public:
  struct Options {
    bool tcp = true;       ///< TCP (heartbeats, link checks) or a Unix socket.
    bool polling = true;   ///< Spin on non-blocking reads, or sleep in poll().
    std::string provider;  ///< The interconnect text, for messages.
    std::string peer;      ///< Who is at the other end ("127.0.0.1:4000", "@takyon-..."), for messages.
  };

  StreamEndpoint(common::UniqueFd fd, Options options, ErrorLog& log);
  ~StreamEndpoint() override;
  StreamEndpoint(const StreamEndpoint&) = delete;
  StreamEndpoint& operator=(const StreamEndpoint&) = delete;

  /// Allocates the buffers Takyon owns and exchanges greetings and layouts before `deadline`.
  Status connect(const EndpointConfig& config, Deadline deadline);

  Status send(const SendArgs& args) override;
  Status is_send_finished(int buffer, Deadline finish) override;
  Status recv(int buffer, Deadline start, double finish_timeout, RecvResult& out) override;
  Status destroy(bool graceful, Deadline deadline) override;
  /// One-sided operations: a request the peer carries out when it enters the library.
  Status remote(const RemoteArgs& args) override;
  Status remote_finish(Deadline finish) override;
  Status check_peer(bool thorough) override;
  [[nodiscard]] bool remote_needs_peer_call() const override { return true; }

 private:
  enum class InState { kHeader, kCredits, kPayload };

  Status handshake(const EndpointConfig& config, Deadline deadline);
  Status write_all_blocking(const void* data, size_t bytes, Deadline deadline, const char* what);
  Status read_all_blocking(void* data, size_t bytes, Deadline deadline, const char* what);

  /// Reads and applies whatever has arrived, without blocking; stops early once a message for
  /// receive buffer `want` (>= 0) has landed, to save the system call that would find nothing.
  Status pump(int want = -1);
  Status on_header();
  Status on_frame_body();
  Status apply_credit(uint32_t buffer);
  Status read_error(ssize_t n, int err, const char* what);

  /// Appends a control frame (credits, want-credit, heartbeat, close) to the outbound queue and
  /// tries to write it; control frames never block the caller.
  Status queue_control(uint32_t type, uint32_t buffer);
  /// Queues frame `f` (the owed credits added) with `payload_bytes` of `payload` and tries to write.
  Status queue_frame(WireFrame f, const std::byte* payload, uint64_t payload_bytes);
  Status flush_pending();
  /// Writes one data frame: header, piggybacked credits, payload.
  Status write_data(const SendArgs& args);
  /// Writes frame `f` (type, buffer, bytes and offset set) with the owed credits and `payload`.
  /// kTimedOut when nothing went out by `start`; `finish` bounds the rest.
  Status write_frame(WireFrame f, const std::byte* payload, uint64_t payload_bytes, Deadline start,
                     double finish_timeout);
  /// Target side of a one-sided request: checks it and, when it carries no payload, answers it.
  Status on_request();
  /// Target side, once a request's payload is in: carries it out and queues the reply.
  Status on_request_payload();
  /// Queues a reply frame (result code in `offset`) with `bytes` of `payload`.
  Status queue_reply(uint32_t buffer, uint64_t code, const std::byte* payload, uint64_t bytes);
  /// Origin side: waits until every request has its reply; `what` (null: the finish test, which
  /// returns kTimedOut at `finish`) names the blocking operation for its timeout error.
  Status await_replies(Deadline finish, const char* what, int buffer);
  /// Origin side: the reply to this endpoint's oldest request arrived (its header).
  Status on_reply();
  /// Origin side: the oldest request's reply is all in (`ok`: it carries a result).
  void complete_reply(bool ok);
  /// One wait step: spins (polling) or sleeps in poll() (event) until input, output room, the
  /// deadline or the next liveness tick. Returns kTimedOut only at the deadline.
  Status wait_step(Deadline deadline, bool want_output);
  /// Event driven, nothing to write, between frames: sleeps in a blocking recv() of the next
  /// header (one system call instead of ppoll() + recv()), bounded like wait_step().
  Status wait_for_header(Deadline deadline);
  Status check_link();
  void begin_wait();

  Status disconnected_error(const char* context);

  common::UniqueFd fd_;
  Options options_;
  ErrorLog& log_;
  std::atomic<bool> in_call_{false};

  // Buffers.
  std::vector<PageBuffer> owned_;
  std::vector<uint64_t> recv_size_;
  // Receive side: what has landed and not been received, and what the peer asked for.
  std::vector<char> arrived_;
  std::vector<uint64_t> arrived_bytes_;
  std::vector<uint64_t> arrived_offset_;
  std::vector<uint32_t> arrived_piggyback_;
  std::vector<char> peer_wants_;
  std::vector<uint32_t> owed_credits_;  // buffers received since the last credits were sent
  // Send side: the peer's receive buffers that hold a message we sent and it has not received.
  std::vector<char> remote_busy_;
  std::vector<char> want_sent_;

  // Inbound frame being read.
  InState in_state_ = InState::kHeader;
  size_t in_got_ = 0;
  WireFrame in_frame_{};
  std::vector<uint32_t> in_credits_;
  std::byte* in_dest_ = nullptr;
  uint64_t in_left_ = 0;

  // Outbound control bytes not yet written (always whole frames after the first byte).
  std::vector<std::byte> pending_;
  size_t pending_sent_ = 0;

  // One-sided: a request frame's 16-byte payload (atomics: operand, compare) as it arrives.
  uint64_t request_words_[2]{};
  // This endpoint's requests awaiting their replies, oldest first (the peer answers in order).
  struct StartedRequest {
    uint32_t buffer = 0;
    bool atomic = false;
    uint64_t remote_offset = 0;
    std::byte* dest = nullptr;  // where the reply's bytes go (a read: the send buffer)
    uint64_t reply_bytes = 0;
    uint64_t word = 0;           // an atomic's reply (little-endian) as it arrives
    uint64_t* result = nullptr;  // an atomic's caller (may be null)
  };
  std::deque<StartedRequest> started_;  // a deque: in_dest_ may point into the oldest
  bool misaligned_ = false;             // a reply said an atomic's word was not aligned
  uint32_t misaligned_buffer_ = 0;
  uint64_t misaligned_offset_ = 0;

  bool data_in_progress_ = false;  // a data frame is partly written: control frames wait
  bool peer_closed_ = false;       // the peer's close frame arrived
  bool eof_ = false;
  int64_t next_tick_ns_ = 0;
  int64_t outq_since_ns_ = 0;
  int64_t spin_since_ns_ = 0;
  int64_t rcvtimeo_ns_ = 0;  // SO_RCVTIMEO now set on the socket (0: none; event mode only)
};

}  // namespace takyon::detail
