// SPDX-License-Identifier: MIT
// One-sided operations (takyon.h: takyonWrite, takyonRead, takyonAtomicFetchAdd,
// takyonAtomicCompareSwap, their started forms and the finish test) on every provider: where the provider's
// row says one_sided, the bytes and words they move are checked, atomics from both sides on one word add up,
// and bad offsets, alignments and indices fail naming the problem; elsewhere every call is refused naming the
// provider. The targets are the peer's receive buffers. Where a provider carries the operations to
// the target (a socket, UCX without remote memory access), the target is inside a call meanwhile.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "conformance/two_sided.hpp"
#include "takyon/takyon_providers.h"

namespace takyon::test {
namespace {

constexpr uint64_t kBytes = 4096;
constexpr uint64_t kWord = 3584;  // an 8-byte aligned word of the receive buffer, after the data

std::byte pattern(uint64_t i, unsigned seed) {
  return static_cast<std::byte>((i * 131U + seed * 7U + (i >> 8) * 17U) & 0xFFU);
}

void fill(std::byte* at, uint64_t bytes, unsigned seed) {
  for (uint64_t i = 0; i < bytes; ++i) at[i] = pattern(i, seed);
}

/// Index of the first byte that differs from the pattern, or -1.
int64_t first_wrong(const std::byte* at, uint64_t bytes, unsigned seed) {
  for (uint64_t i = 0; i < bytes; ++i) {
    if (at[i] != pattern(i, seed)) return static_cast<int64_t>(i);
  }
  return -1;
}

std::byte* send_buffer(TakyonPath* path) {
  return reinterpret_cast<std::byte*>(path->attrs.sender_addr_list[0]);
}
std::byte* recv_buffer(TakyonPath* path) {
  return reinterpret_cast<std::byte*>(path->attrs.recver_addr_list[0]);
}

bool one_sided(const char* provider_label) {
  const TakyonProviderInfo* info = takyonFindProvider(provider_name(provider_label).c_str());
  return info != nullptr && info->one_sided;
}

std::string error_of(TakyonPath* path) {
  return path->attrs.error_message != nullptr ? path->attrs.error_message : "";
}

/// The TwoSided fixture, instantiated for the providers whose row says one_sided only.
class OneSided : public TwoSided {};

std::vector<ProviderParam> one_sided_params() {
  std::vector<ProviderParam> out;
  for (const ProviderParam& p : all_provider_params()) {
    if (one_sided(p.provider)) out.push_back(p);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Providers, OneSided, ::testing::ValuesIn(one_sided_params()), provider_param_name);

TEST_P(OneSided, WriteReadAndAtomicsMoveTheBytes) {
  const uint32_t id = new_id();
  constexpr int kAdds = 2000;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        // A writes 1000 bytes into B's receive buffer at offset 100, then tells B with a message.
        fill(send_buffer(p), 1000, 1);
        TK_ASSERT(ep, takyonWrite(p, 0, 1000, 0, 100)) << error_of(p);
        send_message(ep, p, 0, 8, 3000, 3000);
        // B wrote 500 bytes at offset 1500 of its own receive buffer: A reads them back.
        (void)recv_message(ep, p, 0);
        TK_ASSERT(ep, takyonRead(p, 0, 500, 2000, 1500)) << error_of(p);
        TK_EXPECT(ep, first_wrong(send_buffer(p) + 2000, 500, 2) < 0)
            << "byte " << first_wrong(send_buffer(p) + 2000, 500, 2) << " of the read differs";
        // Fetch-add from A while B adds to the same word locally: every fetched value is distinct
        // and increasing, the total exact.
        uint64_t last = 0;
        bool increasing = true;
        for (int i = 0; i < kAdds; ++i) {
          uint64_t old = 0;
          TK_ASSERT(ep, takyonAtomicFetchAdd(p, 0, kWord, 1, &old)) << error_of(p);
          if (i > 0 && old <= last) increasing = false;
          last = old;
        }
        TK_EXPECT(ep, increasing) << "a fetched value did not increase";
        // Compare-and-swap: the first succeeds, the second finds the new value.
        uint64_t old = 1;
        TK_ASSERT(ep, takyonAtomicCompareSwap(p, 0, kWord + 8, 0, 77, &old)) << error_of(p);
        TK_EXPECT(ep, old == 0) << "compare-and-swap found " << old << ", expected 0";
        TK_ASSERT(ep, takyonAtomicCompareSwap(p, 0, kWord + 8, 0, 88, &old)) << error_of(p);
        TK_EXPECT(ep, old == 77) << "the failing compare-and-swap found " << old << ", expected 77";
        send_message(ep, p, 0, 8, 3000, 3000);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        const Message note = recv_message(ep, p, 0);
        TK_EXPECT(ep, note.bytes == 8 && note.offset == 3000) << note.bytes << " bytes at " << note.offset;
        TK_EXPECT(ep, first_wrong(recv_buffer(p) + 100, 1000, 1) < 0)
            << "byte " << first_wrong(recv_buffer(p) + 100, 1000, 1) << " of the write differs";
        fill(recv_buffer(p) + 1500, 500, 2);
        send_message(ep, p, 0, 8, 3000, 3000);
        auto word = std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(recv_buffer(p) + kWord));
        for (int i = 0; i < kAdds; ++i) word.fetch_add(1, std::memory_order_seq_cst);
        (void)recv_message(ep, p, 0);
        TK_EXPECT(ep, word.load() == 2 * static_cast<uint64_t>(kAdds))
            << "the word holds " << word.load() << ", expected " << 2 * kAdds;
        uint64_t swapped = 0;
        std::memcpy(&swapped, recv_buffer(p) + kWord + 8, 8);
        TK_EXPECT(ep, swapped == 77) << "the swapped word holds " << swapped;
        destroy_path(ep, path);
      });
}

