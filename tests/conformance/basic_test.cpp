// SPDX-License-Identifier: MIT
// TwoSided: create/destroy, round trips, many messages, multi-buffering, zero bytes, offsets, order.
#include <array>
#include <string>
#include <vector>

#include "conformance/two_sided.hpp"

namespace takyon::test {
namespace {

TEST_P(TwoSided, CreateAndDestroyBothSides) {
  const uint32_t id = new_id();
  const EndpointFn endpoint = [&](Endpoint& ep) {
    Attrs attrs = attrs_for(id, ep, 2, 3, 1024);
    PathHandle path = create_path(ep, attrs);
    TK_EXPECT(ep, attrs.attrs.error_message == nullptr)
        << "error_message must be NULL after a successful create";
    const TakyonPathAttributes& a = path->attrs;
    TK_EXPECT(ep, a.is_endpointA == ep.is_a());
    TK_EXPECT(ep, a.is_polling == polling());
    TK_EXPECT(ep, std::string(a.interconnect) == interconnect_for(provider(), id, ep.is_a()))
        << "got '" << a.interconnect << "'";
    TK_EXPECT(ep, a.nbufs_AtoB == 2 && a.nbufs_BtoA == 3) << a.nbufs_AtoB << "/" << a.nbufs_BtoA;
    TK_EXPECT(ep, path->private_path != nullptr);
    destroy_path(ep, path);
    TK_EXPECT(ep, !path);
  };
  run(endpoint, endpoint);
}

TEST_P(TwoSided, RoundTripDeliversTheBytes) {
  const uint32_t id = new_id();
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 4096);
        PathHandle path = create_path(ep, attrs);
        fill_message(path.get(), 0, 1000, 0, 1);
        send_message(ep, path.get(), 0, 1000);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == 777 && got.offset == 0) << got.bytes << " bytes at " << got.offset;
        expect_message(ep, path.get(), 0, got, 2);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 4096);
        PathHandle path = create_path(ep, attrs);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == 1000 && got.offset == 0) << got.bytes << " bytes at " << got.offset;
        expect_message(ep, path.get(), 0, got, 1);
        fill_message(path.get(), 0, 777, 0, 2);
        send_message(ep, path.get(), 0, 777);
        destroy_path(ep, path);
      });
}

// Ping-pong: each reply is also the synchronization that lets the sender refill its buffer.
TEST_P(TwoSided, ManyMessagesOfVaryingSize) {
  const uint32_t id = new_id();
  constexpr int kMessages = 300;
  constexpr uint64_t kBytes = 4096;
  const auto size_of = [](int i, bool a_to_b) {
    return static_cast<uint64_t>((i * (a_to_b ? 37 : 53) + (a_to_b ? 0 : 11)) % (kBytes + 1));
  };
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (int i = 0; i < kMessages; ++i) {
          fill_message(path.get(), 0, size_of(i, true), 0, 2 * i);
          send_message(ep, path.get(), 0, size_of(i, true));
          const Message got = recv_message(ep, path.get(), 0);
          TK_ASSERT(ep, got.bytes == size_of(i, false) && got.offset == 0)
              << "reply " << i << ": " << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), 0, got, 2 * i + 1);
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (int i = 0; i < kMessages; ++i) {
          const Message got = recv_message(ep, path.get(), 0);
          TK_ASSERT(ep, got.bytes == size_of(i, true) && got.offset == 0)
              << "message " << i << ": " << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), 0, got, 2 * i);
          fill_message(path.get(), 0, size_of(i, false), 0, 2 * i + 1);
          send_message(ep, path.get(), 0, size_of(i, false));
        }
        destroy_path(ep, path);
      });
}

// The guide's multi-buffering example: one zero-byte sync per round of nbufs messages. With a
// Memcpy provider the sender prepares before waiting for the sync (its send buffers are its own);
// with a Pointer provider the send buffer is the receiver's, so it waits first.
TEST_P(TwoSided, MultiBufferingWithOneSyncPerRound) {
  const uint32_t id = new_id();
  constexpr int kBufs = 3;
  constexpr int kRounds = 40;
  constexpr uint64_t kBytes = 2048;
  const auto size_of = [](int i) { return static_cast<uint64_t>(1 + (i * 131) % kBytes); };
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, kBufs, kBytes);
        attrs.recv_bytes.assign(kBufs, 0);  // B->A carries only zero-byte syncs.
        PathHandle path = create_path(ep, attrs);
        for (int i = 0; i < kBufs * kRounds; ++i) {
          const int buf = i % kBufs;
          if (!pointer()) fill_message(path.get(), buf, size_of(i), 0, i);
          if (buf == 0) {
            const Message sync = recv_message(ep, path.get(), 0);
            TK_EXPECT(ep, sync.bytes == 0) << "sync message had " << sync.bytes << " bytes";
          }
          if (pointer()) fill_message(path.get(), buf, size_of(i), 0, i);
          send_message(ep, path.get(), buf, size_of(i));
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, kBufs, kBytes);
        attrs.send_bytes.assign(kBufs, 0);
        PathHandle path = create_path(ep, attrs);
        for (int i = 0; i < kBufs * kRounds; ++i) {
          const int buf = i % kBufs;
          if (buf == 0) send_message(ep, path.get(), 0, 0);
          const Message got = recv_message(ep, path.get(), buf);
          TK_ASSERT(ep, got.bytes == size_of(i) && got.offset == 0)
              << "message " << i << " in buffer " << buf << ": " << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), buf, got, i);
        }
        destroy_path(ep, path);
      });
}

