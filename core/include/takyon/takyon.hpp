// SPDX-License-Identifier: MIT
// Takyon C++20 API: RAII paths over the same core as the C API, errors as exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "takyon.h"
#include "takyon_providers.h"

namespace takyon {

namespace detail {
class PathCore;
}  // namespace detail

/// Outcome of a core operation. Non-negative values are not errors.
enum class [[nodiscard]] Status : std::int8_t{
    kOk = 0,
    kTimedOut = 1,          ///< A start timeout expired: nothing happened, the path is still valid.
    kInvalidArgument = -1,  ///< The caller passed something the path cannot accept.
    kDisconnected = -2,     ///< The peer went away (exited, destroyed its endpoint, link lost).
    kSystem = -3,           ///< A system call failed (errno in the message).
    kNoMemory = -4,
    kUnsupported = -5,  ///< The provider cannot do what was asked.
    kTimeout = -6,      ///< A finish/create/destroy timeout expired: the path is no longer usable.
    kProtocol = -7,     ///< The peer sent something inconsistent (layout mismatch, bad header).
    kFailedPath = -8,   ///< The path failed earlier; only destroy is allowed.
};

/// Short name of a status ("ok", "timed out", "disconnected", ...).
TAKYON_API const char* status_name(Status status) noexcept;

/// Thrown by the C++ API for every error. what() holds the readable stack
/// (operation, path, file:function:line, cause).
class TAKYON_API Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  [[nodiscard]] Status status() const noexcept { return status_; }

 private:
  Status status_;
};

/// The six timeouts of the guide, in seconds. TAKYON_WAIT_FOREVER (-1) waits forever, 0 tries once.
struct Timeouts {
  double create = 10.0;
  double send_start = TAKYON_WAIT_FOREVER;
  double send_finish = TAKYON_WAIT_FOREVER;
  double recv_start = TAKYON_WAIT_FOREVER;
  double recv_finish = TAKYON_WAIT_FOREVER;
  double destroy = 10.0;
};

/// How send() completes: kBlocking, or kNonBlocking followed by is_send_finished().
enum class Completion { kBlocking, kNonBlocking };

/// One endpoint's view of a path. Buffer lists are from this endpoint's side: on endpoint A
/// send_bytes has nbufs_AtoB entries, on B nbufs_BtoA.
struct PathOptions {
  std::string provider;  ///< e.g. "InterProcessMemcpy -ID=3".
  bool endpoint_a = true;
  bool polling = true;  ///< false: event driven (sleep in the kernel).
  Completion send_completion = Completion::kBlocking;
  std::vector<std::uint64_t> send_bytes;  ///< Size of each send buffer.
  std::vector<std::uint64_t> recv_bytes;  ///< Size of each receive buffer.
  std::vector<void*> send_addrs;          ///< Empty, or one per send buffer; nullptr: Takyon allocates.
  std::vector<void*> recv_addrs;          ///< Empty, or one per receive buffer; nullptr: Takyon allocates.
  Timeouts timeouts;
  std::uint64_t verbosity = TAKYON_VERBOSITY_NONE;  ///< Errors arrive as exceptions; add flags to trace.

  /// A path with `nbufs` buffers of `bytes` bytes in each direction.
  TAKYON_API static PathOptions symmetric(std::string provider, bool endpoint_a, int nbufs,
                                          std::uint64_t bytes);
};

/// What recv() returns: the message occupies recv_buffer(i)[offset, offset + bytes).
struct Received {
  std::uint64_t bytes = 0;
  std::uint64_t offset = 0;
  std::uint32_t piggyback = 0;  ///< The sender's write_piggyback() value (0 from send()).
};

/// One endpoint of a path. Move-only; the destructor destroys the endpoint gracefully (forced
/// after an error) and never throws; call destroy() to see a destroy error. Threading: a Path may
/// be used by one sending and one receiving thread at a time, like the C API.
class TAKYON_API Path {
 public:
  /// Creates and connects this endpoint. Throws Error on failure or create timeout.
  explicit Path(const PathOptions& options);
  ~Path();
  Path(Path&& other) noexcept;
  Path& operator=(Path&& other) noexcept;
  Path(const Path&) = delete;
  Path& operator=(const Path&) = delete;