TEST_P(TwoSided, OneSidedBadArgumentsAreErrors) {
  const bool has = one_sided(provider());
  struct Case {
    const char* what;
    std::function<bool(TakyonPath*)> call;
    std::string expected;
  };
  const std::string no_ops = "has no one-sided operations";
  const std::vector<Case> cases = {
      {"write past the peer's buffer", [](TakyonPath* p) { return takyonWrite(p, 0, 100, 0, kBytes - 50); },
       has ? "exceed the peer's receive buffer" : no_ops},
      {"read past the local buffer", [](TakyonPath* p) { return takyonRead(p, 0, 100, kBytes - 50, 0); },
       has ? "exceed send buffer" : no_ops},
      {"misaligned atomic", [](TakyonPath* p) { return takyonAtomicFetchAdd(p, 0, 4, 1, nullptr); },
       has ? "not 8-byte aligned" : no_ops},
      {"atomic past the buffer",
       [](TakyonPath* p) { return takyonAtomicCompareSwap(p, 0, kBytes, 0, 1, nullptr); },
       has ? "exceed the peer's receive buffer" : no_ops},
      {"buffer index out of range", [](TakyonPath* p) { return takyonWrite(p, 3, 8, 0, 0); },
       has ? "buffer_index 3 is out of range" : no_ops},
      {"started write past the peer's buffer",
       [](TakyonPath* p) { return takyonWriteStart(p, 0, 100, 0, kBytes - 50); },
       has ? "exceed the peer's receive buffer" : no_ops},
      {"started read past the local buffer",
       [](TakyonPath* p) { return takyonReadStart(p, 0, 100, kBytes - 50, 0); },
       has ? "exceed send buffer" : no_ops},
      {"started misaligned atomic",
       [](TakyonPath* p) { return takyonAtomicCompareSwapStart(p, 0, 12, 0, 1, nullptr); },
       has ? "not 8-byte aligned" : no_ops},
      {"finish test without timed_out_ret (send_finish_timeout is finite)",
       [](TakyonPath* p) { return takyonIsOneSidedFinished(p, nullptr); },
       has ? "timed_out_ret is NULL" : no_ops},
  };
  for (const Case& c : cases) {
    const uint32_t id = new_id();
    run(
        [&](Endpoint& ep) {
          Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
          PathHandle path = create_path(ep, attrs);
          const bool ok = c.call(path.get());
          TK_EXPECT(ep, !ok) << c.what << " succeeded";
          TK_EXPECT(ep, error_of(path.get()).find(c.expected) != std::string::npos)
              << c.what << ": the error does not say '" << c.expected << "': " << error_of(path.get());
          ep.notify_peer();
          destroy_path(ep, path);  // forced: the path failed
        },
        [&](Endpoint& ep) {
          Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
          PathHandle path = create_path(ep, attrs);
          TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint A";
          // A destroys its failed path forced: graceful or not (a socket provider reports the
          // abrupt end), this destroy must only return.
          (void)path.destroy();
        });
  }
}

