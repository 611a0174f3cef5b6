// SPDX-License-Identifier: MIT
// The Ucx provider and bad input: malformed provider strings, ports in use, refused and
// unreachable servers, nobody on the other side, and endpoints that do not pair up. Every error
// must name the problem and come at once, or at the create timeout when waiting was right.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ids.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"
#include "ucx/ucx_test_util.hpp"

namespace takyon::test::ucx {
namespace {

struct BadCase {
  std::string text;
  std::vector<std::string> words;  // all must appear in the error
};

// Each is rejected while the provider string is read: nothing connects, nothing is sent.
TEST(UcxErrors, BadProviderStringsFailAtOnceNamingTheProblem) {
  // An ID nobody else uses, in case a string were wrongly accepted and waited for a peer.
  const std::string id = std::to_string(unique_path_id());
  const std::vector<BadCase> cases = {
      {"Ucx -ID=" + id + " -tls=bogus", {"-tls=", "'bogus'", "not a UCX transport"}},
      {"Ucx -ID=" + id + " -tls=tcp,bogus", {"'bogus'", "not a UCX transport"}},
      {"Ucx -ID=" + id + " -tls=", {"-tls", "no value"}},
      {"Ucx -ID=" + id + " -tls=^", {"-tls=", "names no transport"}},
      {"Ucx -ID=" + id + " -tls=tcp,", {"-tls=", "ends with a comma"}},
      {"Ucx -ID=" + id + " -tls=tcp -tls=sysv", {"-tls", "twice"}},
      {"Ucx -ID=" + id + " -protocol=foo", {"-protocol=foo", "auto", "am", "map"}},
      {"Ucx -ID=" + id + " -protocol=", {"-protocol", "no value"}},
      {"Ucx", {"-server", "-client", "-ID"}},
      {"Ucx -server -port=5000", {"-server", "-IP"}},
      {"Ucx -client -ID=" + id, {"-client", "-IP"}},
      {"Ucx -ID=" + id + " -IP=127.0.0.1", {"-server", "-client", "-ID=<n> alone"}},
      {"Ucx -ID=" + id + " -port=5000", {"-server", "-client", "-ID=<n> alone"}},
      {"Ucx -ID=" + id + " -reuse", {"-server", "-client", "-ID=<n> alone"}},
      {"Ucx -server -client -IP=127.0.0.1 -port=5000", {"exactly one", "-server", "-client"}},
      {"Ucx -server -IP=127.0.0.1", {"-port", "-ID"}},
      {"Ucx -server -IP=127.0.0.1 -port=5000 -ID=" + id, {"exactly one", "-port", "-ID"}},
      {"Ucx -server -IP=127.0.0.1 -port=0", {"-port=0"}},
      {"Ucx -server -IP=127.0.0.1 -port=70000", {"70000", "range"}},
      {"Ucx -client -IP=127.0.0.1 -port=5000 -reuse", {"-reuse", "-server"}},
      {"Ucx -server -IP=300.1.2.3 -port=5000", {"300.1.2.3", "IPv4"}},
      {"Ucx -server -IP=localhost -port=5000", {"localhost", "IPv4"}},
      {"Ucx -server -IP=0.0.0.0 -ID=" + id, {"0.0.0.0", "-ID"}},
      // TEST-NET-2 is no address of this host: bind fails, nothing is sent.
      {"Ucx -server -IP=198.51.100.7 -port=5000", {"198.51.100.7", "not an address of this host"}},
      {"Ucx -ID=abc", {"abc"}},
      {"Ucx -ID=" + id + " -server=1 -IP=127.0.0.1", {"-server", "takes no value"}},
      {"Ucx -ID=" + id + " -colour=red", {"colour"}},
      {"Ucx -ID=" + id + " stray", {"stray"}},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE("interconnect '" + c.text + "'");
    const CreateResult r = create_alone(c.text, true, 2.0);
    EXPECT_FALSE(r.created);
    EXPECT_LT(r.seconds, 0.5) << "a bad provider string must be rejected at once: " << r.error;
    EXPECT_TRUE(mentions_all(r.cause, c.words));
    EXPECT_TRUE(mentions_all(r.cause, {"invalid argument"}));
  }
}

TEST(UcxErrors, PortInUseIsReportedAtOnce) {
  RawSocket holder(SOCK_STREAM);
  const uint16_t port = holder.bind_loopback();
  ASSERT_NE(port, 0);
  ASSERT_EQ(listen(holder.fd(), 1), 0);
  for (const char* reuse : {"", " -reuse"}) {
    const std::string text = "Ucx -server -IP=127.0.0.1 -port=" + std::to_string(port) + reuse + " -tls=tcp";
    SCOPED_TRACE(text);
    const CreateResult r = create_alone(text, true, 2.0);
    EXPECT_FALSE(r.created);
    EXPECT_LT(r.seconds, 0.5) << r.error;
    EXPECT_TRUE(mentions_all(r.cause, {"in use", std::to_string(port)}));
  }
}

TEST(UcxErrors, RefusedConnectionFailsAtTheCreateTimeout) {
  RawSocket holder(SOCK_STREAM);  // bound, never listening: connections to it are refused
  const uint16_t port = holder.bind_loopback();
  ASSERT_NE(port, 0);
  constexpr double kTimeout = 0.5;
  const CreateResult r =
      create_alone("Ucx -client -IP=127.0.0.1 -port=" + std::to_string(port), false, kTimeout);
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(r.cause, {"refused", "127.0.0.1:" + std::to_string(port), "path_create_timeout"}));
  EXPECT_GE(r.seconds, kTimeout * 0.8) << r.error;
  EXPECT_LE(r.seconds, kTimeout * 1.5) << r.error;
}

// An address with no route. The client runs in a network namespace of its own (a fork()ed child),
// where only a downed loopback exists: connect() fails with ENETUNREACH at once and no packet
// leaves this machine (a TEST-NET address in the host's namespace may well be routed somewhere).
TEST(UcxErrors, UnreachableAddressIsReportedAtOnce) {
  const std::string id = std::to_string(unique_path_id());
  const std::vector<BadCase> cases = {
      {"Ucx -client -IP=192.0.2.1 -port=4791",
       {"disconnected", "cannot reach 192.0.2.1:4791", "unreachable"}},
      {"Ucx -client -IP=192.0.2.1 -port=4791 -tls=tcp", {"cannot reach 192.0.2.1:4791", "unreachable"}},
      // Discovery asks on the interface that leads to -IP; there is none.
      {"Ucx -client -IP=192.0.2.1 -ID=" + id, {"no route", "192.0.2.1", "unreachable"}},
  };
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    std::string report;
    if (unshare(CLONE_NEWNET) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
      report = std::string("S") + "cannot make a network namespace: " + std::strerror(errno);
    } else {
      for (const BadCase& c : cases) {
        const CreateResult r = create_alone(c.text, false, 2.0);
        report += std::string(r.created ? "C" : "F") + std::to_string(r.seconds) + "\n" + r.cause + '\x01';
      }
    }
    for (size_t at = 0; at < report.size();) {
      const ssize_t n = write(fds[1], report.data() + at, report.size() - at);
      if (n <= 0) _exit(3);
      at += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char chunk[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], chunk, sizeof(chunk))) > 0) report.append(chunk, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child in its own namespace crashed";
  if (report.starts_with("S")) GTEST_SKIP() << report.substr(1);
  size_t at = 0;
  for (const BadCase& c : cases) {
    SCOPED_TRACE("interconnect '" + c.text + "' in a namespace without routes");
    const size_t end = report.find('\x01', at);
    ASSERT_NE(end, std::string::npos) << "the child reported " << report;
    const std::string one = report.substr(at, end - at);
    at = end + 1;
    const size_t newline = one.find('\n');
    EXPECT_EQ(one[0], 'F') << "created a path to an unreachable address";
    const double seconds = std::stod(one.substr(1, newline - 1));
    const std::string error = one.substr(newline + 1);
    EXPECT_LT(seconds, 0.5) << "an unreachable address must be reported at once: " << error;
    EXPECT_TRUE(mentions_all(error, c.words));
  }
}