  /// Sends `bytes` from send buffer `buffer` at src_offset into the peer's receive buffer at
  /// dest_offset. Returns false if send_start timed out (nothing was sent); throws on error.
  bool send(int buffer, std::uint64_t bytes, std::uint64_t src_offset = 0, std::uint64_t dest_offset = 0);
  /// send() whose notification carries `piggyback` (takyon.h: takyonWritePiggyback); recv() returns
  /// it in Received::piggyback.
  bool write_piggyback(int buffer, std::uint64_t bytes, std::uint64_t src_offset, std::uint64_t dest_offset,
                       std::uint32_t piggyback);
  /// Completes a non-blocking send. Returns false if send_finish timed out (call again).
  bool is_send_finished(int buffer);
  /// Waits for a message in receive buffer `buffer`. std::nullopt if recv_start timed out.
  std::optional<Received> recv(int buffer);
  /// One-sided operations (takyon.h: takyonWrite ...), on providers whose row says one_sided;
  /// each is complete when it returns and throws Error on failure.
  /// Copies `bytes` from send buffer `buffer` at src_offset into the peer's receive buffer `buffer`.
  void write(int buffer, std::uint64_t bytes, std::uint64_t src_offset = 0, std::uint64_t dest_offset = 0);
  /// Copies `bytes` from the peer's receive buffer `buffer` at remote_offset into send buffer `buffer`.
  void read(int buffer, std::uint64_t bytes, std::uint64_t local_offset = 0, std::uint64_t remote_offset = 0);
  /// Adds `add` to the peer's 64-bit word at `offset` (8-byte aligned); returns its previous value.
  std::uint64_t atomic_fetch_add(int buffer, std::uint64_t offset, std::uint64_t add);
  /// Swaps in `swap` if the peer's word equals `compare`; returns its previous value.
  std::uint64_t atomic_compare_swap(int buffer, std::uint64_t offset, std::uint64_t compare,
                                    std::uint64_t swap);
  /// The same operations started (takyon.h: takyonWriteStart ...): each returns once the operation is
  /// under way; is_one_sided_finished() completes it. `old` (may be null) is written by then.
  void write_start(int buffer, std::uint64_t bytes, std::uint64_t src_offset = 0,
                   std::uint64_t dest_offset = 0);
  void read_start(int buffer, std::uint64_t bytes, std::uint64_t local_offset = 0,
                  std::uint64_t remote_offset = 0);
  void atomic_fetch_add_start(int buffer, std::uint64_t offset, std::uint64_t add, std::uint64_t* old);
  void atomic_compare_swap_start(int buffer, std::uint64_t offset, std::uint64_t compare, std::uint64_t swap,
                                 std::uint64_t* old);
  /// Completes every started one-sided operation at the peer. Returns false if send_finish timed
  /// out with some still in flight (call again).
  bool is_one_sided_finished();
  /// Graceful destroy; throws Error if it could not be graceful. The path is gone either way.
  void destroy();

  [[nodiscard]] int send_buffer_count() const noexcept;
  [[nodiscard]] int recv_buffer_count() const noexcept;
  [[nodiscard]] std::span<std::byte> send_buffer(int buffer) const;
  [[nodiscard]] std::span<std::byte> recv_buffer(int buffer) const;
  /// The C view of this endpoint (attrs with final addresses), valid until destroy.
  [[nodiscard]] TakyonPath* c_path() const noexcept;
  /// What this path's provider is (its row of the provider table); nullptr after destroy.
  [[nodiscard]] const TakyonProviderInfo* provider() const noexcept;
  /// What this endpoint can do (takyon_providers.h: takyonPathCapabilities). Throws after destroy.
  [[nodiscard]] TakyonPathCapabilities capabilities() const;
  [[nodiscard]] explicit operator bool() const noexcept { return core_ != nullptr; }

 private:
  detail::PathCore* core_ = nullptr;
};

/// The provider table (takyon_providers.h): one row per provider this library knows.
TAKYON_API std::span<const TakyonProviderInfo> providers() noexcept;
/// The row of provider `name` (an interconnect string's first word), or nullptr.
TAKYON_API const TakyonProviderInfo* find_provider(std::string_view name) noexcept;

}  // namespace takyon