TEST_P(TwoSided, PiggybackWritesCarryTheirValue) {
  const TakyonProviderInfo* info = takyonFindProvider(provider_name(provider()).c_str());
  ASSERT_NE(info, nullptr);
  const uint32_t id = new_id();
  if (!info->piggyback) {
    run(
        [&](Endpoint& ep) {
          Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
          PathHandle path = create_path(ep, attrs);
          bool timed_out = false;
          TK_EXPECT(ep, !takyonWritePiggyback(path.get(), 0, 8, 0, 0, 7, &timed_out)) << "succeeded";
          TK_EXPECT(ep, error_of(path.get()).find("has no piggyback writes") != std::string::npos)
              << error_of(path.get());
          ep.notify_peer();
          destroy_path(ep, path);
        },
        [&](Endpoint& ep) {
          Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
          PathHandle path = create_path(ep, attrs);
          TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint A";
          (void)path.destroy();
        });
    return;
  }
  // Sizes inside and beyond a notification line, zero bytes, and values that use all 32 bits.
  struct Note {
    uint64_t bytes;
    uint64_t offset;
    uint32_t value;
  };
  const std::vector<Note> notes = {{8, 0, 0xDEADBEEFu}, {0, 64, 0u},       {40, 128, 0xFFFFFFFFu},
                                   {41, 256, 1u},       {3000, 1000, 42u}, {8, 0, 0x80000000u}};
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        for (size_t i = 0; i < notes.size(); ++i) {
          const Note& n = notes[i];
          fill(send_buffer(p) + n.offset, n.bytes, static_cast<unsigned>(i));
          bool timed_out = false;
          TK_ASSERT(
              ep, takyonWritePiggyback(p, 0, n.bytes, n.offset, n.offset, n.value, &timed_out) && !timed_out)
              << error_of(p);
          if (attrs.attrs.send_completion_method == TAKYON_USE_IS_SEND_FINISHED) {
            TK_ASSERT(ep, takyonIsSendFinished(p, 0, &timed_out) && !timed_out) << error_of(p);
          }
          (void)recv_message(ep, p, 0);  // B has it: the next may go
        }
        send_message(ep, p, 0, 8, 0, 0);  // a plain send carries 0
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        for (size_t i = 0; i < notes.size(); ++i) {
          const Note& n = notes[i];
          uint64_t bytes = 1;
          uint64_t offset = 1;
          uint32_t value = 12345;
          bool timed_out = false;
          TK_ASSERT(ep, takyonRecvPiggyback(p, 0, &bytes, &offset, &value, &timed_out) && !timed_out)
              << error_of(p);
          TK_EXPECT(ep, bytes == n.bytes && offset == n.offset && value == n.value)
              << "note " << i << ": " << bytes << " bytes at " << offset << " with " << value << ", expected "
              << n.bytes << " at " << n.offset << " with " << n.value;
          TK_EXPECT(ep, first_wrong(recv_buffer(p) + n.offset, n.bytes, static_cast<unsigned>(i)) < 0)
              << "note " << i << ": byte "
              << first_wrong(recv_buffer(p) + n.offset, n.bytes, static_cast<unsigned>(i)) << " differs";
          send_message(ep, p, 0, 8, 0, 0);
        }
        uint32_t value = 99;
        bool timed_out = false;
        TK_ASSERT(ep, takyonRecvPiggyback(p, 0, nullptr, nullptr, &value, &timed_out) && !timed_out)
            << error_of(p);
        TK_EXPECT(ep, value == 0) << "a plain send carried " << value;
        destroy_path(ep, path);
      });
}

