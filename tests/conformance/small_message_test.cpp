// SPDX-License-Identifier: MIT
// TwoSided: small messages. The shared-memory Memcpy providers carry a message of up to 40 bytes
// inside its notification's cache line and copy it into the receive buffer on arrival; every size
// around that limit, at several offsets and in two buffers, must land exactly where it was sent on
// every provider, with the bytes around it untouched.
#include <algorithm>
#include <string>
#include <vector>

#include "conformance/two_sided.hpp"

namespace takyon::test {
namespace {

TEST_P(TwoSided, SmallMessagesAcrossTheInlineLimit) {
  const uint32_t id = new_id();
  constexpr uint64_t kBytes = 4096;
  constexpr int kBufs = 2;  // A->B; B->A has one buffer, for the replies
  struct Case {
    uint64_t bytes, src, dest;
  };
  // Every size from 0 to twice a cache line (the limit is 40 bytes, the line 64), then larger ones;
  // each at offsets 0, odd ones, one past a line, and the end of the buffer.
  std::vector<uint64_t> sizes;
  for (uint64_t b = 0; b <= 130; ++b) sizes.push_back(b);
  for (const uint64_t b : {255u, 1000u, 4096u}) sizes.push_back(b);
  std::vector<Case> cases;
  for (const uint64_t b : sizes) {
    const uint64_t end = kBytes - b;
    if (pointer()) {  // the send buffer is the receive buffer: both offsets are one
      for (const uint64_t at : {uint64_t{0}, std::min<uint64_t>(7, end), std::min<uint64_t>(65, end), end})
        cases.push_back({b, at, at});
    } else {
      cases.push_back({b, 0, 0});
      cases.push_back({b, std::min<uint64_t>(1, end), std::min<uint64_t>(7, end)});
      cases.push_back({b, std::min<uint64_t>(61, end), std::min<uint64_t>(64, end)});
      cases.push_back({b, end, end / 3});
      cases.push_back({b, end / 2, end});
    }
  }
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          const int buf = static_cast<int>(i % kBufs);
          if (pointer()) fill_guard(send_buffer(path.get(), buf), kBytes);
          fill_message(path.get(), buf, c.bytes, c.src, i);
          send_message(ep, path.get(), buf, c.bytes, c.src, c.dest);
          const Message reply = recv_message(ep, path.get(), 0);  // B checked it: the buffer is free
          TK_ASSERT(ep, reply.bytes == 0) << "reply " << i << " had " << reply.bytes << " bytes";
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        if (!pointer()) {
          for (int buf = 0; buf < kBufs; ++buf) fill_guard(recv_buffer(path.get(), buf), kBytes);
        }
        for (size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          const int buf = static_cast<int>(i % kBufs);
          const Message got = recv_message(ep, path.get(), buf);
          TK_ASSERT(ep, got.bytes == c.bytes && got.offset == c.dest)
              << "case " << i << " (buffer " << buf << "): got " << got.bytes << " bytes at " << got.offset
              << ", sent " << c.bytes << " bytes from " << c.src << " to " << c.dest;
          expect_message(ep, path.get(), buf, got, i);
          uint8_t* data = recv_buffer(path.get(), buf);
          const std::string before = check_guard(data, c.dest);
          TK_EXPECT(ep, before.empty()) << "case " << i << ", " << c.bytes << " bytes at " << c.dest
                                        << ", before the message: " << before;
          const std::string after = check_guard(data + c.dest + c.bytes, kBytes - c.dest - c.bytes);
          TK_EXPECT(ep, after.empty()) << "case " << i << ", " << c.bytes << " bytes at " << c.dest
                                       << ", after the message: " << after;
          if (!pointer()) fill_guard(data, kBytes);
          send_message(ep, path.get(), 0, 0);
        }
        destroy_path(ep, path);
      });
}

}  // namespace
}  // namespace takyon::test
