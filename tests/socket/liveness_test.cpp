// SPDX-License-Identifier: MIT
// The other side of link-loss detection: a peer that is alive but does not call Takyon for a
// while (computing, or too slow to drain a large message) must never be reported as gone.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "socket/socket_test_util.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test {
namespace {

constexpr double kBusySeconds = 1.5;  // three times the 0.5 s link-loss threshold

class BusyPeer : public ProviderTest {};

// B computes for 1.5 s without calling Takyon while A waits in recv; then B answers.
TEST_P(BusyPeer, WaitingOnAComputingPeerIsNotADisconnect) {
  const uint32_t id = new_id();
  run_endpoints(
      mode(),
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, polling(), 1, 1, 64);
        PathHandle path = create_path(ep, attrs);
        const Stopwatch watch;
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, watch.seconds() >= kBusySeconds * 0.9) << "the answer came before B finished computing";
        TK_EXPECT(ep, got.bytes == 48);
        expect_message(ep, path.get(), 0, got, 7);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, polling(), 1, 1, 64);
        PathHandle path = create_path(ep, attrs);
        std::this_thread::sleep_for(std::chrono::duration<double>(kBusySeconds));
        fill_message(path.get(), 0, 48, 0, 7);
        send_message(ep, path.get(), 0, 48);
        destroy_path(ep, path);
      });
}

// The largest a TCP socket's receive plus send buffers may grow here (autotuning), from
// net.ipv4.tcp_rmem and tcp_wmem; Unix sockets hold far less.
uint64_t tcp_buffer_ceiling() {
  uint64_t total = 0;
  for (const char* file : {"/proc/sys/net/ipv4/tcp_rmem", "/proc/sys/net/ipv4/tcp_wmem"}) {
    std::ifstream in(file);
    uint64_t low = 0;
    uint64_t def = 0;
    uint64_t high = 8u << 20;
    in >> low >> def >> high;
    total += high;
  }
  return total;
}

// A sends more than the socket buffers can hold while B sleeps: the socket fills, the receive
// window closes, A's send waits. That is a slow reader, not a lost link; the whole message then
// arrives intact.
TEST_P(BusyPeer, SendBlockedByASlowReaderIsNotADisconnect) {
  const uint64_t kBytes = tcp_buffer_ceiling() + (16u << 20);
  const uint32_t id = new_id();
  run_endpoints(
      mode(),
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, polling(), 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        const Stopwatch since_create;  // B starts its sleep when its create returns, about now
        fill_message(path.get(), 0, kBytes, 0, 11);
        // Filling tens of MiB can take a good part of B's sleep on a loaded machine (TSan, ctest -j):
        // the send must wait for what is left of it.
        const double left = kBusySeconds - since_create.seconds();
        const Stopwatch watch;
        send_message(ep, path.get(), 0, kBytes);
        TK_EXPECT(ep, left < 0.25 || watch.seconds() >= left * 0.8)
            << "the send did not wait for the sleeping reader (" << watch.seconds() << " s, " << left
            << " s of its sleep left when the send started)";
        (void)recv_message(ep, path.get(), 0);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, polling(), 1, 1, kBytes);
        PathHandle path = create_path(ep, attrs);
        std::this_thread::sleep_for(std::chrono::duration<double>(kBusySeconds));
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == kBytes);
        expect_message(ep, path.get(), 0, got, 11);
        send_message(ep, path.get(), 0, 0);
        destroy_path(ep, path);
      });
}

INSTANTIATE_TEST_SUITE_P(Sockets, BusyPeer,
                         ::testing::Values(ProviderParam{"Socket", true}, ProviderParam{"Socket", false},
                                           ProviderParam{"InterProcessSocket", true},
                                           ProviderParam{"InterProcessSocket", false}),
                         provider_param_name);

}  // namespace
}  // namespace takyon::test