// The capability query agrees with the provider's row and the path's buffers, and where it says a
// one-sided operation needs no call from the peer, one completes while the peer is outside the library.
TEST_P(TwoSided, CapabilitiesDescribeThePath) {
  TakyonPathCapabilities none{};
  EXPECT_FALSE(takyonPathCapabilities(nullptr, &none));
  const uint32_t id = new_id();
  const auto check = [&](Endpoint& ep, TakyonPath* p, TakyonPathCapabilities& caps) {
    TK_ASSERT(ep, takyonPathCapabilities(p, &caps));
    TK_EXPECT(ep, !takyonPathCapabilities(p, nullptr));
    const TakyonProviderInfo* info = takyonPathProvider(p);  // this endpoint's (one-way pairs differ)
    TK_ASSERT(ep, info != nullptr);
    const bool sends = info->sends && (ep.is_a() ? p->attrs.nbufs_AtoB : p->attrs.nbufs_BtoA) > 0;
    TK_EXPECT(ep, caps.sends == sends) << "sends " << caps.sends;
    TK_EXPECT(ep, caps.write == (info->one_sided && caps.sends) && caps.read == caps.write &&
                      caps.atomics == caps.write)
        << "write " << caps.write << " read " << caps.read << " atomics " << caps.atomics;
    TK_EXPECT(ep, caps.piggyback == (info->piggyback && caps.sends)) << "piggyback " << caps.piggyback;
    TK_EXPECT(ep, caps.unreliable == !info->reliable && caps.zero_byte == info->zero_byte);
    if (caps.sends) {
      const uint64_t limit =
          info->max_message_bytes == 0 ? kBytes : std::min(kBytes, info->max_message_bytes);
      TK_EXPECT(ep, caps.max_message_bytes == limit) << caps.max_message_bytes;
      TK_EXPECT(ep, caps.max_one_sided_bytes == (caps.write ? kBytes : 0)) << caps.max_one_sided_bytes;
    }
    TK_EXPECT(ep, !caps.one_sided_needs_peer_call || caps.write);
  };
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPathCapabilities caps{};
        check(ep, path.get(), caps);
        if (caps.write && !caps.one_sided_needs_peer_call) {
          // B sits outside the library until told: the operations must complete anyway.
          fill(send_buffer(path.get()), 64, 5);
          TK_EXPECT(ep, takyonWrite(path.get(), 0, 64, 0, 512)) << error_of(path.get());
          uint64_t old = 1;
          TK_EXPECT(ep, takyonAtomicFetchAdd(path.get(), 0, kWord, 3, &old) && old == 0)
              << error_of(path.get());
        }
        ep.notify_peer();
        TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint B";
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPathCapabilities caps{};
        check(ep, path.get(), caps);
        TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint A";
        if (caps.write && !caps.one_sided_needs_peer_call) {
          TK_EXPECT(ep, first_wrong(recv_buffer(path.get()) + 512, 64, 5) < 0) << "the write did not land";
          uint64_t word = 0;
          std::memcpy(&word, recv_buffer(path.get()) + kWord, 8);
          TK_EXPECT(ep, word == 3) << "the word holds " << word;
        }
        ep.notify_peer();
        destroy_path(ep, path);
      });
}

