// SPDX-License-Identifier: MIT
// The takyon-run rendezvous protocol: frame encoding and payload fields.
#include "wire.hpp"

#include <cstring>

namespace takyon::mpi::wire {
namespace {

void put_u32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

uint32_t get_u32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

}  // namespace

const char* type_name(Type type) noexcept {
  switch (type) {
    case Type::kHello:
      return "hello";
    case Type::kWelcome:
      return "welcome";
    case Type::kRefused:
      return "refused";
    case Type::kAllgather:
      return "allgather";
    case Type::kAllgatherDone:
      return "allgather-done";
    case Type::kBarrier:
      return "barrier";
    case Type::kBarrierDone:
      return "barrier-done";
    case Type::kAbort:
      return "abort";
    case Type::kAbortAck:
      return "abort-ack";
    case Type::kFinalize:
      return "finalize";
    case Type::kFinalizeAck:
      return "finalize-ack";
    case Type::kJobFailed:
      return "job-failed";
  }
  return "unknown";
}

std::string encode(Type type, std::string_view payload) {
  std::string out(kHeaderBytes, '\0');
  put_u32(out.data(), kMagic);
  out[4] = static_cast<char>(type);
  put_u32(out.data() + 8, static_cast<uint32_t>(payload.size()));
  out.append(payload);
  return out;
}

std::optional<Frame> Parser::next() {
  const size_t avail = buf_.size() - pos_;
  if (avail < kHeaderBytes) return std::nullopt;
  const char* h = buf_.data() + pos_;
  if (get_u32(h) != kMagic) throw WireError("bad frame header (not a takyon-run rendezvous peer?)");
  const uint8_t type = static_cast<uint8_t>(h[4]);
  if (type < static_cast<uint8_t>(Type::kHello) || type > static_cast<uint8_t>(Type::kJobFailed)) {
    throw WireError("unknown frame type " + std::to_string(type));
  }
  const uint32_t length = get_u32(h + 8);
  if (length > max_payload_) {
    throw WireError("frame of " + std::to_string(length) + " bytes, more than the " +
                    std::to_string(max_payload_) + " allowed here");
  }
  if (avail < kHeaderBytes + length) return std::nullopt;
  Frame frame{static_cast<Type>(type), buf_.substr(pos_ + kHeaderBytes, length)};
  pos_ += kHeaderBytes + length;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 64 * 1024) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return frame;
}

Writer& Writer::u32(uint32_t v) {
  char b[4];
  put_u32(b, v);
  out_.append(b, 4);
  return *this;
}

Writer& Writer::u64(uint64_t v) {
  u32(static_cast<uint32_t>(v & 0xffffffffu));
  return u32(static_cast<uint32_t>(v >> 32));
}

Writer& Writer::bytes(std::string_view v) {
  u32(static_cast<uint32_t>(v.size()));
  out_.append(v);
  return *this;
}

std::string_view Reader::take(size_t n) {
  if (in_.size() < n) throw WireError("truncated payload");
  std::string_view r = in_.substr(0, n);
  in_.remove_prefix(n);
  return r;
}

uint32_t Reader::u32() {
  return get_u32(take(4).data());
}

uint64_t Reader::u64() {
  const uint64_t lo = u32();
  const uint64_t hi = u32();
  return lo | (hi << 32);
}

std::string_view Reader::bytes() {
  return take(u32());
}

void Reader::expect_end() const {
  if (!in_.empty()) throw WireError(std::to_string(in_.size()) + " unexpected bytes at the end of a payload");
}

bool secrets_equal(std::string_view a, std::string_view b) noexcept {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    diff = static_cast<unsigned char>(diff |
                                      (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i])));
  }
  return diff == 0;
}

}  // namespace takyon::mpi::wire
