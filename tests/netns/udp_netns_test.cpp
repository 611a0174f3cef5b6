// SPDX-License-Identifier: MIT
// UDP providers between two network namespaces: unicast and multicast streams counted by
// sequence number with every byte checked, the multicast MTU limit, and a link that goes down
// and comes back.
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "netns/netns_fixture.hpp"
#include "support/path_ops.hpp"

namespace takyon::test::netns {
namespace {

// The receiver's RESULT, with the checks every stream shares: exit 0, no wrong byte, no message
// delivered twice, and received = distinct + duplicates.
std::map<std::string, std::string> receiver_result(ChildProcess& recver) {
  EXPECT_EQ(recver.wait(30), 0) << "receiver (B): " << recver.describe();
  auto result = fields_of(recver, "RESULT ");
  EXPECT_FALSE(result.empty()) << "receiver (B) printed no RESULT: " << recver.describe();
  if (result.empty()) return result;
  EXPECT_EQ(number_of(result, "bad_bytes"), 0) << recver.describe();
  EXPECT_EQ(number_of(result, "dup"), 0) << "a veth does not duplicate datagrams: " << recver.describe();
  EXPECT_EQ(number_of(result, "received"), number_of(result, "distinct") + number_of(result, "dup"));
  std::cout << "[ info     ] receiver: " << recver.line("RESULT ").value_or("") << "\n";
  ::testing::Test::RecordProperty("receiver", recver.line("RESULT ").value_or(""));
  return result;
}

class NetnsUdp : public NetnsTest, public ::testing::WithParamInterface<bool> {
 protected:
  [[nodiscard]] bool polling() const { return GetParam(); }
};

// (c) Unicast A -> B, paced: most messages arrive, each whole (its size and every byte checked),
// none twice; loss and reordering are counted.
TEST_P(NetnsUdp, UnicastStreamAcrossTheVeth) {
  constexpr int kCount = 1200;
  const std::string port = std::to_string(9000 + index() % 1000);
  const std::string sizes = "--max-bytes=32768";
  auto recver =
      start_peer(ns_b(), {"udp-recv", "--provider=UnicastRecvSocket -IP=" + ip_b() + " -port=" + port, sizes,
                          "--expect=" + std::to_string(kCount), "--recv-timeout-ms=100", "--idle-stop-ms=700",
                          mode_arg(polling())});
  ASSERT_TRUE(recver->wait_line("READY", 15)) << recver->describe();
  auto sender =
      start_peer(ns_a(), {"udp-send", "--provider=UnicastSendSocket -IP=" + ip_b() + " -port=" + port, sizes,
                          "--count=" + std::to_string(kCount), "--pace-us=400", mode_arg(polling())});
  EXPECT_EQ(sender->wait(30), 0) << "sender (A): " << sender->describe();
  const auto sent = fields_of(*sender, "RESULT ");
  EXPECT_EQ(number_of(sent, "sent"), kCount) << sender->describe();
  const auto result = receiver_result(*recver);
  if (result.empty()) return;
  EXPECT_GE(number_of(result, "distinct"), 0.9 * kCount)
      << "too many messages lost on an idle veth: " << recver->describe();
  EXPECT_EQ(number_of(result, "largest"), 32768) << "the largest messages (fragmented) should arrive whole";
}

INSTANTIATE_TEST_SUITE_P(Modes, NetnsUdp, ::testing::Bool(), mode_param_name);

// (d) Multicast A -> B over the veth (MTU 1500): messages of up to 1472 bytes arrive whole; a
// 1473-byte send is rejected by takyonSend with an error naming the limit.
TEST_F(NetnsTest, MulticastAcrossTheVethAndTheMtuLimit) {
  constexpr int kCount = 600;
  const std::string port = std::to_string(9000 + index() % 1000);
  const std::string where = "-group=" + group() + " -port=" + port;
  auto recver = start_peer(ns_b(), {"udp-recv", "--provider=MulticastRecvSocket -IP=" + ip_b() + " " + where,
                                    "--max-bytes=1472", "--expect=" + std::to_string(kCount),
                                    "--recv-timeout-ms=100", "--idle-stop-ms=700", "--mode=event"});
  ASSERT_TRUE(recver->wait_line("READY", 15)) << recver->describe();
  auto sender = start_peer(
      ns_a(), {"udp-send", "--provider=MulticastSendSocket -IP=" + ip_a() + " " + where, "--max-bytes=1472",
               "--count=" + std::to_string(kCount), "--pace-us=300", "--oversize=1473", "--mode=event"});
  EXPECT_EQ(sender->wait(30), 0) << "sender (A): " << sender->describe();
  EXPECT_EQ(number_of(fields_of(*sender, "RESULT "), "sent"), kCount) << sender->describe();
  const auto oversize = fields_of(*sender, "OVERSIZE ");
  ASSERT_FALSE(oversize.empty()) << sender->describe();
  EXPECT_EQ(number_of(oversize, "rejected"), 1)
      << "a 1473-byte multicast message must be rejected on MTU 1500";
  const std::string text = oversize.count("text") != 0 ? oversize.at("text") : "";
  EXPECT_TRUE(contains_ci(text, "1473") && contains_ci(text, "1472") && contains_ci(text, "MTU"))
      << "the error should give the size, the limit and why: " << text;
  const auto result = receiver_result(*recver);
  if (result.empty()) return;
  EXPECT_GE(number_of(result, "distinct"), 0.9 * kCount) << recver->describe();
  EXPECT_EQ(number_of(result, "largest"), 1472) << "1472-byte messages are within the limit and must arrive";
}

// -noLoopback: a receiver on the sending host (namespace A) gets nothing, one across the veth gets
// the stream. (On lo the option cannot be seen: lo hands every packet back.)
TEST_F(NetnsTest, MulticastNoLoopbackReachesOnlyOtherHosts) {
  constexpr int kCount = 300;
  const std::string port = std::to_string(9000 + index() % 1000);
  const std::string where = "-group=" + group() + " -port=" + port;
  const std::vector<std::string> recv_args = {"--max-bytes=1000", "--expect=" + std::to_string(kCount),
                                              "--recv-timeout-ms=100", "--idle-stop-ms=700", "--mode=event"};
  std::vector<std::string> local_args = {"udp-recv",
                                         "--provider=MulticastRecvSocket -IP=" + ip_a() + " " + where};
  std::vector<std::string> remote_args = {"udp-recv",
                                          "--provider=MulticastRecvSocket -IP=" + ip_b() + " " + where};
  local_args.insert(local_args.end(), recv_args.begin(), recv_args.end());
  local_args.emplace_back("--duration-ms=2500");  // idle-stop counts from a first arrival, which never comes
  remote_args.insert(remote_args.end(), recv_args.begin(), recv_args.end());
  auto local = start_peer(ns_a(), local_args);
  auto remote = start_peer(ns_b(), remote_args);
  ASSERT_TRUE(local->wait_line("READY", 15)) << local->describe();
  ASSERT_TRUE(remote->wait_line("READY", 15)) << remote->describe();
  auto sender = start_peer(
      ns_a(), {"udp-send", "--provider=MulticastSendSocket -IP=" + ip_a() + " " + where + " -noLoopback",
               "--max-bytes=1000", "--count=" + std::to_string(kCount), "--pace-us=300", "--mode=event"});
  EXPECT_EQ(sender->wait(30), 0) << "sender (A): " << sender->describe();
  const auto remote_result = receiver_result(*remote);
  if (!remote_result.empty()) {
    EXPECT_GE(number_of(remote_result, "distinct"), 0.9 * kCount) << remote->describe();
  }
  (void)local->wait(30);  // it exits 1: it received nothing, which is the point
  const auto local_result = fields_of(*local, "RESULT ");
  ASSERT_FALSE(local_result.empty()) << local->describe();
  EXPECT_EQ(number_of(local_result, "received"), 0)
      << "-noLoopback: a receiver on the sending host got datagrams";
  EXPECT_EQ(number_of(local_result, "bad_bytes"), 0);
}

// (f) The sender's link goes down for 0.7 s mid-stream: its sends keep succeeding (a refused or
// unroutable datagram is a loss), the receiver sees receive timeouts and a gap, and once the link
// is up again (the kernel may take up to a second to pass packets again) messages arrive again,
// every byte right, up to the last one.
TEST_F(NetnsTest, UdpLinkDownLosesMessagesThenTheStreamResumes) {
  constexpr int kCount = 3000;
  const std::string port = std::to_string(9000 + index() % 1000);
  auto recver =
      start_peer(ns_b(), {"udp-recv", "--provider=UnicastRecvSocket -IP=" + ip_b() + " -port=" + port,
                          "--max-bytes=1400", "--recv-timeout-ms=100", "--idle-stop-ms=3000",
                          "--last-seq=" + std::to_string(kCount - 1), "--duration-ms=15000", "--mode=event"});
  ASSERT_TRUE(recver->wait_line("READY", 15)) << recver->describe();
  auto sender = start_peer(
      ns_a(), {"udp-send", "--provider=UnicastSendSocket -IP=" + ip_b() + " -port=" + port,
               "--max-bytes=1400", "--count=" + std::to_string(kCount), "--pace-us=1000", "--mode=event"});
  ASSERT_TRUE(sender->wait_line("READY", 15)) << sender->describe();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(set_link(true, false));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ASSERT_TRUE(set_link(true, true));

  EXPECT_EQ(sender->wait(15), 0) << "sends must keep succeeding while the link is down: "
                                 << sender->describe();
  EXPECT_EQ(number_of(fields_of(*sender, "RESULT "), "sent"), kCount) << sender->describe();
  const auto result = receiver_result(*recver);
  if (result.empty()) return;
  EXPECT_GE(number_of(result, "timeouts"), 5) << "0.8 s without messages is several 100 ms receive timeouts";
  EXPECT_GE(number_of(result, "lost"), 100) << "messages sent while the link was down cannot arrive";
  // The gap: messages stopped, then resumed with later sequence numbers.
  bool found = false;
  for (const std::string& line : recver->lines("GAP ")) {
    const auto gap = parse_fields(line);
    if (number_of(gap, "ms") >= 500 && number_of(gap, "next_seq") > number_of(gap, "after_seq") + 100)
      found = true;
    std::cout << "[ info     ] receiver: " << line << "\n";
  }
  EXPECT_TRUE(found) << "no gap of >= 500 ms followed by later messages: " << recver->describe();
  EXPECT_EQ(number_of(result, "max_seq"), kCount - 1)
      << "messages sent after the link came back must arrive: " << recver->describe();
}

}  // namespace
}  // namespace takyon::test::netns
