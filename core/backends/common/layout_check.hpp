// SPDX-License-Identifier: MIT
// The pairing check both endpoints run at create: same buffer counts, and for Pointer providers
// send buffers no larger than the receive buffers they share. Both sides reach the same verdict.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "error_log.hpp"

namespace takyon::detail {

struct LayoutView {
  char side;  // 'A' or 'B'
  const std::vector<uint64_t>& send_bytes;
  const std::vector<uint64_t>& recv_bytes;
};

inline Status check_layout(const LayoutView& mine, const LayoutView& peer, bool pointer,
                           const std::string& provider, ErrorLog& log) {
  const LayoutView& a = mine.side == 'A' ? mine : peer;
  const LayoutView& b = mine.side == 'A' ? peer : mine;
  if (a.send_bytes.size() != b.recv_bytes.size()) {
    return TAKYON_FAIL(log, Status::kProtocol,
                       "the endpoints of '%s' disagree on nbufs_AtoB: endpoint A has %zu, "
                       "endpoint B has %zu",
                       provider.c_str(), a.send_bytes.size(), b.recv_bytes.size());
  }
  if (b.send_bytes.size() != a.recv_bytes.size()) {
    return TAKYON_FAIL(log, Status::kProtocol,
                       "the endpoints of '%s' disagree on nbufs_BtoA: endpoint A has %zu, "
                       "endpoint B has %zu",
                       provider.c_str(), a.recv_bytes.size(), b.send_bytes.size());
  }
  if (!pointer) return Status::kOk;
  for (const auto* pair : {&a, &b}) {
    const LayoutView& sender = *pair;
    const LayoutView& recver = pair == &a ? b : a;
    for (size_t i = 0; i < sender.send_bytes.size(); ++i) {
      if (sender.send_bytes[i] > recver.recv_bytes[i]) {
        return TAKYON_FAIL(
            log, Status::kProtocol,
            "'%s' shares each receive buffer with its sender, but endpoint %c's "
            "sender_max_bytes_list[%zu] = %llu exceeds endpoint %c's recver_max_bytes_list[%zu] = %llu",
            provider.c_str(), sender.side, i, static_cast<unsigned long long>(sender.send_bytes[i]),
            recver.side, i, static_cast<unsigned long long>(recver.recv_bytes[i]));
      }
    }
  }
  return Status::kOk;
}

}  // namespace takyon::detail
