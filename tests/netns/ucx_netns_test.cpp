// SPDX-License-Identifier: MIT
// Ucx between two network namespaces over UCX's tcp transport: fixed port and discovery, a link
// cut mid-transfer, an address nobody has and a port nobody listens on.
//
// UCX in `ip netns exec` sees only that namespace's interfaces (lo and its end of the veth). With
// -tls=tcp it lists both, and its reachability check keeps lo out of a lane to the other
// namespace, so no UCX_NET_DEVICES is needed: the peers run with the test's environment, and the
// transfer test proves the bytes crossed the veth from the veth's own counters.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "netns/message_format.hpp"
#include "netns/netns_fixture.hpp"
#include "support/path_ops.hpp"
#include "support/sanitizers.hpp"
#include "support/timing.hpp"

#ifndef TAKYON_NETNS_HAVE_UCX
#error "TAKYON_NETNS_HAVE_UCX (whether libtakyon has the Ucx provider) must be defined"
#endif

namespace takyon::test::netns {
namespace {

// 8 B to 4 MiB spread over the powers of two: UCX 1.13 over tcp sends up to ~8 KiB as eager
// short, up to ~19 KiB as eager zero-copy and larger messages by rendezvous (`ucx_info -e -u mw
// -P inter` with UCX_TLS=tcp), so every protocol carries many messages.
constexpr uint64_t kMinBytes = 8;
constexpr uint64_t kMaxBytes = 4 * 1024 * 1024;

std::string ucx(const std::string& role, const std::string& ip, const std::string& where) {
  return "Ucx -" + role + " -IP=" + ip + " " + where + " -tls=tcp";
}

MessageStream stream(int salt, uint64_t max_bytes) {
  MessageStream s;
  s.min_bytes = kMinBytes;
  s.max_bytes = max_bytes;
  s.salt = salt;
  s.log_sizes = true;
  return s;
}

// How many of messages [0, count) fall in each of UCX's size bands, for the log.
std::string size_mix(const MessageStream& s, uint64_t count) {
  uint64_t small = 0, medium = 0, large = 0;
  for (uint64_t seq = 0; seq < count; ++seq) {
    const uint64_t bytes = s.size_of(seq);
    if (bytes <= 8 * 1024) {
      ++small;
    } else if (bytes < 32 * 1024) {
      ++medium;
    } else {
      ++large;
    }
  }
  return std::to_string(small) + " <= 8 KiB, " + std::to_string(medium) + " in 8-32 KiB, " +
         std::to_string(large) + " >= 32 KiB";
}

class NetnsUcxTest : public NetnsTest {
 protected:
  void SetUp() override {
    if (TAKYON_NETNS_HAVE_UCX == 0) {
      GTEST_SKIP() << "libtakyon was built without the Ucx provider (TAKYON_WITH_UCX=OFF, or UCX not found: "
                      "apt-get install libucx-dev)";
    }
    NetnsTest::SetUp();
  }

  [[nodiscard]] std::string port() const { return std::to_string(7100 + index() % 1000); }

  // A statistics counter of one end of the veth (/sys/class/net/<veth>/statistics/<name>, which
  // `ip netns exec` shows for that namespace); -1 when it cannot be read.
  double veth_counter(bool side_a, const std::string& name) {
    const CommandResult read =
        run_command({ip_tool(), "netns", "exec", side_a ? ns_a() : ns_b(), "cat",
                     "/sys/class/net/" + (side_a ? veth_a() : veth_b()) + "/statistics/" + name});
    EXPECT_EQ(read.status, 0) << "reading " << name << " of the veth: " << read.output;
    char* end = nullptr;
    const double value = std::strtod(read.output.c_str(), &end);
    return read.status == 0 && end != read.output.c_str() ? value : -1;
  }

