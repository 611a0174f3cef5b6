// SPDX-License-Identifier: MIT
// Socket providers and bad input: malformed provider strings, ports in use, refused connections,
// a fixed port reused at once, and strangers on the port (random bytes, silence).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ids.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_providers.h"

namespace takyon::test {
namespace {

struct CreateResult {
  std::string error;
  double seconds = 0;
  bool created = false;
};

// Creates one endpoint alone with `text`; a created path is destroyed at once.
CreateResult create_alone(const std::string& text, bool endpoint_a, int nbufs_atob, int nbufs_btoa,
                          double timeout = 2.0) {
  Attrs attrs("Socket", 1, endpoint_a, true, nbufs_atob, nbufs_btoa, 1024, timeout);
  attrs.set_interconnect(text);
  CreateResult out;
  const Stopwatch watch;
  TakyonPath* path = takyonCreate(attrs.get());
  out.seconds = watch.seconds();
  out.created = path != nullptr;
  out.error = take_string(attrs.attrs.error_message);
  if (path != nullptr) std::free(takyonDestroy(&path));
  return out;
}

struct BadCase {
  std::string text;
  std::vector<std::string> words;  // all must appear in the error
  bool sender = true;              // connectionless: create as a sender (else receiver)
};

TEST(SocketErrors, BadProviderStringsFailAtOnceNamingTheProblem) {
  const std::vector<BadCase> cases = {
      {"Socket -IP=127.0.0.1 -port=5000", {"-server", "-client"}},
      {"Socket -server -client -IP=127.0.0.1 -port=5000", {"exactly one", "-server", "-client"}},
      {"Socket -server -IP=127.0.0.1", {"-port", "-ID"}},
      {"Socket -server -IP=127.0.0.1 -port=5000 -ID=3", {"exactly one", "-port", "-ID"}},
      {"Socket -server -IP=127.0.0.1 -port=0", {"-port=0"}},
      {"Socket -server -IP=127.0.0.1 -port=70000", {"70000", "range"}},
      {"Socket -client -IP=127.0.0.1 -port=5000 -reuse", {"-reuse", "-server"}},
      {"Socket -server -IP=300.1.2.3 -port=5000", {"300.1.2.3", "IPv4"}},
      {"Socket -server -IP=localhost -port=5000", {"localhost", "IPv4"}},
      {"Socket -server -IP=0.0.0.0 -ID=4", {"0.0.0.0", "-ID"}},
      {"Socket -server -port=5000", {"-IP"}},
      // 192.0.2.1 (TEST-NET-1) is no address of this host: bind fails, nothing is sent.
      {"Socket -server -IP=192.0.2.1 -port=5000", {"192.0.2.1", "not an address of this host"}},
      {"InterProcessSocket -port=5", {"port", "ID"}},
      {"UnicastSendSocket -IP=127.0.0.1", {"-port"}},
      {"UnicastSendSocket -IP=127.0.0.1 -port=0", {"-port"}},
      {"UnicastSendSocket -IP=239.1.1.1 -port=5000", {"239.1.1.1", "MulticastSendSocket"}},
      {"UnicastSendSocket -IP=127.0.0.1 -port=5000 -reuse", {"reuse"}},
      {"UnicastRecvSocket -IP=192.0.2.1 -port=5000", {"192.0.2.1", "not an address of this host"}, false},
      {"MulticastSendSocket -IP=127.0.0.1 -group=10.1.2.3 -port=5000",
       {"10.1.2.3", "not a multicast address"}},
      {"MulticastSendSocket -IP=127.0.0.1 -group=239.255.1.1 -port=5000 -TTL=300", {"300", "TTL"}},
      {"MulticastSendSocket -IP=127.0.0.1 -group=banana -port=5000", {"banana"}},
      {"MulticastSendSocket -IP=192.0.2.1 -group=239.255.1.1 -port=5000",
       {"192.0.2.1", "not an address of this host"}},
      {"MulticastRecvSocket -IP=127.0.0.1 -group=224.0.0.256 -port=5000", {"224.0.0.256"}, false},
      {"MulticastRecvSocket -IP=192.0.2.1 -group=239.255.1.1 -port=5000",
       {"192.0.2.1", "not an address of this host"},
       false},
      {"MulticastRecvSocket -IP=127.0.0.1 -group=239.255.1.1", {"-port"}, false},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE("interconnect '" + c.text + "'");
    const TakyonProviderInfo* provider = takyonFindProvider(c.text.c_str());
    const bool connected = provider != nullptr && provider->connected;
    // Senders: endpoint A with one A->B buffer; receivers: endpoint B with one A->B buffer.
    const CreateResult r =
        connected ? create_alone(c.text, true, 1, 1) : create_alone(c.text, c.sender, 1, 0);
    EXPECT_FALSE(r.created);
    EXPECT_LT(r.seconds, 0.5) << "a bad provider string must be rejected at once: " << r.error;
    for (const std::string& word : c.words) {
      EXPECT_NE(r.error.find(word), std::string::npos) << "the error does not mention '" << word << "':\n"
                                                       << r.error;
    }
  }
}

TEST(SocketErrors, ConnectionlessEndpointsGoOneWayOnly) {
  const uint16_t port = free_port(SOCK_DGRAM);
  const std::string send_text = "UnicastSendSocket -IP=127.0.0.1 -port=" + std::to_string(port);
  const std::string recv_text = "UnicastRecvSocket -IP=127.0.0.1 -port=" + std::to_string(port);
  {
    const CreateResult r = create_alone(send_text, true, 1, 1);  // A sender with a B->A buffer
    EXPECT_FALSE(r.created);
    EXPECT_NE(r.error.find("only sends"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("nbufs_BtoA"), std::string::npos) << r.error;
  }
  {
    const CreateResult r = create_alone(recv_text, false, 1, 1);  // a receiver that could send
    EXPECT_FALSE(r.created);
    EXPECT_NE(r.error.find("only receives"), std::string::npos) << r.error;
  }
}

TEST(SocketErrors, PortInUseIsReportedAtOnce) {
  RawSocket holder(SOCK_STREAM);
  const uint16_t port = holder.bind_loopback();
  ASSERT_NE(port, 0);
  ASSERT_EQ(listen(holder.fd(), 1), 0);
  for (const char* reuse : {"", " -reuse"}) {
    const CreateResult r =
        create_alone("Socket -server -IP=127.0.0.1 -port=" + std::to_string(port) + reuse, true, 1, 1);
    EXPECT_FALSE(r.created);
    EXPECT_LT(r.seconds, 0.5);
    EXPECT_NE(r.error.find("in use"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(std::to_string(port)), std::string::npos) << r.error;
  }
  RawSocket udp_holder(SOCK_DGRAM);
  const uint16_t udp_port = udp_holder.bind_loopback();
  ASSERT_NE(udp_port, 0);
  const CreateResult r =
      create_alone("UnicastRecvSocket -IP=127.0.0.1 -port=" + std::to_string(udp_port), false, 1, 0);
  EXPECT_FALSE(r.created);
  EXPECT_NE(r.error.find("in use"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("-reuse"), std::string::npos) << "the error should suggest -reuse: " << r.error;
}

TEST(SocketErrors, RefusedConnectionFailsAtTheCreateTimeout) {
  RawSocket holder(SOCK_STREAM);  // bound, never listening: connections to it are refused
  const uint16_t port = holder.bind_loopback();
  ASSERT_NE(port, 0);
  constexpr double kTimeout = 0.5;
  const CreateResult r =
      create_alone("Socket -client -IP=127.0.0.1 -port=" + std::to_string(port), false, 1, 1, kTimeout);
  EXPECT_FALSE(r.created);
  EXPECT_NE(r.error.find("refused"), std::string::npos) << r.error;
  EXPECT_GE(r.seconds, kTimeout * 0.8);
  EXPECT_LE(r.seconds, kTimeout * 1.5) << r.error;
}

TEST(SocketErrors, DiscoveryWithoutServerNamesTheId) {
  const CreateResult r =
      create_alone("Socket -client -IP=127.0.0.1 -ID=" + std::to_string(unique_path_id()), false, 1, 1, 0.4);
  EXPECT_FALSE(r.created);
  EXPECT_NE(r.error.find("discovery"), std::string::npos) << r.error;
  EXPECT_LE(r.seconds, 0.4 * 1.5) << r.error;
}

// The guide's fixed-port form: a -reuse server binds the same port again right after the previous
// connection closed (its TIME_WAIT lingers), several times, and every message arrives intact.
class FixedPort : public PathTest, public ::testing::WithParamInterface<bool> {};

TEST_P(FixedPort, ServerRebindsAtOnceWithReuse) {
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const bool polling = GetParam();
  const auto endpoint = [&](Endpoint& ep) {
    for (int round = 0; round < 3; ++round) {
      Attrs attrs("Socket", 0, ep.is_a(), polling, 2, 2, 70000);
      attrs.set_interconnect(std::string(ep.is_a() ? "Socket -server -reuse" : "Socket -client") +
                             " -IP=127.0.0.1 -port=" + std::to_string(port));
      PathHandle path = create_path(ep, attrs);
      for (int i = 0; i < 20; ++i) {
        const int buffer = i % 2;
        const uint64_t bytes = static_cast<uint64_t>(1 + (i * 7919) % 70000);
        const uint64_t tag = static_cast<uint64_t>(round * 100 + i) * 2 + (ep.is_a() ? 0 : 1);
        fill_message(path.get(), buffer, bytes, 0, tag);
        send_message(ep, path.get(), buffer, bytes);
        const Message got = recv_message(ep, path.get(), buffer);
        TK_EXPECT(ep, got.bytes == bytes) << "round " << round << " message " << i;
        expect_message(ep, path.get(), buffer, got, tag ^ 1);
      }
      destroy_path(ep, path);
      ep.notify_peer();
      TK_ASSERT(ep, ep.wait_peer()) << "peer did not finish round " << round;
    }
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

INSTANTIATE_TEST_SUITE_P(Modes, FixedPort, ::testing::Bool(), polling_param_name);

// Strangers on the port: random bytes, or a connection that says nothing and closes. Both ends
// of a Takyon endpoint report them clearly within the create timeout.
std::vector<unsigned char> random_bytes(size_t n) {
  std::mt19937 rng(12345);
  std::vector<unsigned char> out(n);
  for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

TEST(SocketErrors, ClientMeetingANonTakyonServer) {
  RawSocket server(SOCK_STREAM);
  const uint16_t port = server.bind_loopback();
  ASSERT_NE(port, 0);
  ASSERT_EQ(listen(server.fd(), 1), 0);
  std::thread stranger([&] {
    const int fd = accept(server.fd(), nullptr, nullptr);
    if (fd < 0) return;
    const std::vector<unsigned char> noise = random_bytes(4096);
    (void)send(fd, noise.data(), noise.size(), MSG_NOSIGNAL);
    char sink[4096];
    while (recv(fd, sink, sizeof(sink), 0) > 0) {
    }
    close(fd);
  });
  const CreateResult r =
      create_alone("Socket -client -IP=127.0.0.1 -port=" + std::to_string(port), false, 1, 1, 2.0);
  stranger.join();
  EXPECT_FALSE(r.created);
  EXPECT_NE(r.error.find("not a Takyon"), std::string::npos) << r.error;
  EXPECT_LT(r.seconds, 1.0) << r.error;
}

TEST(SocketErrors, ServerMeetingANonTakyonClient) {
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  for (const bool silent : {false, true}) {
    SCOPED_TRACE(silent ? "client says nothing and closes" : "client writes random bytes");
    std::thread stranger([&] {
      for (int attempt = 0; attempt < 200; ++attempt) {
        RawSocket client(SOCK_STREAM);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        to.sin_port = htons(port);
        if (connect(client.fd(), reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0) {
          if (!silent) {
            const std::vector<unsigned char> noise = random_bytes(100000);
            (void)send(client.fd(), noise.data(), noise.size(), MSG_NOSIGNAL);
          }
          shutdown(client.fd(), SHUT_WR);
          char sink[4096];
          while (recv(client.fd(), sink, sizeof(sink), 0) > 0) {
          }
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    const CreateResult r =
        create_alone("Socket -server -reuse -IP=127.0.0.1 -port=" + std::to_string(port), true, 1, 1, 2.0);
    stranger.join();
    EXPECT_FALSE(r.created);
    EXPECT_NE(r.error.find(silent ? "closed the connection" : "not a Takyon"), std::string::npos) << r.error;
    EXPECT_LT(r.seconds, 1.5) << r.error;
  }
}

}  // namespace
}  // namespace takyon::test
