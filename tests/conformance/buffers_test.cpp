// SPDX-License-Identifier: MIT
// TwoSided: per-side buffer sizes, application buffers, the attrs copies, non-blocking sends.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "conformance/two_sided.hpp"

namespace takyon::test {
namespace {

// Sizes for one direction: what the sender declares and what the receiver declares. Memcpy lets
// them differ either way; Pointer needs sender <= receiver.
struct Sizes {
  std::vector<uint64_t> a_send, b_recv, b_send, a_recv;
};

Sizes sizes_for(bool pointer) {
  if (pointer) return {{1000, 5000, 64}, {4000, 6000, 64}, {300, 7000}, {8000, 7000}};
  return {{1000, 5000, 64}, {4000, 2000, 64}, {300, 7000}, {8000, 100}};
}

TEST_P(TwoSided, BufferSizesMayDifferPerSide) {
  const uint32_t id = new_id();
  const Sizes s = sizes_for(pointer());
  // One message per buffer: as large as both sides allow, ending exactly at the receiver's end
  // (Memcpy) or starting at 0 (Pointer, where the offsets must be equal).
  const auto plan = [&](uint64_t send, uint64_t recv) {
    const uint64_t bytes = send < recv ? send : recv;
    return Message{bytes, pointer() ? 0 : recv - bytes};
  };
  const auto endpoint = [&](Endpoint& ep, const std::vector<uint64_t>& send_sizes,
                            const std::vector<uint64_t>& recv_sizes, const std::vector<uint64_t>& peer_recv,
                            const std::vector<uint64_t>& peer_send) {
    Attrs attrs = attrs_for(id, ep, 3, 2, 0);
    attrs.send_bytes = send_sizes;
    attrs.recv_bytes = recv_sizes;
    attrs.send_addrs.assign(send_sizes.size(), 0);
    attrs.recv_addrs.assign(recv_sizes.size(), 0);
    PathHandle path = create_path(ep, attrs);
    for (size_t i = 0; i < send_sizes.size(); ++i) {
      TK_EXPECT(ep, path->attrs.sender_max_bytes_list[i] == send_sizes[i]) << "send buffer " << i;
    }
    for (size_t i = 0; i < recv_sizes.size(); ++i) {
      TK_EXPECT(ep, path->attrs.recver_max_bytes_list[i] == recv_sizes[i]) << "recv buffer " << i;
    }
    const uint64_t tag = ep.is_a() ? 0 : 100;
    for (size_t i = 0; i < send_sizes.size(); ++i) {
      const int buf = static_cast<int>(i);
      const Message m = plan(send_sizes[i], peer_recv[i]);
      const uint64_t src = pointer() ? m.offset : send_sizes[i] - m.bytes;
      fill_message(path.get(), buf, m.bytes, src, tag + i);
      send_message(ep, path.get(), buf, m.bytes, src, m.offset);
    }
    for (size_t i = 0; i < recv_sizes.size(); ++i) {
      const int buf = static_cast<int>(i);
      const Message want = plan(peer_send[i], recv_sizes[i]);
      const Message got = recv_message(ep, path.get(), buf);
      TK_EXPECT(ep, got.bytes == want.bytes && got.offset == want.offset)
          << "buffer " << i << ": got " << got.bytes << " bytes at " << got.offset << ", expected "
          << want.bytes << " at " << want.offset;
      expect_message(ep, path.get(), buf, got, (100 - tag) + i);
    }
    destroy_path(ep, path);
  };
  run([&](Endpoint& ep) { endpoint(ep, s.a_send, s.a_recv, s.b_recv, s.b_send); },
      [&](Endpoint& ep) { endpoint(ep, s.b_send, s.b_recv, s.a_recv, s.a_send); });
}

// Page-aligned application memory, freed when the endpoint function ends.
struct AppBuffer {
  explicit AppBuffer(size_t bytes) : size(bytes) {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, bytes == 0 ? 1 : bytes) == 0) data.reset(static_cast<uint8_t*>(p));
  }
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data;
  size_t size;
  [[nodiscard]] size_t addr() const { return reinterpret_cast<size_t>(data.get()); }
};

