// SPDX-License-Identifier: MIT
// What travels on a Takyon stream socket: a hello with the buffer layout, then frames.
#pragma once

#include <cstdint>

namespace takyon::detail {

inline constexpr char kHelloMagic[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'S', 'T'};
inline constexpr uint32_t kStreamVersion = 1;
inline constexpr uint32_t kMaxStreamBuffers = 1 << 16;

/// Sent once by each side after connecting, followed by nsend then nrecv uint64_t sizes.
struct StreamHello {
  char magic[8];
  uint32_t version;
  uint32_t is_endpoint_a;
  uint32_t nsend;
  uint32_t nrecv;
};

enum class FrameType : uint32_t {
  kData = 0x54594b01,       ///< `bytes` of payload for receive buffer `buffer` at `offset` follow.
  kHeartbeat = 0x54594b02,  ///< Keeps an idle connection's liveness checked (TCP user timeout).
  kClose = 0x54594b03,      ///< The sender is destroying its endpoint.
};

struct FrameHeader {
  uint32_t type;
  int32_t buffer;
  uint64_t bytes;
  uint64_t offset;
};
static_assert(sizeof(FrameHeader) == 24 && sizeof(StreamHello) == 24);

}  // namespace takyon::detail