// Reads while the peer streams into every buffer: over a socket the read's request and reply share
// the stream with messages that fill the kernel's buffers, and neither may cut into the other.
TEST_P(OneSided, ReadsWhileThePeerStreamsIntoEveryBuffer) {
  const uint32_t id = new_id();
  constexpr int kBuffers = 8;
  constexpr uint64_t kBig = 128 * 1024;
  constexpr uint64_t kMessage = 48 * 1024;
  constexpr int kRounds = 200;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBuffers, 1, kBig);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        fill(recv_buffer(p), kBig, 9);  // what B reads, again and again
        for (int k = 0; k < kBuffers; ++k)
          fill(reinterpret_cast<std::byte*>(p->attrs.sender_addr_list[k]), kMessage,
               static_cast<unsigned>(k));
        ep.notify_peer();
        for (int round = 0; round < kRounds; ++round) {
          for (int k = 0; k < kBuffers; ++k) send_message(ep, p, k, kMessage, 0, 0);
        }
        (void)recv_message(ep, p, 0);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, kBuffers, 1, kBig);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        TK_ASSERT(ep, ep.wait_peer()) << "A never filled its buffer";
        // Where the provider shares buffers, this send buffer is A's receive buffer: nothing to clear.
        const bool shared = takyonPathProvider(p)->shares_buffers;
        for (int round = 0; round < kRounds; ++round) {
          if (!shared) std::memset(send_buffer(p), 0, kBig);
          TK_ASSERT(ep, takyonRead(p, 0, kBig, 0, 0)) << "round " << round << ": " << error_of(p);
          TK_EXPECT(ep, first_wrong(send_buffer(p), kBig, 9) < 0)
              << "round " << round << ": byte " << first_wrong(send_buffer(p), kBig, 9)
              << " of the read differs";
          for (int k = 0; k < kBuffers; ++k) {
            const Message m = recv_message(ep, p, k);
            TK_EXPECT(ep, m.bytes == kMessage)
                << "round " << round << " buffer " << k << ": " << m.bytes << " bytes";
          }
        }
        // The messages' bytes, once A has stopped sending (until then its next message may already
        // be landing in a buffer whose last one was received).
        for (int k = 0; k < kBuffers; ++k) {
          const auto* at = reinterpret_cast<const std::byte*>(p->attrs.recver_addr_list[k]);
          TK_EXPECT(ep, first_wrong(at, kMessage, static_cast<unsigned>(k)) < 0)
              << "buffer " << k << ": byte " << first_wrong(at, kMessage, static_cast<unsigned>(k))
              << " differs";
        }
        send_message(ep, p, 0, 8, 0, 0);
        destroy_path(ep, path);
      });
}

/// Calls the finish test until it says done (each call waits up to send_finish_timeout).
bool finish_started(TakyonPath* p) {
  bool timed_out = true;
  while (timed_out) {
    if (!takyonIsOneSidedFinished(p, &timed_out)) return false;
  }
  return true;
}