// Where the contract allows application addresses: InterThreadMemcpy both lists, any Memcpy the
// send list, InterThreadPointer the receive list.
TEST_P(TwoSided, ApplicationSuppliedBuffers) {
  const bool app_send = !pointer();
  const bool app_recv = !inter_process();
  if (!app_send && !app_recv) GTEST_SKIP() << provider() << " accepts no application buffer addresses";
  const uint32_t id = new_id();
  constexpr int kBufs = 2;
  constexpr uint64_t kBytes = 8192;
  std::atomic<size_t> b_recv_addr{0};  // InterThreadPointer: A's send buffer must be B's app memory.
  const auto endpoint = [&](Endpoint& ep) {
    std::vector<AppBuffer> send_mem;
    std::vector<AppBuffer> recv_mem;
    Attrs attrs = attrs_for(id, ep, kBufs, kBufs, kBytes);
    for (int i = 0; i < kBufs; ++i) {
      send_mem.emplace_back(kBytes);
      recv_mem.emplace_back(kBytes);
      if (app_send) attrs.send_addrs[static_cast<size_t>(i)] = send_mem.back().addr();
      if (app_recv) attrs.recv_addrs[static_cast<size_t>(i)] = recv_mem.back().addr();
    }
    if (!ep.is_a() && app_recv) b_recv_addr.store(recv_mem[1].addr());
    PathHandle path = create_path(ep, attrs);
    for (size_t i = 0; i < kBufs; ++i) {
      if (app_send) {
        TK_EXPECT(ep, path->attrs.sender_addr_list[i] == send_mem[i].addr()) << "send buffer " << i;
      }
      if (app_recv) {
        TK_EXPECT(ep, path->attrs.recver_addr_list[i] == recv_mem[i].addr()) << "recv buffer " << i;
      }
    }
    if (ep.is_a() && pointer() && app_recv) {
      TK_EXPECT(ep, path->attrs.sender_addr_list[1] == b_recv_addr.load())
          << "a Pointer sender's buffer must be the receiver's application buffer";
    }
    for (int round = 0; round < 3; ++round) {
      const uint64_t tag = (ep.is_a() ? 0 : 1000) + static_cast<uint64_t>(round) * 10;
      const uint64_t peer_tag = (ep.is_a() ? 1000 : 0) + static_cast<uint64_t>(round) * 10;
      for (int i = 0; i < kBufs; ++i) {
        uint8_t* src = app_send ? send_mem[static_cast<size_t>(i)].data.get() : send_buffer(path.get(), i);
        fill_pattern(src + 16, 4000, tag + static_cast<uint64_t>(i), i);
        send_message(ep, path.get(), i, 4000, 16, 16);
      }
      for (int i = 0; i < kBufs; ++i) {
        const Message got = recv_message(ep, path.get(), i);
        TK_EXPECT(ep, got.bytes == 4000 && got.offset == 16) << got.bytes << " bytes at " << got.offset;
        const uint8_t* dst =
            app_recv ? recv_mem[static_cast<size_t>(i)].data.get() : recv_buffer(path.get(), i);
        const std::string bad = check_pattern(dst + 16, 4000, peer_tag + static_cast<uint64_t>(i), i);
        TK_EXPECT(ep, bad.empty()) << "round " << round << " buffer " << i << ": " << bad;
      }
      // Both sides are done reading before either refills.
      ep.notify_peer();
      TK_ASSERT(ep, ep.wait_peer());
    }
    destroy_path(ep, path);
  };
  run(endpoint, endpoint);
}