// Zero-size buffers carry zero-byte messages; a zero-byte message may sit at the end of a buffer.
TEST_P(TwoSided, ZeroByteMessagesAndZeroSizeBuffers) {
  const uint32_t id = new_id();
  constexpr int kRounds = 10;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 2, 1, 0);
        attrs.send_bytes = {0, 64};
        attrs.recv_bytes = {0};
        PathHandle path = create_path(ep, attrs);
        TK_EXPECT(ep, path->attrs.sender_max_bytes_list[0] == 0 && path->attrs.recver_max_bytes_list[0] == 0);
        for (int r = 0; r < kRounds; ++r) {
          send_message(ep, path.get(), 0, 0);
          send_message(ep, path.get(), 1, 0, pointer() ? 64 : 10, 64);
          const Message got = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, got.bytes == 0 && got.offset == 0) << got.bytes << " bytes at " << got.offset;
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 2, 1, 0);
        attrs.recv_bytes = {0, 64};
        attrs.send_bytes = {0};
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          const Message m0 = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, m0.bytes == 0 && m0.offset == 0) << m0.bytes << " bytes at " << m0.offset;
          const Message m1 = recv_message(ep, path.get(), 1);
          TK_EXPECT(ep, m1.bytes == 0 && m1.offset == 64) << m1.bytes << " bytes at " << m1.offset;
          send_message(ep, path.get(), 0, 0);
        }
        destroy_path(ep, path);
      });
}

// Messages land at dest_offset and nothing outside [dest_offset, dest_offset + bytes) changes.
TEST_P(TwoSided, SourceAndDestinationOffsets) {
  const uint32_t id = new_id();
  constexpr uint64_t kBytes = 4096;
  struct Case {
    uint64_t bytes, src, dest;
  };
  const std::vector<Case> cases = pointer()
                                      ? std::vector<Case>{{100, 300, 300},
                                                          {96, 4000, 4000},
                                                          {4096, 0, 0},
                                                          {1, 4095, 4095},
                                                          {0, 4096, 4096}}
                                      : std::vector<Case>{{100, 10, 200}, {96, 0, 4000}, {1096, 3000, 0},
                                                          {4096, 0, 0},   {1, 4095, 17}, {0, 4096, 4096}};
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          TK_ASSERT(ep, ep.wait_peer()) << "receiver never got ready for case " << i;
          if (pointer()) fill_guard(send_buffer(path.get(), 0), kBytes);
          fill_message(path.get(), 0, c.bytes, c.src, i);
          send_message(ep, path.get(), 0, c.bytes, c.src, c.dest);
        }
        TK_ASSERT(ep, ep.wait_peer());
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        uint8_t* data = recv_buffer(path.get(), 0);
        for (size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          if (!pointer()) fill_guard(data, kBytes);
          ep.notify_peer();
          const Message got = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, got.bytes == c.bytes && got.offset == c.dest)
              << "case " << i << ": got " << got.bytes << " bytes at " << got.offset << ", sent " << c.bytes
              << " bytes at " << c.dest;
          expect_message(ep, path.get(), 0, Message{c.bytes, c.dest}, i);
          const std::string before = check_guard(data, c.dest);
          TK_EXPECT(ep, before.empty()) << "case " << i << ", before the message: " << before;
          const std::string after = check_guard(data + c.dest + c.bytes, kBytes - c.dest - c.bytes);
          TK_EXPECT(ep, after.empty()) << "case " << i << ", after the message: " << after;
        }
        ep.notify_peer();
        destroy_path(ep, path);
      });
}

