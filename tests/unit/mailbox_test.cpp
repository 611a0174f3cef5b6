// SPDX-License-Identifier: MIT
// The shared-memory mailbox on its own: a small message travels inside the slot and is copied into
// the receive buffer only by the receive; a larger one is announced by size; what a peer writes
// into a slot is checked; and the event-driven spin budget adapts within its bound.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/common/adaptive_spin.hpp"
#include "backends/common/mailbox.hpp"

namespace takyon::detail {
namespace {

constexpr uint64_t kBufferBytes = 256;
constexpr std::byte kGuard{0xA5};

// Endpoints A and B with `nbufs` buffers each way, in one process (no futex sharing, polling).
struct MailboxPair {
  explicit MailboxPair(int nbufs, bool polling = true)
      : slots_a(static_cast<size_t>(nbufs)), slots_b(static_cast<size_t>(nbufs)) {
    a = std::make_unique<Mailbox>(Mailbox::Side{&header_a, slots_a.data()},
                                  Mailbox::Side{&header_b, slots_b.data()}, nbufs, nbufs, false, polling,
                                  nullptr, polling);
    b = std::make_unique<Mailbox>(Mailbox::Side{&header_b, slots_b.data()},
                                  Mailbox::Side{&header_a, slots_a.data()}, nbufs, nbufs, false, polling,
                                  nullptr, polling);
  }
  MailboxHeader header_a;
  MailboxHeader header_b;
  std::vector<MailboxSlot> slots_a;  // A's receive buffers' slots (B writes the messages)
  std::vector<MailboxSlot> slots_b;
  std::unique_ptr<Mailbox> a;
  std::unique_ptr<Mailbox> b;
};

std::vector<std::byte> pattern(uint64_t bytes, unsigned seed) {
  std::vector<std::byte> data(bytes);
  for (uint64_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 7 + seed * 13 + 1) & 0xff);
  return data;
}

TEST(Mailbox, InlineLimitIsWhatFitsBesideTheNotification) {
  EXPECT_EQ(sizeof(MailboxSlot), 64u);
  EXPECT_EQ(kInlineBytes, 40u);
}

TEST(Mailbox, SmallMessagesTravelInsideTheSlotAndLandAtTheirOffset) {
  MailboxPair pair(1);
  ErrorLog log;
  unsigned seed = 0;
  for (uint64_t bytes = 0; bytes <= kInlineBytes; ++bytes) {
    for (const uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{63}, kBufferBytes - bytes}) {
      ++seed;
      std::array<std::byte, kBufferBytes> recv_buffer;
      recv_buffer.fill(kGuard);
      const std::vector<std::byte> message = pattern(bytes, seed);
      ASSERT_EQ(pair.a->wait_send_slot(0, Deadline::after(0), log), Status::kOk);
      const auto note = static_cast<uint32_t>(seed * 2654435761u);  // high and low bits in turn
      pair.a->post_inline(0, message.data(), bytes, offset, note);
      EXPECT_EQ(pair.slots_b[0].inline_bytes.load(), bytes) << "the message is not in the slot";
      for (const std::byte value : recv_buffer) ASSERT_EQ(value, kGuard) << "written before the receive";
      RecvResult got;
      ASSERT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log),
                Status::kOk)
          << log.cause();
      EXPECT_EQ(got.bytes, bytes);
      EXPECT_EQ(got.offset, offset);
      EXPECT_EQ(got.piggyback, note) << "the piggyback value";
      for (uint64_t i = 0; i < kBufferBytes; ++i) {
        const bool inside = i >= offset && i < offset + bytes;
        ASSERT_EQ(recv_buffer[i], inside ? message[i - offset] : kGuard)
            << bytes << " bytes at offset " << offset << ": byte " << i;
      }
    }
  }
}

