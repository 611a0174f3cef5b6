// SPDX-License-Identifier: MIT
// Socket (TCP) between two network namespaces: fixed port and discovery, a link cut mid-transfer,
// an unreachable address and a refused connection.
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "netns/message_format.hpp"
#include "netns/netns_fixture.hpp"
#include "support/path_ops.hpp"
#include "support/timing.hpp"

namespace takyon::test::netns {
namespace {

MessageStream stream(int salt, uint64_t min_bytes, uint64_t max_bytes) {
  MessageStream s;
  s.min_bytes = min_bytes;
  s.max_bytes = max_bytes;
  s.salt = salt;
  return s;
}

class NetnsTcp : public NetnsTest, public ::testing::WithParamInterface<bool> {
 protected:
  [[nodiscard]] bool polling() const { return GetParam(); }
};

// (a) Client in B, server in A on a fixed port: 400 messages each way, 8 bytes to 128 KiB, three
// buffers, every byte checked on both sides.
TEST_P(NetnsTcp, FixedPortManyMessagesOfVaryingSizeBothWays) {
  constexpr uint64_t kCount = 400;
  constexpr uint64_t kMax = 128 * 1024;
  const std::string port = std::to_string(7000 + index() % 1000);
  const std::vector<std::string> common = {"--count=" + std::to_string(kCount), "--bufs=3", "--min-bytes=8",
                                           "--max-bytes=" + std::to_string(kMax), mode_arg(polling())};
  auto server = start_peer(
      ns_a(),
      concat({"tcp", "--side=a", "--provider=Socket -server -IP=" + ip_a() + " -port=" + port}, common));
  auto client = start_peer(
      ns_b(),
      concat({"tcp", "--side=b", "--provider=Socket -client -IP=" + ip_a() + " -port=" + port}, common));
  expect_exchange(*server, "server (A)", kCount, stream(2, 8, kMax));
  expect_exchange(*client, "client (B)", kCount, stream(1, 8, kMax));
}

// (e) A link cut while messages flow both ways: both sides are inside send or recv, and both must
// report the lost link within ~1.5 s (heartbeat every 100 ms, no ACK for 500 ms). Polling cuts the
// server's end of the veth, event driven the client's, so both ends' views are covered.
TEST_P(NetnsTcp, LinkDownMidTransferIsReportedByBothSides) {
  const std::string port = std::to_string(7000 + index() % 1000);
  const bool cut_a = polling();
  const std::vector<std::string> common = {"--min-bytes=8", "--max-bytes=65536", "--max-seconds=12",
                                           "--timeout=10", mode_arg(polling())};
  auto server = start_peer(
      ns_a(), concat({"tcp-stream", "--side=a", "--provider=Socket -server -IP=" + ip_a() + " -port=" + port},
                     common));
  auto client = start_peer(
      ns_b(), concat({"tcp-stream", "--side=b", "--provider=Socket -client -IP=" + ip_a() + " -port=" + port},
                     common));
  ASSERT_TRUE(server->wait_line("RUNNING", 15)) << server->describe();
  ASSERT_TRUE(client->wait_line("RUNNING", 15)) << client->describe();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well inside the transfer
  const double before = now_s();
  ASSERT_TRUE(set_link(cut_a, false));
  const double cut = now_s();
  server->signal(SIGUSR1);  // the marker the peers measure from
  client->signal(SIGUSR1);
  std::cout << "[ info     ] `ip link set " << (cut_a ? veth_a() : veth_b()) << " down` took "
            << (cut - before) * 1e3 << " ms\n";

  for (ChildProcess* peer : {server.get(), client.get()}) {
    const char* who = peer == server.get() ? "server (A)" : "client (B)";
    const int status = peer->wait(10);
    EXPECT_EQ(status, 1) << who << " must end with an error (1), not a timeout (3) or no error (0): "
                         << peer->describe();
    const auto error = fields_of(*peer, "ERROR ");
    ASSERT_FALSE(error.empty()) << who << " reported no error: " << peer->describe();
    EXPECT_EQ(number_of(error, "marker"), 1)
        << who << " failed before the link went down: " << peer->describe();
    const double after_ms = number_of(error, "after_ms");
    EXPECT_GE(after_ms, 0) << who << ": " << peer->describe();
    EXPECT_LE(after_ms, 1500) << who << " took too long to notice the lost link: " << peer->describe();
    EXPECT_TRUE(contains_ci(error.at("text"), "link") || contains_ci(error.at("text"), "acknowledg"))
        << who << "'s error should say the link (or the peer host) is gone: " << error.at("text");
    const auto result = fields_of(*peer, "RESULT ");
    EXPECT_GE(number_of(result, "sent"), 20) << peer->describe();
    EXPECT_EQ(number_of(result, "bad"), 0)
        << who << " received wrong bytes before the cut: " << peer->describe();
    std::cout << "[ info     ] " << who << " reported the cut after " << after_ms << " ms ("
              << error.at("phase") << "): " << error.at("text") << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, NetnsTcp, ::testing::Bool(), mode_param_name);

// (b) -ID: the server's port is the system's choice; the client in the other namespace finds it
// by multicast discovery over the veth. The client starts first, so it must keep asking.
TEST_F(NetnsTest, TcpDiscoveryAcrossNamespaces) {
  constexpr uint64_t kCount = 100;
  constexpr uint64_t kMax = 16384;
  const std::string id = std::to_string(4000 + index());
  const std::vector<std::string> common = {"--count=" + std::to_string(kCount), "--bufs=2", "--min-bytes=8",
                                           "--max-bytes=" + std::to_string(kMax), "--mode=event"};
  auto client = start_peer(
      ns_b(), concat({"tcp", "--side=b", "--provider=Socket -client -IP=" + ip_a() + " -ID=" + id}, common));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto server = start_peer(
      ns_a(), concat({"tcp", "--side=a", "--provider=Socket -server -IP=" + ip_a() + " -ID=" + id}, common));
  expect_exchange(*server, "server (A)", kCount, stream(2, 8, kMax));
  expect_exchange(*client, "client (B)", kCount, stream(1, 8, kMax));
}

// (h) Nothing listens on the port in A: the client in B is refused until its create timeout
// (1 s) and says so.
TEST_F(NetnsTest, RefusedConnectionAcrossTheVethIsReported) {
  const std::string port = std::to_string(7000 + index() % 1000);
  auto client =
      start_peer(ns_b(), {"tcp", "--side=b", "--provider=Socket -client -IP=" + ip_a() + " -port=" + port,
                          "--create-timeout=1", "--mode=event"});
  EXPECT_EQ(client->wait(15), 1) << client->describe();
  EXPECT_FALSE(client->line("READY")) << client->describe();
  const auto error = fields_of(*client, "ERROR ");
  ASSERT_FALSE(error.empty()) << client->describe();
  EXPECT_EQ(error.at("phase"), "create");
  EXPECT_TRUE(contains_ci(error.at("text"), "refused")) << error.at("text");
  EXPECT_GE(number_of(error, "after_ms"), 900) << "gave up before its create timeout: " << client->describe();
  EXPECT_LE(number_of(error, "after_ms"), 3000)
      << "kept trying long after its create timeout: " << client->describe();
}

// (g) A namespace with only lo: 10.x.y.9 has no route. The client must fail at once (not wait out
// its 10 s create timeout) and say it cannot reach the address.
TEST_F(SoloNetnsTest, UnreachableAddressFailsPromptly) {
  const std::string target = addr(9);
  auto client =
      start_peer(ns_a(), {"tcp", "--side=b", "--provider=Socket -client -IP=" + target + " -port=7009",
                          "--create-timeout=10", "--mode=event"});
  EXPECT_EQ(client->wait(15), 1) << client->describe();
  const auto error = fields_of(*client, "ERROR ");
  ASSERT_FALSE(error.empty()) << client->describe();
  EXPECT_EQ(error.at("phase"), "create");
  EXPECT_TRUE(contains_ci(error.at("text"), "cannot reach")) << error.at("text");
  EXPECT_TRUE(contains_ci(error.at("text"), target))
      << "the error should name " << target << ": " << error.at("text");
  EXPECT_LT(number_of(error, "after_ms"), 2000)
      << "an unreachable network should fail at once: " << client->describe();
}

}  // namespace
}  // namespace takyon::test::netns