// Started operations: more than fit in flight at once, a send that must follow them, reads and
// atomics whose results arrive by the finish test. B is inside a call throughout.
TEST_P(OneSided, StartedOperationsCompleteByTheFinishTest) {
  const uint32_t id = new_id();
  constexpr int kWrites = 100;  // beyond the 64 in flight: a start completes the earlier ones
  constexpr uint64_t kPiece = 32;
  constexpr int kReads = 50;
  constexpr uint64_t kReadPiece = 64;
  constexpr int kAdds = 20;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        bool timed_out = true;
        TK_ASSERT(ep, takyonIsOneSidedFinished(p, &timed_out) && !timed_out)
            << "nothing started: " << error_of(p);
        for (int i = 0; i < kWrites; ++i) {
          const uint64_t at = static_cast<uint64_t>(i) * kPiece;
          fill(send_buffer(p) + at, kPiece, static_cast<unsigned>(i));
          TK_ASSERT(ep, takyonWriteStart(p, 0, kPiece, at, at)) << "write " << i << ": " << error_of(p);
        }
        // No finish test: the send completes them before its notification goes.
        send_message(ep, p, 0, 8, 3400, 3400);
        (void)recv_message(ep, p, 0);  // B checked the writes and filled what A reads
        if (!takyonPathProvider(p)->shares_buffers) std::memset(send_buffer(p), 0, kBytes);
        uint64_t olds[kAdds];
        std::fill(std::begin(olds), std::end(olds), ~uint64_t{0});
        uint64_t swapped = 1;
        for (int i = 0; i < kReads; ++i) {
          const uint64_t at = static_cast<uint64_t>(i) * kReadPiece;
          TK_ASSERT(ep, takyonReadStart(p, 0, kReadPiece, at, at)) << "read " << i << ": " << error_of(p);
          if (i < kAdds) {
            TK_ASSERT(ep, takyonAtomicFetchAddStart(p, 0, kWord, 1, &olds[i])) << error_of(p);
          }
        }
        TK_ASSERT(ep, takyonAtomicCompareSwapStart(p, 0, kWord + 8, 0, 77, &swapped)) << error_of(p);
        TK_ASSERT(ep, takyonAtomicFetchAddStart(p, 0, kWord, 1000, nullptr)) << error_of(p);
        TK_ASSERT(ep, finish_started(p)) << error_of(p);
        TK_EXPECT(ep, first_wrong(send_buffer(p), kReads * kReadPiece, 3) < 0)
            << "byte " << first_wrong(send_buffer(p), kReads * kReadPiece, 3) << " of the reads differs";
        std::sort(std::begin(olds), std::end(olds));
        for (int i = 0; i < kAdds; ++i) {
          TK_EXPECT(ep, olds[i] == static_cast<uint64_t>(i)) << "fetched values: #" << i << " is " << olds[i];
        }
        TK_EXPECT(ep, swapped == 0) << "the started compare-and-swap found " << swapped;
        TK_ASSERT(ep, takyonIsOneSidedFinished(p, &timed_out) && !timed_out) << "again: " << error_of(p);
        send_message(ep, p, 0, 8, 3400, 3400);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        (void)recv_message(ep, p, 0);
        for (int i = 0; i < kWrites; ++i) {
          const std::byte* at = recv_buffer(p) + static_cast<uint64_t>(i) * kPiece;
          TK_EXPECT(ep, first_wrong(at, kPiece, static_cast<unsigned>(i)) < 0)
              << "started write " << i << ": byte " << first_wrong(at, kPiece, static_cast<unsigned>(i))
              << " differs";
        }
        fill(recv_buffer(p), kReads * kReadPiece, 3);
        send_message(ep, p, 0, 8, 3400, 3400);
        (void)recv_message(ep, p, 0);
        uint64_t words[2] = {};
        std::memcpy(words, recv_buffer(p) + kWord, sizeof words);
        TK_EXPECT(ep, words[0] == kAdds + 1000 && words[1] == 77) << words[0] << ", " << words[1];
        destroy_path(ep, path);
      });
}

// The finish test waits send_finish_timeout and then says "not yet" where the operation needs the
// peer inside a call and the peer is away; a send that must follow the started write then times
// out with nothing sent; once the peer enters, the write, and one started after the timed-out
// finish test, complete.
TEST_P(OneSided, FinishTestTimesOutWhileThePeerIsAway) {
  const uint32_t id = new_id();
  constexpr double kFinish = 0.05;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        attrs.attrs.send_finish_timeout = kFinish;
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        TakyonPathCapabilities caps{};
        TK_ASSERT(ep, takyonPathCapabilities(p, &caps));
        fill(send_buffer(p), 256, 4);
        fill(send_buffer(p) + 1024, 256, 5);
        TK_ASSERT(ep, takyonWriteStart(p, 0, 256, 0, 512)) << error_of(p);
        bool timed_out = false;
        const double started = now_s();
        TK_ASSERT(ep, takyonIsOneSidedFinished(p, &timed_out)) << error_of(p);
        const double waited = now_s() - started;
        // Over a byte stream the peer's process carries the write out: it cannot finish yet. UCX
        // may finish without the peer (its row counts it as needing the peer, to be safe).
        const bool must_wait = caps.one_sided_needs_peer_call && takyonPathProvider(p)->stream;
        if (must_wait) {
          TK_EXPECT(ep, timed_out) << "finished while the peer was outside the library";
        }
        if (!caps.one_sided_needs_peer_call) {
          TK_EXPECT(ep, !timed_out) << "the peer's buffer is mapped here: nothing to wait for";
        }
        if (timed_out) {
          TK_EXPECT(ep, waited >= 0.8 * kFinish) << "timed out after " << waited << " s";
        }
        // Started after a finish test that timed out: the next finish test covers it too.
        TK_ASSERT(ep, takyonWriteStart(p, 0, 256, 1024, 1536)) << error_of(p);
        if (must_wait) {
          bool send_timed_out = false;
          TK_EXPECT(ep, takyonSend(p, 0, 8, 3400, 3400, &send_timed_out) && send_timed_out)
              << "a send behind started writes the peer cannot answer yet: " << error_of(p);
        }
        ep.notify_peer();  // B enters the library
        TK_ASSERT(ep, finish_started(p)) << error_of(p);
        send_message(ep, p, 0, 8, 3400, 3400);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        TK_ASSERT(ep, ep.wait_peer()) << "no word from endpoint A";
        (void)recv_message(ep, p, 0);
        TK_EXPECT(ep, first_wrong(recv_buffer(p) + 512, 256, 4) < 0)
            << "byte " << first_wrong(recv_buffer(p) + 512, 256, 4) << " of the first started write differs";
        TK_EXPECT(ep, first_wrong(recv_buffer(p) + 1536, 256, 5) < 0)
            << "byte " << first_wrong(recv_buffer(p) + 1536, 256, 5)
            << " of the second started write differs";
        destroy_path(ep, path);
      });
}

