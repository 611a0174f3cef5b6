// SPDX-License-Identifier: MIT
// UcxEndpoint: one endpoint of a Ucx path.
//
// Create: a byte stream to the peer (TCP, or an abstract Unix socket for -ID on one host) carries
// a greeting with the buffer layout, this side's UCX worker address and the packed remote key of
// every receive buffer (each registered once with ucp_mem_map), then a verdict from each side.
// Both sides then create a UCX endpoint to the other's worker. The stream stays open: it is the
// liveness channel (a killed peer closes it at once; over TCP a waiting call also checks that its
// heartbeats are acknowledged) and the close handshake.
//
// Two data protocols, chosen per path at create (docs/providers.md says when each is used):
//   - map: when UCX can map every peer receive buffer into this process (ucp_rkey_ptr succeeds:
//     sysv/posix shared memory, which is what ucp_put does on those transports), a send is one
//     memcpy into the peer's buffer (or, up to 40 bytes, into the notification line itself) and a
//     notification through the shared-memory mailbox (spin or futex), with no UCX call on the
//     data path;
//   - am: otherwise, a send is one UCX active message whose header names the buffer, size and
//     offset. Small messages arrive eagerly and are copied from UCX's receive buffer into the
//     Takyon buffer; large ones use rendezvous and land in the registered receive buffer with no
//     intermediate copy (ucp_am_recv_data_nbx). A sender that maps the peer's buffers (am forced
//     over shared memory) copies larger messages into place itself and sends the header alone.
//     Per-buffer credits (a sender waits while the peer holds an unreceived message) ride on the
//     next message or go alone before this side waits.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "backends/common/mailbox.hpp"
#include "backends/net/stream_connect.hpp"
#include "buffer_alloc.hpp"
#include "ucx_context.hpp"
#include "ucx_module_api.hpp"

namespace takyon::detail {

class UcxEndpoint final : public Backend, public PeerMonitor {
 public:
  using Protocol = UcxProtocol;
  using Options = UcxOptions;

  UcxEndpoint(std::shared_ptr<UcxContext> context, StreamConnection stream, Options options, ErrorLog& log);
  ~UcxEndpoint() override;
  UcxEndpoint(const UcxEndpoint&) = delete;
  UcxEndpoint& operator=(const UcxEndpoint&) = delete;

  /// Creates the worker, registers the buffers, exchanges layouts and keys, connects.
  Status connect(const EndpointConfig& config, Deadline deadline);

  Status send(const SendArgs& args) override;
  Status is_send_finished(int buffer, Deadline finish) override;
  Status recv(int buffer, Deadline start, double finish_timeout, RecvResult& out) override;
  Status destroy(bool graceful, Deadline deadline) override;
  /// One-sided operations: the peer's receive buffer where UCX maps it (shared memory), else
  /// remote() with ucp_put/ucp_get/ucp_atomic on the packed keys.
  std::byte* peer_recv_memory(int buffer) override {
    return peer_recv_.empty() ? nullptr : peer_recv_[static_cast<size_t>(buffer)];
  }
  Status remote(const RemoteArgs& args) override;
  /// Started operations: one ucp_ep_flush_nbx completes them all at the target.
  Status remote_finish(Deadline finish) override;
  Status check_peer(bool thorough) override;
  /// Unmapped buffers: ucp_put/get/atomic, which UCX may emulate with messages the peer's worker
  /// must progress (TCP); counted as needing the peer unless every buffer is mapped.
  [[nodiscard]] bool remote_needs_peer_call() const override { return peer_recv_.empty(); }

  /// "am" or "map": what connect() chose.
  [[nodiscard]] const char* protocol_name() const noexcept { return mapped_ ? "map" : "am"; }

 private:
  struct Region {  // one ucp_mem_map'ed area
    ucp_mem_h memh = nullptr;
    std::byte* addr = nullptr;
    uint64_t bytes = 0;
  };
  struct RecvTicket {  // user data of a rendezvous receive
    UcxEndpoint* self;
    int buffer;
  };
  enum class Wait { kMessage, kCredit, kSendDone, kClose, kConnect, kOneSided };

  Status create_worker(size_t recv_buffers);
  Status map_region(std::byte* app_addr, uint64_t bytes, bool allocate, const char* what, Region& out);
  struct PeerGreeting;  // what the peer's greeting said (ucx_endpoint.cpp)
  Status handshake(const EndpointConfig& config, Deadline deadline);
  Status greet(const EndpointConfig& config, Deadline deadline, PeerGreeting& peer);
  Status agree(const EndpointConfig& config, const PeerGreeting& peer, Deadline deadline);
  Status create_ucx_endpoint(const EndpointConfig& config, const PeerGreeting& peer, Deadline deadline);
  bool unpack_keys(const PeerGreeting& peer, std::string& problem);
  Status choose_protocol(const EndpointConfig& config, const PeerGreeting& peer, bool can_map,
                         const std::string& map_problem);
  Status exchange(const std::vector<std::byte>& mine, std::vector<std::byte>& theirs, size_t fixed_bytes,
                  Deadline deadline, const char* what);
  Status read_greeting_length(const std::vector<std::byte>& fixed, uint64_t& total);
  /// Sends the hello active message (it ends in hello_req_).
  Status send_hello();
  /// Waits for the peer's hello and this side's to complete, then flushes and meets the peer on
  /// the stream: when create returns, UCX's wireup is complete both ways, so no later send waits
  /// for the peer to progress just to connect, and a pair UCX cannot connect fails at create.
  Status confirm_connection(Deadline deadline, bool can_map);
  Status connect_timeout();
  /// Waits for a request of a one-sided operation (nullptr or an error pointer: done already).
  Status finish_remote(void* request, const RemoteArgs& args, const char* what);
  /// remote() with args.start_only: issues the operation and keeps its request for remote_finish().
  Status start_remote(const RemoteArgs& args, uint64_t raddr, ucp_rkey_h rkey, std::byte* local);