// Rounds over 4 buffers: the sender fills them in one order, the receiver drains them in another;
// every buffer holds exactly the message sent in it.
TEST_P(TwoSided, BuffersAreIndependentWhenInterleaved) {
  const uint32_t id = new_id();
  constexpr int kBufs = 4;
  constexpr int kRounds = 20;
  constexpr std::array<int, kBufs> kSendOrder = {0, 2, 1, 3};
  constexpr std::array<int, kBufs> kRecvOrder = {3, 1, 0, 2};
  const auto size_of = [](int r, int buf) { return static_cast<uint64_t>(1 + (r * 97 + buf * 251) % 1024); };
  const auto message_of = [](int r, int buf) { return static_cast<uint64_t>(r * kBufs + buf); };
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, 1024);
        attrs.recv_bytes = {0};
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          for (int k = 0; k < kBufs; ++k) {
            const int buf = kSendOrder[static_cast<size_t>((k + r) % kBufs)];
            fill_message(path.get(), buf, size_of(r, buf), 0, message_of(r, buf));
            send_message(ep, path.get(), buf, size_of(r, buf));
          }
          (void)recv_message(ep, path.get(), 0);  // The receiver is done with this round.
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, 1024);
        attrs.send_bytes = {0};
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          for (int k = 0; k < kBufs; ++k) {
            const int buf = kRecvOrder[static_cast<size_t>((k + r) % kBufs)];
            const Message got = recv_message(ep, path.get(), buf);
            TK_EXPECT(ep, got.bytes == size_of(r, buf) && got.offset == 0)
                << "round " << r << " buffer " << buf << ": " << got.bytes << " bytes at " << got.offset;
            expect_message(ep, path.get(), buf, got, message_of(r, buf));
          }
          send_message(ep, path.get(), 0, 0);
        }
        destroy_path(ep, path);
      });
}

// No application sync: the sender streams messages over 3 buffers in an irregular order (it blocks
// while a buffer still holds an unreceived message); the receiver polls the buffers with a zero
// recv_start_timeout in its own order. Each buffer must deliver its messages in sending order;
// bytes and offset identify each message (the data may already be overwritten by the next one).
TEST_P(TwoSided, PerBufferOrderWithoutApplicationSync) {
  const uint32_t id = new_id();
  constexpr int kBufs = 3;
  constexpr int kMessages = 600;
  const auto buffer_of = [](int i) { return (i * 7 + i / 5) % kBufs; };
  const auto bytes_of = [](int i) { return static_cast<uint64_t>(i % 200); };
  const auto offset_of = [](int i) { return static_cast<uint64_t>((i * 13) % 256); };
  std::array<std::vector<int>, kBufs> expected;
  for (int i = 0; i < kMessages; ++i) expected[static_cast<size_t>(buffer_of(i))].push_back(i);
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, 512);
        attrs.recv_bytes = {0};
        PathHandle path = create_path(ep, attrs);
        for (int i = 0; i < kMessages; ++i) {
          send_message(ep, path.get(), buffer_of(i), bytes_of(i), offset_of(i), offset_of(i));
        }
        (void)recv_message(ep, path.get(), 0);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBufs, 1, 512);
        attrs.send_bytes = {0};
        attrs.attrs.recv_start_timeout = 0;
        PathHandle path = create_path(ep, attrs);
        std::array<size_t, kBufs> next{};
        int received = 0;
        const Stopwatch watch;
        while (received < kMessages) {
          TK_ASSERT(ep, watch.seconds() < kDefaultTimeout) << "only " << received << " messages arrived";
          for (int buf = kBufs - 1; buf >= 0; --buf) {
            Message got;
            bool timed_out = false;
            TK_ASSERT(ep, takyonRecv(path.get(), buf, &got.bytes, &got.offset, &timed_out))
                << path_error(path.get());
            if (timed_out) continue;
            const auto b = static_cast<size_t>(buf);
            TK_ASSERT(ep, next[b] < expected[b].size()) << "extra message in buffer " << buf;
            const int i = expected[b][next[b]++];
            TK_ASSERT(ep, got.bytes == bytes_of(i) && got.offset == offset_of(i))
                << "buffer " << buf << ": expected message " << i << " (" << bytes_of(i) << " bytes at "
                << offset_of(i) << "), got " << got.bytes << " bytes at " << got.offset;
            ++received;
          }
        }
        send_message(ep, path.get(), 0, 0);
        destroy_path(ep, path);
      });
}

TEST_P(TwoSided, LargeMessagesArriveIntact) {
  const uint32_t id = new_id();
  constexpr uint64_t kBytes = 4ull << 20;
  constexpr int kRounds = 3;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          fill_message(path.get(), 0, kBytes, 0, 2 * r);
          send_message(ep, path.get(), 0, kBytes);
          const Message got = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, got.bytes == kBytes && got.offset == 0) << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), 0, got, 2 * r + 1);
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        for (int r = 0; r < kRounds; ++r) {
          const Message got = recv_message(ep, path.get(), 0);
          TK_EXPECT(ep, got.bytes == kBytes && got.offset == 0) << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), 0, got, 2 * r);
          fill_message(path.get(), 0, kBytes, 0, 2 * r + 1);
          send_message(ep, path.get(), 0, kBytes);
        }
        destroy_path(ep, path);
      });
}

}  // namespace
}  // namespace takyon::test
