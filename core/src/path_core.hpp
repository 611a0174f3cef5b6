// SPDX-License-Identifier: MIT
// PathCore: one endpoint behind both APIs. Validates every argument once, dispatches to the
// backend, keeps the path's state and error stack, prints what verbosity asks for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "backend_registry.hpp"
#include "error_log.hpp"
#include "provider_string.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_providers.h"

namespace takyon::detail {

class PathCore {
 public:
  /// Validates `attrs`, creates and connects the endpoint. On failure returns nullptr and the
  /// formatted error in `error` (already printed/aborted as the attributes ask).
  static std::unique_ptr<PathCore> create(const TakyonPathAttributes& attrs, std::string& error,
                                          Status& status);
  ~PathCore();
  PathCore(const PathCore&) = delete;
  PathCore& operator=(const PathCore&) = delete;

  static PathCore* from(TakyonPath* path) noexcept { return static_cast<PathCore*>(path->private_path); }

  /// kOk, kTimedOut, or an error (recorded, path failed). `timed_out_wanted`: the caller can
  /// receive a timeout (C: timed_out_ret != NULL).
  Status send(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset, bool timed_out_wanted);
  /// A send whose notification carries `piggyback` (takyonWritePiggyback), on providers whose row
  /// says piggyback.
  Status write_piggyback(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset,
                         uint32_t piggyback, bool timed_out_wanted);
  Status is_send_finished(int buffer, bool timed_out_wanted, const char* api_name);
  /// `piggyback` (may be null) gets the value the message carried (0 from takyonSend).
  Status recv(int buffer, uint64_t* bytes, uint64_t* offset, bool timed_out_wanted,
              uint32_t* piggyback = nullptr, const char* api_name = "takyonRecv");
  /// What this path can do (takyon_providers.h: TakyonPathCapabilities).
  void capabilities(TakyonPathCapabilities& out) const;
  /// One-sided operations (takyon.h): complete when they return, or with `start` (takyonWriteStart
  /// ...) once is_one_sided_finished() says so; kOk or an error (path failed). `old` may be null.
  Status write(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset, bool start = false);
  Status read(int buffer, uint64_t bytes, uint64_t local_offset, uint64_t remote_offset, bool start = false);
  Status fetch_add(int buffer, uint64_t offset, uint64_t add, uint64_t* old, bool start = false);
  Status compare_swap(int buffer, uint64_t offset, uint64_t compare, uint64_t swap, uint64_t* old,
                      bool start = false);
  /// Completes every started one-sided operation (bounded by send_finish_timeout): kOk, kTimedOut
  /// (some still in flight; only when `timed_out_wanted`), or an error (path failed).
  Status is_one_sided_finished(bool timed_out_wanted);
  /// At most this many started one-sided operations are in flight; the next start completes them.
  static constexpr uint32_t kMaxStartedOneSided = 64;
  /// Graceful unless the path failed. Returns the formatted error, or "" on success.
  std::string destroy();

  [[nodiscard]] TakyonPath* c_path() noexcept { return &c_; }
  [[nodiscard]] const std::string& last_error() const noexcept { return last_error_; }
  [[nodiscard]] Status last_status() const noexcept { return log_.status(); }
  [[nodiscard]] int send_count() const noexcept { return static_cast<int>(send_bytes_.size()); }
  [[nodiscard]] int recv_count() const noexcept { return static_cast<int>(recv_bytes_.size()); }
  [[nodiscard]] const std::vector<uint64_t>& send_bytes() const noexcept { return send_bytes_; }
  [[nodiscard]] const std::vector<uint64_t>& recv_bytes() const noexcept { return recv_bytes_; }
  [[nodiscard]] const BufferTable& buffers() const noexcept { return backend_->buffers(); }
  /// The provider's row of the backend table (what the provider is).
  [[nodiscard]] const TakyonProviderInfo& provider_info() const noexcept { return entry_->info; }

 private:
  PathCore() = default;
  Status init(const TakyonPathAttributes& attrs);
  std::string headline(const char* operation, int buffer) const;
  /// Records a failure of `operation`: marks the path failed, formats the message into the C
  /// error buffer, prints and aborts as asked. Returns `status`.
  Status failed(const char* operation, int buffer, Status status);
  Status send_as(const char* op, int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset,
                 bool timed_out_wanted, uint32_t piggyback);
  [[gnu::cold, gnu::noinline]] Status reject_send(const char* op, int buffer, uint64_t bytes,
                                                  uint64_t src_offset, uint64_t dest_offset,
                                                  bool timed_out_wanted);
  /// Any call but destroy on a failed path: says so, quoting the first error.
  Status reject_failed_path(const char* operation, int buffer);
  Status check_buffer(const char* operation, const char* which, int buffer, int count);
  /// The checks every one-sided operation shares (path state, provider, buffer, the peer's bytes
  /// [remote_offset, + bytes) and, when local, this endpoint's [local_offset, + bytes), the peer);
  /// sets `remote` to the peer's receive buffer as mapped here, or nullptr where the backend carries
  /// the operation (carry()).
  /// A blocking operation first completes the started ones (ordering); a start beyond
  /// kMaxStartedOneSided does too.
  Status one_sided(const char* operation, int buffer, uint64_t bytes, uint64_t remote_offset, bool local,
                   uint64_t local_offset, bool start, std::byte*& remote);
  /// The word of an atomic: one_sided() plus its alignment (nullptr: not mapped here).
  Status atomic_word(const char* operation, int buffer, uint64_t offset, bool start, uint64_t*& word);
  /// Hands a one-sided operation to the backend (Backend::remote), bounded by send_finish_timeout.
  Status carry(const char* operation, const RemoteArgs& args);
  /// Completes the started one-sided operations before `operation` (which must follow them) by
  /// `deadline`: kOk, kTimedOut when `may_time_out` (the path stays usable), or an error (a
  /// timeout too otherwise; path failed).
  [[gnu::cold, gnu::noinline]] Status complete_started(const char* operation, int buffer, Deadline deadline,
                                                       bool may_time_out);
  [[nodiscard]] Deadline finish_deadline() const noexcept {
    return Deadline::after(c_.attrs.send_finish_timeout);
  }
  Status check_timed_out_ret(const char* operation, bool wanted, double start, double finish,
                             const char* start_name, const char* finish_name);

  TakyonPath c_{};
  ErrorLog log_;
  ProviderArgs provider_;
  const BackendEntry* entry_ = nullptr;  ///< set by init before anything can fail past parsing
  bool shares_buffers_ = false;
  bool failed_ = false;
  std::unique_ptr<Backend> backend_;
  std::vector<uint64_t> send_bytes_;
  std::vector<uint64_t> recv_bytes_;
  std::vector<size_t> send_addrs_;
  std::vector<size_t> recv_addrs_;
  std::vector<uint64_t> remote_recv_bytes_;  // the peer's receive buffer sizes, per send buffer
  std::vector<char> in_flight_;              // non-blocking send started on buffer i, not yet finished
  uint64_t one_sided_ops_ = 0;  // one-sided operations so far (every 1024th checks the peer's process)
  uint32_t started_ = 0;        // one-sided operations the backend carries, started and not finished
  // Decided once at create so the hot paths test one flag each.
  bool send_timeouts_forever_ = true;
  bool recv_timeouts_forever_ = true;
  bool blocking_send_ = true;
  bool trace_send_recv_ = false;
  std::string last_error_;
};

}  // namespace takyon::detail
