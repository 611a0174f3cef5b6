// SPDX-License-Identifier: MIT
// Which data protocol a Ucx path chooses, as create reports it with
// TAKYON_VERBOSITY_CREATE_DESTROY_MORE ("UCX protocol map" or "UCX protocol am"): map when UCX can
// map the peer's receive buffers (shared-memory transports and buffers Takyon allocated), active
// messages otherwise or when asked; -protocol=map where mapping is impossible fails on both sides.
// Every path that is made carries messages both ways and the bytes are checked.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"
#include "ucx/ucx_test_util.hpp"

namespace takyon::test::ucx {
namespace {

constexpr uint64_t kBufferBytes = 256 * 1024;  // large enough for UCX's rendezvous on every transport
constexpr int kBuffers = 2;

/// How one endpoint is set up.
struct Side {
  std::string extra;         ///< appended to its interconnect (e.g. " -protocol=am")
  bool app_buffers = false;  ///< receive and send buffers the application allocated
};

/// One scenario: the transport form, each side's set-up, the protocol both must print ("" when
/// create must fail on both sides, with `error_words` in each error).
struct Scenario {
  const char* name;
  const char* tls;  ///< " -tls=..." or "" for UCX's own choice
  bool tcp_stream;  ///< -server/-client -IP=127.0.0.1 -port=<p> instead of -ID=<n>
  Side a;
  Side b;
  const char* expect;  ///< "map", "am", "any" (UCX's choice: only both sides must agree) or ""
  std::vector<std::string> error_words;
};

void PrintTo(const Scenario& s, std::ostream* os) {
  *os << s.name;
}

// Page-aligned application buffers, freed after the path is destroyed.
struct AppBuffers {
  std::vector<std::unique_ptr<void, decltype(&std::free)>> owned;
  size_t take(uint64_t bytes) {
    owned.emplace_back(std::aligned_alloc(4096, bytes), &std::free);
    return reinterpret_cast<size_t>(owned.back().get());
  }
};

std::string protocol_in(const std::string& out) {
  for (const char* p : {"map", "am"}) {
    if (out.find(std::string("UCX protocol ") + p + "\n") != std::string::npos) return p;
  }
  return "";
}

class UcxProtocol : public PathTest, public ::testing::WithParamInterface<std::tuple<Scenario, bool>> {};

TEST_P(UcxProtocol, ChoiceIsReportedAndDataArrives) {
  const auto& [s, polling] = GetParam();
  const uint32_t id = new_id();
  const uint16_t port = s.tcp_stream ? free_port() : 0;
  const auto endpoint = [&](Endpoint& ep) {
    const Side& me = ep.is_a() ? s.a : s.b;
    Attrs attrs("Ucx", id, ep.is_a(), polling, kBuffers, kBuffers, kBufferBytes, 5.0);
    std::string text = s.tcp_stream ? std::string(ep.is_a() ? "Ucx -server -reuse" : "Ucx -client") +
                                          " -IP=127.0.0.1 -port=" + std::to_string(port)
                                    : "Ucx -ID=" + std::to_string(id);
    text += s.tls + me.extra;
    attrs.set_interconnect(text);
    attrs.attrs.verbosity = TAKYON_VERBOSITY_CREATE_DESTROY | TAKYON_VERBOSITY_CREATE_DESTROY_MORE;
    AppBuffers app;  // declared before the path: outlives it
    if (me.app_buffers) {
      for (size_t& addr : attrs.send_addrs) addr = app.take(kBufferBytes);
      for (size_t& addr : attrs.recv_addrs) addr = app.take(kBufferBytes);
    }
    TakyonPathAttributes* raw = attrs.get();
    ::testing::internal::CaptureStdout();
    const Stopwatch watch;
    TakyonPath* created = takyonCreate(raw);
    const double seconds = watch.seconds();
    const std::string out = ::testing::internal::GetCapturedStdout();
    const std::string error = take_string(raw->error_message);
    raw->error_message = nullptr;
    PathHandle path(created);
    if (std::string(s.expect).empty()) {
      TK_ASSERT(ep, created == nullptr)
          << "endpoint " << ep.name() << " created '" << text << "' (" << out << ")";
      TK_EXPECT_AR(ep, mentions_all(cause_of(error, text), s.error_words));
      TK_EXPECT(ep, seconds < 1.0) << "a refused protocol must fail at once, not at the create timeout; took "
                                   << seconds << " s: " << error;
      return;
    }
    TK_ASSERT(ep, created != nullptr) << "takyonCreate('" << text << "') failed: " << error;
    const std::string chosen = protocol_in(out);
    TK_EXPECT(ep, !chosen.empty()) << "create printed no 'UCX protocol' line:\n" << out;
    if (std::string(s.expect) != "any") {
      TK_EXPECT(ep, chosen == s.expect)
          << "endpoint " << ep.name() << " chose '" << chosen << "', expected '" << s.expect << "':\n"
          << out;
    }
    // Both endpoints must have chosen the same.
    ep.notify_peer(chosen == "map" ? 1.0 : 2.0);
    double peer_choice = 0;
    TK_ASSERT(ep, ep.wait_peer(kDefaultTimeout, &peer_choice)) << "the peer did not report its choice";
    TK_EXPECT(ep, peer_choice == (chosen == "map" ? 1.0 : 2.0)) << "the endpoints chose different protocols";
    // Messages of several sizes (eager and rendezvous), both buffers, with offsets, both ways.
    const uint64_t sizes[] = {1, 100, 8191, 65536, kBufferBytes - 4096};
    uint64_t tag = 0;
    for (const uint64_t bytes : sizes) {
      for (int buffer = 0; buffer < kBuffers; ++buffer) {
        const uint64_t offset = 4096 - 64 * static_cast<uint64_t>(buffer);  // every size fits after it
        ++tag;
        if (ep.is_a()) {
          fill_message(path.get(), buffer, bytes, offset, tag);
          send_message(ep, path.get(), buffer, bytes, offset, offset);
          const Message got = recv_message(ep, path.get(), buffer);
          TK_EXPECT(ep, got.bytes == bytes && got.offset == offset);
          expect_message(ep, path.get(), buffer, got, tag + 1000);
        } else {
          const Message got = recv_message(ep, path.get(), buffer);
          TK_EXPECT(ep, got.bytes == bytes && got.offset == offset)
              << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), buffer, got, tag);
          fill_message(path.get(), buffer, bytes, offset, tag + 1000);
          send_message(ep, path.get(), buffer, bytes, offset, offset);
        }
      }
    }
    ::testing::internal::CaptureStdout();  // the destroy report, too
    destroy_path(ep, path);
    const std::string destroyed = ::testing::internal::GetCapturedStdout();
    TK_EXPECT(ep, destroyed.find("graceful") != std::string::npos) << "destroy reported:\n" << destroyed;
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

// Each side's own refusal, or the peer's refusal it received, names the reason.
const std::vector<std::string> kMapImpossible = {"-protocol=map", "cannot map"};

const Scenario kScenarios[] = {
    {"ShmTakyonBuffers", " -tls=sysv,posix", false, {}, {}, "map", {}},
    {"ShmApplicationBuffers", " -tls=sysv,posix", false, {"", true}, {"", true}, "am", {}},
    {"ShmApplicationBuffersOnOneSide", " -tls=sysv,posix", false, {}, {"", true}, "am", {}},
    {"ShmProtocolAm", " -tls=sysv,posix", false, {" -protocol=am"}, {" -protocol=am"}, "am", {}},
    {"ShmProtocolAmOnOneSide", " -tls=sysv,posix", false, {" -protocol=am"}, {}, "am", {}},
    {"ShmProtocolMap", " -tls=sysv,posix", false, {" -protocol=map"}, {" -protocol=map"}, "map", {}},
    {"ShmProtocolMapOnOneSide", " -tls=sysv,posix", false, {}, {" -protocol=map"}, "map", {}},
    {"Tcp", " -tls=tcp", false, {}, {}, "am", {}},
    {"TcpServerClient", " -tls=tcp", true, {}, {}, "am", {}},
    {"UcxChoosesServerClient", "", true, {}, {}, "any", {}},
    {"UcxChooses", "", false, {}, {}, "any", {}},
    {"TcpProtocolMapFails", " -tls=tcp", false, {" -protocol=map"}, {" -protocol=map"}, "", kMapImpossible},
    {"TcpProtocolMapOnOneSideFails", " -tls=tcp", false, {}, {" -protocol=map"}, "", kMapImpossible},
    {"ShmApplicationBuffersProtocolMapFails",
     " -tls=sysv,posix",
     false,
     {" -protocol=map", true},
     {" -protocol=map", true},
     "",
     kMapImpossible},
    // Each side must name the conflict, not just that the other hung up.
    {"ShmMapAgainstAmFails",
     " -tls=sysv,posix",
     false,
     {" -protocol=map"},
     {" -protocol=am"},
     "",
     {"-protocol=map", "-protocol=am"}},
};

std::string scenario_param_name(const ::testing::TestParamInfo<std::tuple<Scenario, bool>>& param) {
  return std::string(std::get<0>(param.param).name) + (std::get<1>(param.param) ? "_Polling" : "_Event");
}

INSTANTIATE_TEST_SUITE_P(Ucx, UcxProtocol,
                         ::testing::Combine(::testing::ValuesIn(kScenarios), ::testing::Bool()),
                         scenario_param_name);

}  // namespace
}  // namespace takyon::test::ucx