  struct CutRun {
    std::unique_ptr<ChildProcess> server;
    std::unique_ptr<ChildProcess> client;
    double cut_s = 0;  ///< when `ip link set down` returned
  };
  // Starts a server in A and a client in B exchanging messages of 8 B to 4 MiB until an error,
  // cuts A's or B's end of the veth 200 ms into the stream and signals the marker the peers
  // measure from. The peers are left running.
  void start_and_cut(bool polling, bool cut_a, CutRun& run) {
    const std::vector<std::string> common = {"--min-bytes=" + std::to_string(kMinBytes),
                                             "--max-bytes=" + std::to_string(kMaxBytes),
                                             "--sizes=log",
                                             "--max-seconds=12",
                                             "--timeout=10",
                                             mode_arg(polling)};
    run.server = start_peer(
        ns_a(),
        concat({"tcp-stream", "--side=a", "--provider=" + ucx("server", ip_a(), "-port=" + port())}, common));
    run.client = start_peer(
        ns_b(),
        concat({"tcp-stream", "--side=b", "--provider=" + ucx("client", ip_a(), "-port=" + port())}, common));
    ASSERT_TRUE(run.server->wait_line("RUNNING", 15)) << run.server->describe();
    ASSERT_TRUE(run.client->wait_line("RUNNING", 15)) << run.client->describe();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well inside the transfer
    const double before = now_s();
    ASSERT_TRUE(set_link(cut_a, false));
    run.cut_s = now_s();
    run.server->signal(SIGUSR1);
    run.client->signal(SIGUSR1);
    std::cout << "[ info     ] `ip link set " << (cut_a ? veth_a() : veth_b()) << " down` took "
              << (run.cut_s - before) * 1e3 << " ms\n";
  }
};

// The UCX warnings, errors and failed assertions in a peer's output (UCX logs to stdout:
// "[time] [host:pid:thread] file.c:line UCX  WARN  text", "[host:pid:thread] file.c:line
// Assertion `...' failed").
std::vector<std::string> ucx_complaints(const ChildProcess& peer) {
  std::vector<std::string> out;
  const std::string text = peer.output();
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (line.find("UCX  WARN") != std::string::npos || line.find("UCX  ERROR") != std::string::npos ||
        line.find("Assertion `") != std::string::npos) {
      out.push_back(line);
    }
    at = end + 1;
  }
  return out;
}

class NetnsUcx : public NetnsUcxTest, public ::testing::WithParamInterface<bool> {
 protected:
  [[nodiscard]] bool polling() const { return GetParam(); }
};

// Server in A on a fixed port, client in B: 300 messages each way, 8 B to 4 MiB (eager and
// rendezvous), three buffers, every byte checked on both sides; the veth's counters show that
// the data went through it.
TEST_P(NetnsUcx, FixedPortManyMessagesOfEverySizeBothWays) {
  // Under TSan half as many (still every power of two from 8 B to 4 MiB, every tenth 4 MiB): with
  // 300 each way the instrumented peers can need all of the peers' time limit and be killed at it
  // after printing a complete RESULT.
  constexpr uint64_t kCount = takyon::test::kTsan ? 150 : 300;
  const MessageStream from_a = stream(1, kMaxBytes);
  const MessageStream from_b = stream(2, kMaxBytes);
  const double tx_before = veth_counter(true, "tx_bytes");
  const double rx_before = veth_counter(true, "rx_bytes");
  const std::vector<std::string> common = {
      "--count=" + std::to_string(kCount),        "--bufs=3",    "--min-bytes=" + std::to_string(kMinBytes),
      "--max-bytes=" + std::to_string(kMaxBytes), "--sizes=log", mode_arg(polling())};
  const Stopwatch watch;
  auto server = start_peer(
      ns_a(), concat({"tcp", "--side=a", "--provider=" + ucx("server", ip_a(), "-port=" + port())}, common));
  auto client = start_peer(
      ns_b(), concat({"tcp", "--side=b", "--provider=" + ucx("client", ip_a(), "-port=" + port())}, common));
  expect_exchange(*server, "server (A)", kCount, from_b);
  expect_exchange(*client, "client (B)", kCount, from_a);
  const double seconds = watch.seconds();

  // Every payload byte A sent left through its end of the veth, and every byte B sent came in
  // through it (plus headers, the stream and TCP's own segments).
  const double sent_by_a = static_cast<double>(from_a.total_bytes(kCount));
  const double sent_by_b = static_cast<double>(from_b.total_bytes(kCount));
  const double tx = veth_counter(true, "tx_bytes") - tx_before;
  const double rx = veth_counter(true, "rx_bytes") - rx_before;
  EXPECT_GE(tx, sent_by_a) << "the messages of A did not all cross the veth (" << veth_a() << " sent " << tx
                           << " bytes): UCX took another way";
  EXPECT_GE(rx, sent_by_b) << "the messages of B did not all cross the veth (" << veth_a() << " received "
                           << rx << " bytes): UCX took another way";
  std::cout << "[ info     ] " << kCount << " messages each way (" << size_mix(from_a, kCount) << "), "
            << (sent_by_a + sent_by_b) / 1e6 << " MB of payload in " << seconds << " s including create; "
            << veth_a() << " counted " << tx / 1e6 << " MB out, " << rx / 1e6 << " MB in\n";
}

// A link cut while messages of every size flow both ways: both sides are inside send or recv
// (often waiting on a rendezvous) and must report the lost link, naming the peer, within 3 s
// (heartbeats every 100 ms, no ACK for 500 ms), then exit without hanging. Polling cuts the
// server's end of the veth, event driven the client's, so both ends' views are covered.
TEST_P(NetnsUcx, LinkDownMidTransferIsReportedByBothSides) {
  CutRun run;
  ASSERT_NO_FATAL_FAILURE(start_and_cut(polling(), /*cut_a=*/polling(), run));
  for (ChildProcess* peer : {run.server.get(), run.client.get()}) {
    const bool is_server = peer == run.server.get();
    const char* who = is_server ? "server (A)" : "client (B)";
    const std::string peer_ip = is_server ? ip_b() : ip_a();
    const int status = peer->wait(10);
    const double exited_ms = (now_s() - run.cut_s) * 1e3;
    EXPECT_EQ(status, 1) << who << " must end with an error (1), not a timeout (3), no error (0) or a signal "
                         << "(128 + n; 134: SIGABRT, e.g. a failed UCX assertion): " << peer->describe();
    EXPECT_LE(exited_ms, 5000) << who << " hung after the cut: " << peer->describe();
    const auto error = fields_of(*peer, "ERROR ");
    ASSERT_FALSE(error.empty()) << who << " reported no error: " << peer->describe();
    EXPECT_EQ(number_of(error, "marker"), 1)
        << who << " failed before the link went down: " << peer->describe();
    const double after_ms = number_of(error, "after_ms");
    EXPECT_GE(after_ms, 0) << who << ": " << peer->describe();
    EXPECT_LE(after_ms, 3000) << who << " took too long to notice the lost link: " << peer->describe();
    const std::string text = error.count("text") != 0 ? error.at("text") : "";
    EXPECT_TRUE(contains_ci(text, "link") || contains_ci(text, "acknowledg"))
        << who << "'s error should say the link (or the peer host) is gone: " << text;
    EXPECT_TRUE(contains_ci(text, peer_ip))
        << who << "'s error should name the peer " << peer_ip << ": " << text;
    const auto result = fields_of(*peer, "RESULT ");
    EXPECT_GE(number_of(result, "sent"), 20) << peer->describe();
    EXPECT_EQ(number_of(result, "bad"), 0)
        << who << " received wrong bytes before the cut: " << peer->describe();
    std::cout << "[ info     ] " << who << " reported the cut after " << after_ms << " ms ("
              << (error.count("phase") != 0 ? error.at("phase") : "?") << ", " << number_of(result, "sent")
              << " messages exchanged before), exited " << exited_ms << " ms after the cut: " << text << "\n";
    // UCX 1.13 may warn that requests still in flight on the dead link (a rendezvous, the close)
    // were not returned before the worker went: shown, not judged (with error handling mode NONE
    // nothing can complete them). A failed UCX assertion ends the peer with SIGABRT instead of
    // exit status 1, and fails the status check above.
    for (const std::string& line : ucx_complaints(*peer))
      std::cout << "[ info     ] " << who << ": " << line << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, NetnsUcx, ::testing::Bool(), mode_param_name);

// -ID: the server's port is the system's choice; the client in the other namespace finds it by
// multicast discovery over the veth. The client starts first, so it must keep asking.
TEST_F(NetnsUcxTest, DiscoveryAcrossNamespaces) {
  // Under ASan, LeakSanitizer's thread tracer has crashed ("Tracer caught signal 11") at the exit
  // of both peers of this test when the whole suite ran, after every message had arrived and been
  // checked: a sanitizer runtime bug with the threads and dynamic TLS of the dlopen()ed UCX, not a
  // leak. The leak check stays on for every other Ucx test; these two peers run without it.
  struct RestoreAsanOptions {
    const char* before = std::getenv("ASAN_OPTIONS");
    std::string saved = before != nullptr ? before : "";
    ~RestoreAsanOptions() {
      if (before != nullptr) {
        setenv("ASAN_OPTIONS", saved.c_str(), 1);
      } else {
        unsetenv("ASAN_OPTIONS");
      }
    }
  } restore;
  if (kAsan) setenv("ASAN_OPTIONS", (restore.saved + ":detect_leaks=0").c_str(), 1);
  constexpr uint64_t kCount = 100;
  constexpr uint64_t kMax = 1024 * 1024;
  const std::string id = "-ID=" + std::to_string(4100 + index());
  const std::vector<std::string> common = {
      "--count=" + std::to_string(kCount),   "--bufs=2",    "--min-bytes=" + std::to_string(kMinBytes),
      "--max-bytes=" + std::to_string(kMax), "--sizes=log", "--mode=event"};
  auto client =
      start_peer(ns_b(), concat({"tcp", "--side=b", "--provider=" + ucx("client", ip_a(), id)}, common));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto server =
      start_peer(ns_a(), concat({"tcp", "--side=a", "--provider=" + ucx("server", ip_a(), id)}, common));
  expect_exchange(*server, "server (A)", kCount, stream(2, kMax));
  expect_exchange(*client, "client (B)", kCount, stream(1, kMax));
}

// An address in the veth's subnet that nobody has: ARP gets no answer, so the connection neither
// completes nor is refused. A client with a 1 s create timeout must give up at that timeout, one
// with 6 s when the kernel declares the host unreachable (after ~3 s of ARP) or at its timeout;
// both say which address they could not reach.
TEST_F(NetnsUcxTest, AddressNobodyHasFailsWithinTheCreateTimeout) {
  const std::string target = addr(9);
  auto quick =
      start_peer(ns_b(), {"tcp", "--side=b", "--provider=" + ucx("client", target, "-port=" + port()),
                          "--create-timeout=1", "--mode=event"});
  auto patient =
      start_peer(ns_b(), {"tcp", "--side=b", "--provider=" + ucx("client", target, "-port=" + port()),
                          "--create-timeout=6", "--mode=poll"});
  for (auto [peer, limit_s] : {std::pair{quick.get(), 1.0}, std::pair{patient.get(), 6.0}}) {
    EXPECT_EQ(peer->wait(15), 1) << peer->describe();
    EXPECT_FALSE(peer->line("READY")) << peer->describe();
    const auto error = fields_of(*peer, "ERROR ");
    ASSERT_FALSE(error.empty()) << peer->describe();
    EXPECT_EQ(error.at("phase"), "create");
    const std::string text = error.count("text") != 0 ? error.at("text") : "";
    EXPECT_TRUE(contains_ci(text, "cannot reach") || contains_ci(text, "no answer")) << text;
    EXPECT_TRUE(contains_ci(text, target)) << "the error should name " << target << ": " << text;
    const double after_ms = number_of(error, "after_ms");
    EXPECT_LE(after_ms, limit_s * 1e3 + 1000) << "kept trying past its create timeout: " << peer->describe();
    if (contains_ci(text, "no answer")) {
      EXPECT_GE(after_ms, limit_s * 1e3 - 100) << "gave up before its create timeout: " << peer->describe();
    }
    std::cout << "[ info     ] create timeout " << limit_s << " s: failed after " << after_ms
              << " ms: " << text << "\n";
  }
}

// The server's address, the wrong port: the client is refused until its create timeout (1 s) and
// says so; the server, which nobody reached, reports its own create timeout.
TEST_F(NetnsUcxTest, WrongPortIsRefusedAcrossTheVeth) {
  const std::string wrong_port = std::to_string(7100 + index() % 1000 + 1);
  auto server =
      start_peer(ns_a(), {"tcp", "--side=a", "--provider=" + ucx("server", ip_a(), "-port=" + port()),
                          "--create-timeout=2", "--mode=event"});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the server listens
  auto client =
      start_peer(ns_b(), {"tcp", "--side=b", "--provider=" + ucx("client", ip_a(), "-port=" + wrong_port),
                          "--create-timeout=1", "--mode=event"});
  EXPECT_EQ(client->wait(15), 1) << client->describe();
  EXPECT_FALSE(client->line("READY")) << client->describe();
  const auto error = fields_of(*client, "ERROR ");
  ASSERT_FALSE(error.empty()) << client->describe();
  EXPECT_EQ(error.at("phase"), "create");
  const std::string text = error.count("text") != 0 ? error.at("text") : "";
  EXPECT_TRUE(contains_ci(text, "refused")) << text;
  EXPECT_TRUE(contains_ci(text, ip_a() + ":" + wrong_port))
      << "the error should name the address and port: " << text;
  const double after_ms = number_of(error, "after_ms");
  EXPECT_GE(after_ms, 900) << "gave up before its create timeout: " << client->describe();
  EXPECT_LE(after_ms, 3000) << "kept trying long after its create timeout: " << client->describe();
  std::cout << "[ info     ] refused after " << after_ms << " ms: " << text << "\n";

  EXPECT_EQ(server->wait(15), 1) << server->describe();
  EXPECT_FALSE(server->line("READY")) << server->describe();
  const auto server_error = fields_of(*server, "ERROR ");
  ASSERT_FALSE(server_error.empty()) << server->describe();
  EXPECT_TRUE(
      contains_ci(server_error.count("text") != 0 ? server_error.at("text") : "", "no client connected"))
      << server->describe();
}

}  // namespace
}  // namespace takyon::test::netns