  // Active-message protocol.
  static ucs_status_t on_data(void* arg, const void* header, size_t header_length, void* data, size_t length,
                              const ucp_am_recv_param_t* param);
  static void on_rndv_done(void* request, ucs_status_t status, size_t length, void* user_data);
  ucs_status_t handle_data(const void* header, size_t header_length, void* data, size_t length,
                           const ucp_am_recv_param_t* param);
  void protocol_error(Status status, std::string text);
  Status send_credits();
  /// `placed`: the message is already in the peer's buffer; only the header goes.
  Status send_am(int buffer, const SendArgs& args, bool placed);
  /// Progresses until `ready()` or the deadline (kTimedOut), checking the peer all along.
  template <typename Ready>
  Status wait(Ready ready, Deadline deadline, Wait what, int buffer);
  Status wait_step(Deadline deadline, int64_t& spin_since);
  /// One ucp_worker_progress pass, or (drain) passes until UCX has nothing more; then reaps credit sends.
  void progress(bool drain = false);

  // Liveness and close over the stream.
  bool alive(std::string& why) override;  // PeerMonitor (also used by the am protocol)
  Status check_stream();
  Status peer_gone(Wait what, int buffer);
  [[nodiscard]] std::string gone_reason() const;
  Status write_stream(char code);

  std::shared_ptr<UcxContext> context_;
  StreamConnection stream_;
  Options options_;
  ErrorLog& log_;

  ucp_worker_h worker_ = nullptr;
  ucp_ep_h ep_ = nullptr;
  int efd_ = -1;
  bool mapped_ = false;
  bool wired_ = false;
  bool tearing_down_ = false;  // UCX's wireup finished (confirm_connection)

  std::vector<PageBuffer> owned_;
  std::vector<Region> send_regions_;
  std::vector<Region> recv_regions_;
  Region control_;                        // mailbox header + slots (map protocol)
  std::vector<ucp_rkey_h> rkeys_;         // the peer's control area, then its receive buffers
  std::vector<std::byte*> peer_recv_;     // mapped peer receive buffers (map protocol)
  std::vector<uint64_t> peer_recv_addr_;  // the peer's receive buffers in its address space
  uint64_t amo_operand_ = 0;              // the atomic in flight: what goes, what comes back
  uint64_t amo_reply_ = 0;
  // Started one-sided operations (RemoteArgs::start_only) until remote_finish(): their requests,
  // the flush that completes them, and each started atomic's operand and reply, in a deque
  // because UCX holds their addresses.
  struct StartedAtomic {
    uint64_t operand = 0;
    uint64_t reply = 0;
    uint64_t* result = nullptr;
  };
  std::vector<void*> started_req_;
  std::deque<StartedAtomic> started_amo_;
  void* started_flush_ = nullptr;
  bool started_flush_issued_ = false;
  bool started_after_flush_ = false;  // started while that flush was out: it does not cover them
  std::unique_ptr<Mailbox> mailbox_;

  std::vector<uint64_t> recv_size_;
  std::vector<RecvTicket> tickets_;
  // Receive side (am): 0 empty, 1 arriving (rendezvous), 2 arrived and not yet received.
  std::vector<uint8_t> state_;
  std::vector<uint64_t> arrived_bytes_;
  std::vector<uint64_t> arrived_offset_;
  std::vector<uint32_t> arrived_piggyback_;
  std::vector<void*> recv_req_;
  std::vector<uint32_t> owed_credits_;
  // Send side (am).
  std::vector<char> remote_busy_;
  std::vector<void*> send_req_;
  // UCX 1.13 reads an active message's header until the send completes, so headers live here.
  std::vector<std::vector<std::byte>> send_headers_;  // per send buffer
  struct ControlSend {
    std::vector<std::byte> header;
    void* request;
  };
  std::vector<ControlSend> control_sends_;  // credit messages not yet completed
  std::vector<std::byte> credit_header_;    // the next credit message's header

  std::vector<std::byte> hello_header_;
  std::vector<std::byte> hello_payload_;
  void* hello_req_ = nullptr;
  bool hello_received_ = false;
  Status failure_ = Status::kOk;  // set by a callback that found the peer misbehaving
  std::string failure_text_;
  bool peer_ready_ = false;    // create: the peer's UCX side is connected
  bool peer_can_map_ = false;  // ... and it can map this side's buffers
  bool peer_closed_ = false;   // the peer's close code arrived on the stream
  bool eof_ = false;
  std::string stream_error_;
  int64_t next_tick_ns_ = 0;
  int64_t next_stream_check_ns_ = 0;
  int64_t outq_since_ns_ = 0;
};

}  // namespace takyon::detail