// path->attrs holds the final addresses and its own copies of the size lists: changing the
// application's lists after create changes nothing, and every buffer is usable in full.
TEST_P(TwoSided, AttrsHoldFinalAddressesAndCopiedLists) {
  const uint32_t id = new_id();
  const std::vector<uint64_t> sizes = {128, 0, 4096 + 17};
  const auto endpoint = [&](Endpoint& ep) {
    Attrs attrs = attrs_for(id, ep, 3, 3, 0);
    attrs.send_bytes = sizes;
    attrs.recv_bytes = sizes;
    PathHandle path = create_path(ep, attrs);
    const TakyonPathAttributes& a = path->attrs;
    TK_ASSERT(ep, a.sender_max_bytes_list != nullptr && a.recver_max_bytes_list != nullptr);
    TK_ASSERT(ep, a.sender_addr_list != nullptr && a.recver_addr_list != nullptr);
    TK_EXPECT(ep, a.sender_max_bytes_list != attrs.send_bytes.data())
        << "sender_max_bytes_list is not a copy";
    TK_EXPECT(ep, a.recver_max_bytes_list != attrs.recv_bytes.data())
        << "recver_max_bytes_list is not a copy";
    TK_EXPECT(ep, a.sender_addr_list != attrs.send_addrs.data()) << "sender_addr_list is not a copy";
    TK_EXPECT(ep, a.recver_addr_list != attrs.recv_addrs.data()) << "recver_addr_list is not a copy";
    // Scribble over the application's lists: the path must not care.
    std::fill(attrs.send_bytes.begin(), attrs.send_bytes.end(), 0xDEAD);
    std::fill(attrs.recv_bytes.begin(), attrs.recv_bytes.end(), 0xBEEF);
    std::fill(attrs.send_addrs.begin(), attrs.send_addrs.end(), 8);
    std::fill(attrs.recv_addrs.begin(), attrs.recv_addrs.end(), 8);
    const long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < sizes.size(); ++i) {
      TK_EXPECT(ep, a.sender_max_bytes_list[i] == sizes[i] && a.recver_max_bytes_list[i] == sizes[i])
          << "buffer " << i << ": " << a.sender_max_bytes_list[i] << "/" << a.recver_max_bytes_list[i];
      if (sizes[i] == 0) continue;
      TK_EXPECT(ep, a.sender_addr_list[i] != 0 && a.recver_addr_list[i] != 0) << "buffer " << i;
      TK_EXPECT(ep, a.sender_addr_list[i] % static_cast<size_t>(page) == 0)
          << "send buffer " << i << " not page aligned";
      TK_EXPECT(ep, a.recver_addr_list[i] % static_cast<size_t>(page) == 0)
          << "recv buffer " << i << " not page aligned";
      // Each side writes only memory it alone owns (a Pointer send buffer belongs to the peer).
      std::memset(recv_buffer(path.get(), static_cast<int>(i)), 0x5A, sizes[i]);
      if (!pointer()) std::memset(send_buffer(path.get(), static_cast<int>(i)), 0x3C, sizes[i]);
    }
    ep.notify_peer();
    TK_ASSERT(ep, ep.wait_peer());
    const uint64_t tag = ep.is_a() ? 0 : 10;
    fill_message(path.get(), 2, sizes[2], 0, tag);
    send_message(ep, path.get(), 2, sizes[2]);
    const Message got = recv_message(ep, path.get(), 2);
    TK_EXPECT(ep, got.bytes == sizes[2]);
    expect_message(ep, path.get(), 2, got, 10 - tag);
    destroy_path(ep, path);
  };
  run(endpoint, endpoint);
}

// TAKYON_USE_IS_SEND_FINISHED on both sides: two sends in flight, completed by
// takyonIsSendFinished and its alias takyonSendTest.
TEST_P(TwoSided, NonBlockingSendCompletesWithIsSendFinished) {
  const uint32_t id = new_id();
  constexpr int kRounds = 20;
  const auto finish = [](Endpoint& ep, TakyonPath* path, int buf, bool use_alias) {
    for (int tries = 0;; ++tries) {
      bool timed_out = true;
      const bool ok =
          use_alias ? takyonSendTest(path, buf, &timed_out) : takyonIsSendFinished(path, buf, &timed_out);
      TK_ASSERT(ep, ok) << (use_alias ? "takyonSendTest" : "takyonIsSendFinished") << "(" << buf
                        << "): " << path_error(path);
      if (!timed_out) return;
      TK_ASSERT(ep, tries < 1000000) << "send on buffer " << buf << " never finished";
    }
  };
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 2, 1, 4096);
        attrs.attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED;
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          fill_message(path.get(), 0, 3000, 0, 2 * r);
          send_message(ep, path.get(), 0, 3000);
          fill_message(path.get(), 1, 1234, 0, 2 * r + 1);
          send_message(ep, path.get(), 1, 1234);
          finish(ep, path.get(), 0, r % 2 == 0);
          finish(ep, path.get(), 1, r % 2 == 1);
          const Message got = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, got.bytes == 100) << got.bytes;
          expect_message(ep, path.get(), 0, got, 1000 + r);
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 2, 1, 4096);
        attrs.attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED;
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          const Message m0 = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, m0.bytes == 3000) << m0.bytes;
          expect_message(ep, path.get(), 0, m0, 2 * r);
          const Message m1 = recv_message(ep, path.get(), 1);
          TK_EXPECT(ep, m1.bytes == 1234) << m1.bytes;
          expect_message(ep, path.get(), 1, m1, 2 * r + 1);
          fill_message(path.get(), 0, 100, 0, 1000 + r);
          send_message(ep, path.get(), 0, 100);
          finish(ep, path.get(), 0, r % 2 == 1);
        }
        destroy_path(ep, path);
      });
}

}  // namespace
}  // namespace takyon::test