// Nobody on the other side: each form waits exactly the create timeout and says what it waited for.
TEST(UcxErrors, NoPeerFailsAtTheCreateTimeoutNamingWhatItWaitedFor) {
  constexpr double kTimeout = 0.4;
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const uint32_t number = unique_path_id();
  const std::string id = std::to_string(number);
  struct Case {
    std::string text;
    bool endpoint_a;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {"Ucx -ID=" + id,
       true,
       {"endpoint B", "did not connect", "@" + abstract_name(number), "path_create_timeout"}},
      {"Ucx -ID=" + id + " -tls=tcp", false, {"endpoint A", "did not appear", "path_create_timeout"}},
      {"Ucx -server -IP=127.0.0.1 -port=" + std::to_string(port),
       true,
       {"no client connected", "127.0.0.1:" + std::to_string(port), "path_create_timeout"}},
      {"Ucx -client -IP=127.0.0.1 -ID=" + id, false, {"-ID=" + id, "discovery", "path_create_timeout"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("interconnect '" + c.text + "'");
    const CreateResult r = create_alone(c.text, c.endpoint_a, kTimeout);
    EXPECT_FALSE(r.created);
    EXPECT_TRUE(mentions_all(r.cause, c.words));
    EXPECT_TRUE(mentions_all(r.cause, {"timeout"}));
    EXPECT_GE(r.seconds, kTimeout * 0.8) << r.error;
    EXPECT_LE(r.seconds, kTimeout * 1.5) << r.error;
  }
}

// ---- Two endpoints that do not pair up: both fail at once, naming the disagreement.

enum class Mismatch { kAtoB, kBtoA };
using MismatchParam = std::tuple<const char*, Mismatch>;

class LayoutMismatch : public PathTest, public ::testing::WithParamInterface<MismatchParam> {};

TEST_P(LayoutMismatch, BothSidesFailNamingTheCounts) {
  const auto [provider, which] = GetParam();
  const uint32_t id = new_id();
  const char* field = which == Mismatch::kAtoB ? "nbufs_AtoB" : "nbufs_BtoA";
  const auto endpoint = [&](Endpoint& ep) {
    // A asks for 2 buffers in the mismatched direction, B for 1.
    const int atob = which == Mismatch::kAtoB && ep.is_a() ? 2 : 1;
    const int btoa = which == Mismatch::kBtoA && ep.is_a() ? 2 : 1;
    Attrs attrs(provider, id, ep.is_a(), true, atob, btoa, 1024, 5.0);
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(attrs.get());
    const double seconds = watch.seconds();
    const std::string error = take_string(attrs.attrs.error_message);
    TK_ASSERT(ep, path == nullptr) << "endpoint " << ep.name()
                                   << " created a path whose endpoints disagree on " << field;
    TK_EXPECT(ep, seconds < 1.0) << "a layout mismatch must be found at once, took " << seconds
                                 << " s: " << error;
    TK_EXPECT_AR(ep, mentions_all(cause_of(error, attrs.attrs.interconnect),
                                  {"disagree on", field, "endpoint A has 2", "endpoint B has 1"}));
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

std::string mismatch_param_name(const ::testing::TestParamInfo<MismatchParam>& param) {
  return std::string(std::get<0>(param.param)) +
         (std::get<1>(param.param) == Mismatch::kAtoB ? "_AtoB" : "_BtoA");
}

INSTANTIATE_TEST_SUITE_P(Ucx, LayoutMismatch,
                         ::testing::Combine(::testing::Values("UcxTcp", "UcxShm"),
                                            ::testing::Values(Mismatch::kAtoB, Mismatch::kBtoA)),
                         mismatch_param_name);

// Server and client both claim to be endpoint A (is_endpointA is independent of -server/-client).
TEST(UcxErrors, TwoEndpointsAFailAtOnce) {
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const auto endpoint = [&](Endpoint& ep) {
    Attrs attrs("Ucx", 0, true, true, 1, 1, 1024, 5.0);
    attrs.set_interconnect(std::string(ep.is_a() ? "Ucx -server -reuse" : "Ucx -client") +
                           " -IP=127.0.0.1 -port=" + std::to_string(port));
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(attrs.get());
    const double seconds = watch.seconds();
    const std::string error = take_string(attrs.attrs.error_message);
    TK_ASSERT(ep, path == nullptr) << "two endpoints A made a path";
    TK_EXPECT(ep, seconds < 1.0) << "took " << seconds << " s: " << error;
    TK_EXPECT_AR(ep, mentions_all(cause_of(error, attrs.attrs.interconnect),
                                  {"endpoint A too", "one endpoint A and one B"}));
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

// A transport UCX knows but this machine lacks (no InfiniBand here): both endpoints say so.
TEST(UcxErrors, TransportThisHostLacksIsNamed) {
  if (run_command("ucx_info -d 2>/dev/null").find("Transport: rc") != std::string::npos) {
    GTEST_SKIP() << "this machine has InfiniBand transports";
  }
  const uint32_t id = unique_path_id();
  const auto endpoint = [&](Endpoint& ep) {
    Attrs attrs("Ucx", id, ep.is_a(), true, 1, 1, 1024, 5.0);
    attrs.set_interconnect("Ucx -ID=" + std::to_string(id) + " -tls=ib");
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(attrs.get());
    const double seconds = watch.seconds();
    const std::string error = take_string(attrs.attrs.error_message);
    TK_ASSERT(ep, path == nullptr) << "created a path over InfiniBand on a machine without it";
    TK_EXPECT(ep, seconds < 2.0) << "took " << seconds << " s: " << error;
    TK_EXPECT_AR(ep, mentions_all(cause_of(error, attrs.attrs.interconnect), {"-tls=ib", "UCS_ERR_"}));
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

}  // namespace
}  // namespace takyon::test::ucx