TEST(Mailbox, LargerMessagesAreAnnouncedAndLeftInTheBuffer) {
  MailboxPair pair(2);
  ErrorLog log;
  std::array<std::byte, kBufferBytes> recv_buffer;
  recv_buffer.fill(kGuard);
  ASSERT_EQ(pair.a->wait_send_slot(1, Deadline::after(0), log), Status::kOk);
  pair.a->post(1, kInlineBytes + 1, 100, 0xFFFFFFFFu);
  EXPECT_EQ(pair.slots_b[1].inline_bytes.load(), MailboxSlot::kInBuffer);
  RecvResult got;
  ASSERT_EQ(pair.b->receive(1, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log), Status::kOk);
  EXPECT_EQ(got.bytes, kInlineBytes + 1);
  EXPECT_EQ(got.offset, 100u);
  EXPECT_EQ(got.piggyback, 0xFFFFFFFFu);
  for (const std::byte value : recv_buffer) ASSERT_EQ(value, kGuard) << "the receive copied a buffer message";
}

TEST(Mailbox, ABufferIsFreeOnlyOnceItsMessageWasReceived) {
  MailboxPair pair(1);
  ErrorLog log;
  std::array<std::byte, kBufferBytes> recv_buffer{};
  const std::vector<std::byte> message = pattern(8, 1);
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(pair.a->wait_send_slot(0, Deadline::after(0), log), Status::kOk);
    pair.a->post_inline(0, message.data(), 8, 0, 0);
    EXPECT_EQ(pair.a->wait_send_slot(0, Deadline::after(0), log), Status::kTimedOut);
    RecvResult got;
    EXPECT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log),
              Status::kOk);
    EXPECT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log),
              Status::kTimedOut);
  }
}

TEST(Mailbox, WhatThePeerWroteIsChecked) {
  ErrorLog log;
  std::array<std::byte, kBufferBytes> recv_buffer{};
  RecvResult got;
  {  // an inline size beyond the slot
    MailboxPair pair(1);
    pair.a->post_inline(0, recv_buffer.data(), 8, 0, 0);
    pair.slots_b[0].inline_bytes.store(kInlineBytes + 1);
    EXPECT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log),
              Status::kProtocol);
    EXPECT_NE(log.cause().find("at most 40"), std::string::npos) << log.cause();
  }
  {  // an inline message past the end of the buffer
    MailboxPair pair(1);
    pair.a->post_inline(0, recv_buffer.data(), 8, kBufferBytes - 4, 0);
    EXPECT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, recv_buffer.data(), got, log),
              Status::kProtocol);
  }
  {  // an inline message to a receive buffer with no address to copy it to
    MailboxPair pair(1);
    pair.a->post_inline(0, recv_buffer.data(), 8, 0, 0);
    EXPECT_EQ(pair.b->receive(0, Deadline::after(0), kBufferBytes, nullptr, got, log), Status::kProtocol);
    EXPECT_NE(log.cause().find("no memory to copy them to"), std::string::npos) << log.cause();
  }
}

TEST(AdaptiveSpin, SpinsTheFullBudgetWhileSpinningPays) {
  AdaptiveSpin spin;
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(spin.budget_ns(), kEventSpinMaxNs);
    spin.spun();
  }
}

TEST(AdaptiveSpin, HalvesDownToNoneWhenWaitsSleepAndProbesAgain) {
  AdaptiveSpin spin;
  int64_t last = kEventSpinMaxNs;
  int probes = 0;
  for (int i = 0; i < 64; ++i) {
    const int64_t budget = spin.budget_ns();
    EXPECT_LE(budget, kEventSpinMaxNs);
    if (budget == kEventSpinMaxNs && i > 0) ++probes;
    EXPECT_TRUE(budget <= last || budget == kEventSpinMaxNs) << "wait " << i << ": " << budget;
    if (budget != kEventSpinMaxNs) last = budget;
    spin.slept();
  }
  EXPECT_EQ(last, 0) << "the budget never reached zero";
  EXPECT_GE(probes, 2) << "no periodic probe of the full budget";
  EXPECT_LE(probes, 6) << "probes too often";
  spin.spun();  // a probe that paid off restores the budget
  EXPECT_EQ(spin.budget_ns(), kEventSpinMaxNs);
}

}  // namespace
}  // namespace takyon::detail
