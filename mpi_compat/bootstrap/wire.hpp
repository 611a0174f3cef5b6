// SPDX-License-Identifier: MIT
// The takyon-run rendezvous protocol: length-prefixed frames over loopback TCP, shared by the
// launcher (server) and the ranks (clients). Both ends run on one host, so integers travel in
// little-endian order and no further portability is attempted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace takyon::mpi::wire {

/// Frame header: magic (4 bytes), type (1), reserved (3), payload length (4), then the payload.
inline constexpr uint32_t kMagic = 0x314e5254;  // "TRN1"
inline constexpr size_t kHeaderBytes = 12;
inline constexpr uint32_t kProtocolVersion = 1;
/// Bootstrap::allgather's limit for one rank's contribution.
inline constexpr size_t kMaxBlobBytes = 64 * 1024;
/// A connection that has not yet shown the secret may send no more than this.
inline constexpr size_t kMaxHelloPayload = 1024;
/// What an authenticated rank may send in one frame (a blob plus the sequence number).
inline constexpr size_t kMaxRequestPayload = kMaxBlobBytes + 64;
/// Abort reasons and failure notices are cut to this length.
inline constexpr size_t kMaxTextBytes = 4096;

enum class Type : uint8_t {
  kHello = 1,          ///< rank -> launcher: u32 version, i32 rank, i32 pid, bytes secret
  kWelcome = 2,        ///< launcher -> rank: accepted (empty)
  kRefused = 3,        ///< launcher -> peer: text; the launcher then closes the connection
  kAllgather = 4,      ///< rank -> launcher: u64 seq, rest = blob
  kAllgatherDone = 5,  ///< launcher -> rank: u64 seq, u32 n, n x bytes (rank order)
  kBarrier = 6,        ///< rank -> launcher: u64 seq
  kBarrierDone = 7,    ///< launcher -> rank: u64 seq
  kAbort = 8,          ///< rank -> launcher: i32 code, rest = reason text
  kAbortAck = 9,       ///< launcher -> rank: empty
  kFinalize = 10,      ///< rank -> launcher: empty
  kFinalizeAck = 11,   ///< launcher -> rank: empty
  kJobFailed = 12,     ///< launcher -> rank: text (a rank died, aborted or misbehaved)
};

/// A frame or payload that breaks the protocol (bad magic, oversized, truncated).
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[nodiscard]] const char* type_name(Type type) noexcept;

struct Frame {
  Type type{};
  std::string payload;
};

/// Header plus payload, ready to write.
[[nodiscard]] std::string encode(Type type, std::string_view payload);

/// Collects bytes as they arrive and hands out complete frames.
class Parser {
 public:
  explicit Parser(size_t max_payload) : max_payload_(max_payload) {}
  void set_max_payload(size_t max_payload) { max_payload_ = max_payload; }
  void append(const char* data, size_t size) { buf_.append(data, size); }
  /// The next complete frame, or nothing yet. Throws WireError on a bad header.
  std::optional<Frame> next();
  /// Bytes received but not yet returned as frames.
  [[nodiscard]] size_t buffered() const noexcept { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
  size_t max_payload_;
};

/// Builds a payload.
class Writer {
 public:
  Writer& u32(uint32_t v);
  Writer& i32(int32_t v) { return u32(static_cast<uint32_t>(v)); }
  Writer& u64(uint64_t v);
  /// u32 length, then the bytes.
  Writer& bytes(std::string_view v);
  /// The bytes alone (a trailing field that runs to the end of the payload).
  Writer& raw(std::string_view v) {
    out_.append(v);
    return *this;
  }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

/// Reads a payload; every read past the end throws WireError.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint32_t u32();
  int32_t i32() { return static_cast<int32_t>(u32()); }
  uint64_t u64();
  std::string_view bytes();
  /// Everything not yet read.
  std::string_view rest() {
    std::string_view r = in_;
    in_ = {};
    return r;
  }
  /// Throws WireError when bytes are left over.
  void expect_end() const;

 private:
  std::string_view take(size_t n);
  std::string_view in_;
};

/// Compares secrets in time independent of where they differ.
[[nodiscard]] bool secrets_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace takyon::mpi::wire
