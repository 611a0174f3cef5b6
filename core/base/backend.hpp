// SPDX-License-Identifier: MIT
// Backend: what every transport implements. The core validates every argument before dispatch;
// a backend checks only what arrives from its peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deadline.hpp"
#include "error_log.hpp"
#include "provider_string.hpp"

namespace takyon::detail {

/// One buffer as the application described it (app_addr nullptr: Takyon allocates).
struct BufferSpec {
  uint64_t bytes = 0;
  std::byte* app_addr = nullptr;
};

/// Everything a backend needs to create one endpoint, already validated by the core.
struct EndpointConfig {
  const ProviderArgs* provider = nullptr;
  bool is_endpoint_a = true;
  bool is_polling = true;
  uint64_t verbosity = 0;
  std::vector<BufferSpec> send;  ///< This endpoint's send buffers.
  std::vector<BufferSpec> recv;  ///< This endpoint's receive buffers.
  [[nodiscard]] char side() const noexcept { return is_endpoint_a ? 'A' : 'B'; }
};

struct SendArgs {
  int buffer = 0;
  uint64_t bytes = 0;
  uint64_t src_offset = 0;
  uint64_t dest_offset = 0;
  Deadline start;              ///< For the transfer to start (free remote buffer, credits, ...).
  double finish_timeout = -1;  ///< Seconds, counted from the start of the transfer.
  bool blocking = true;
  uint32_t piggyback = 0;  ///< Carried with the notification (takyonWritePiggyback; 0 for takyonSend).
};

/// A one-sided operation the backend carries itself (where peer_recv_memory() maps nothing). The
/// core has checked the buffer index, both sides' bounds and the offset's alignment.
enum class RemoteOp { kWrite, kRead, kFetchAdd, kCompareSwap };
struct RemoteArgs {
  RemoteOp op = RemoteOp::kWrite;
  int buffer = 0;              ///< This endpoint's send buffer, the peer's receive buffer.
  uint64_t bytes = 0;          ///< Write and read; 8 for the atomics.
  uint64_t local_offset = 0;   ///< In the send buffer (write: source, read: destination).
  uint64_t remote_offset = 0;  ///< In the peer's receive buffer.
  uint64_t operand = 0;        ///< Fetch-add: the addend; compare-and-swap: the new value.
  uint64_t compare = 0;        ///< Compare-and-swap: the expected value.
  uint64_t* result = nullptr;  ///< The atomics: the word's previous value (never null).
  Deadline finish;             ///< For the operation to complete (send_finish_timeout).
  /// Start it and return (takyonWriteStart ...): remote_finish() completes it. `result` may be
  /// null then, and is written by the time remote_finish() returns kOk.
  bool start_only = false;
};

struct RecvResult {
  uint64_t bytes = 0;
  uint64_t offset = 0;
  uint32_t piggyback = 0;  ///< What the sender's notification carried.
};

/// The buffers of an endpoint once connected (what TakyonPath.attrs shows).
struct BufferTable {
  std::vector<std::byte*> send;
  std::vector<std::byte*> recv;
  std::vector<uint64_t> remote_recv_bytes;  ///< The peer's receive buffer sizes, per send buffer.
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// Starts (and, when args.blocking, completes) a transfer. kTimedOut if it could not start.
  virtual Status send(const SendArgs& args) = 0;
  /// Completes a non-blocking send. kTimedOut if not finished by the deadline.
  virtual Status is_send_finished(int buffer, Deadline finish) = 0;
  /// Waits for the next message in `buffer`. kTimedOut if none started to arrive by `start`.
  virtual Status recv(int buffer, Deadline start, double finish_timeout, RecvResult& out) = 0;
  /// Graceful (coordinate with the peer until `deadline`) or forced (after an error) shutdown.
  virtual Status destroy(bool graceful, Deadline deadline) = 0;
  /// One-sided operations (providers whose row says one_sided): where the peer's receive buffer
  /// `buffer` is mapped in this process; nullptr where it is not.
  virtual std::byte* peer_recv_memory(int /*buffer*/) { return nullptr; }
  /// One-sided operations that peer_recv_memory() cannot map: the backend carries the operation to
  /// the peer and returns once it is complete there (kOk), or an error (kTimeout past `finish`).
  virtual Status remote(const RemoteArgs& /*args*/) { return Status::kUnsupported; }
  /// Completes every operation remote() started (args.start_only) at the peer: kOk, kTimedOut when
  /// some are still in flight at `finish` (call again), or the first error among them.
  virtual Status remote_finish(Deadline /*finish*/) { return Status::kOk; }
  /// Whether remote() needs the peer inside a call to complete (it carries the operation to the
  /// peer's process rather than into its memory). Asked after create.
  [[nodiscard]] virtual bool remote_needs_peer_call() const { return false; }
  /// Whether the peer is still there before a one-sided operation: kOk, or kDisconnected with the
  /// reason in the log. `thorough`: also ask whether its process lives (a system call; the core
  /// asks every so many operations).
  virtual Status check_peer(bool /*thorough*/) { return Status::kOk; }

  [[nodiscard]] const BufferTable& buffers() const noexcept { return buffers_; }

 protected:
  BufferTable buffers_;
};

/// Creates and connects one endpoint before `deadline`, or explains why not in `log`.
using BackendFactory = Status (*)(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                  std::unique_ptr<Backend>& out);

}  // namespace takyon::detail