// Started writes polled with a finish test that never waits (send_finish_timeout 0): each test
// may say "not yet" while more are started, and the last one that says done covers them all.
TEST_P(OneSided, PolledFinishTestCoversWhatWasStartedMeanwhile) {
  const uint32_t id = new_id();
  constexpr int kPieces = 40;
  constexpr uint64_t kPiece = 64;
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        attrs.attrs.send_finish_timeout = 0;
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        for (int i = 0; i < kPieces; ++i) {
          const uint64_t at = static_cast<uint64_t>(i) * kPiece;
          fill(send_buffer(p) + at, kPiece, static_cast<unsigned>(i + 10));
          TK_ASSERT(ep, takyonWriteStart(p, 0, kPiece, at, at)) << "write " << i << ": " << error_of(p);
          bool timed_out = false;
          TK_ASSERT(ep, takyonIsOneSidedFinished(p, &timed_out)) << error_of(p);
        }
        TK_ASSERT(ep, finish_started(p)) << error_of(p);
        bool timed_out = true;
        while (timed_out) {
          TK_ASSERT(ep, takyonSend(p, 0, 8, 3400, 3400, &timed_out)) << error_of(p);
        }
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TakyonPath* p = path.get();
        (void)recv_message(ep, p, 0);
        for (int i = 0; i < kPieces; ++i) {
          const std::byte* at = recv_buffer(p) + static_cast<uint64_t>(i) * kPiece;
          TK_EXPECT(ep, first_wrong(at, kPiece, static_cast<unsigned>(i + 10)) < 0)
              << "started write " << i << ": byte " << first_wrong(at, kPiece, static_cast<unsigned>(i + 10))
              << " differs";
        }
        destroy_path(ep, path);
      });
}

TEST_P(OneSided, AfterThePeerLeftIsAnError) {
  const uint32_t id = new_id();
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, takyonWrite(path.get(), 0, 8, 0, 0)) << error_of(path.get());
        send_message(ep, path.get(), 0, 8, 3000, 3000);
        // B destroys its endpoint: a write that follows must fail, naming the departure.
        bool failed = false;
        const double give_up = now_s() + kDefaultTimeout;
        while (!failed && now_s() < give_up) failed = !takyonWrite(path.get(), 0, 8, 0, 0);
        TK_EXPECT(ep, failed) << "writes kept succeeding after the peer destroyed its endpoint";
        TK_EXPECT(ep, error_of(path.get()).find("destroyed its endpoint") != std::string::npos)
            << error_of(path.get());
        destroy_path(ep, path);  // forced: the path failed
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        // Inside the library while A's first write runs: a provider that carries one-sided
        // operations to the target needs this endpoint in a call.
        (void)recv_message(ep, path.get(), 0);
        // A's path fails and is destroyed forced, without its half of the close: this graceful
        // destroy may report that, but must return.
        (void)path.destroy();
      });
}

}  // namespace
}  // namespace takyon::test
