// SPDX-License-Identifier: MIT
// The Ucx provider and a peer process SIGKILLed while this side waits in recv, in send (for the
// peer to free its receive buffer) or in a graceful destroy: the waiting call fails with
// "disconnected" within 1 s, whichever protocol (map or active messages) and bootstrap stream
// (TCP or Unix socket) carries the path, polling or event driven.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>

#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"
#include "ucx/ucx_test_util.hpp"

namespace takyon::test::ucx {
namespace {

/// The budget of this suite: a killed peer is noticed within a second (each test records the time
/// it took as the latency_us property in the XML report).
constexpr double kDetectBudget = 1.0;

enum class WaitIn { kRecv, kRecvZombiePeer, kSend, kDestroy };

const char* wait_in_name(WaitIn where) {
  switch (where) {
    case WaitIn::kRecv:
      return "Recv";
    case WaitIn::kRecvZombiePeer:
      return "RecvZombiePeer";
    case WaitIn::kSend:
      return "Send";
    case WaitIn::kDestroy:
      return "Destroy";
  }
  return "?";
}

void PrintTo(WaitIn where, std::ostream* os) {
  *os << wait_in_name(where);
}

using KillParam = std::tuple<const char*, bool, WaitIn>;

class KilledUcxPeer : public PathTest, public ::testing::WithParamInterface<KillParam> {
 protected:
  [[nodiscard]] const char* provider() const { return std::get<0>(GetParam()); }
  [[nodiscard]] bool polling() const { return std::get<1>(GetParam()); }
  [[nodiscard]] WaitIn where() const { return std::get<2>(GetParam()); }
};

struct Outcome {
  bool ok = true;
  bool timed_out = false;
  std::string error;
  double returned_at = 0;
};

// recv on an empty buffer; send into the buffer the first send filled and the peer never
// received; or a graceful destroy the peer never answers.
Outcome wait_in(WaitIn where, PathHandle& path) {
  Outcome out;
  switch (where) {
    case WaitIn::kRecv:
    case WaitIn::kRecvZombiePeer: {
      uint64_t bytes = 0;
      out.ok = takyonRecv(path.get(), 0, &bytes, nullptr, &out.timed_out);
      out.error = path_error(path.get());
      break;
    }
    case WaitIn::kSend:
      out.ok = takyonSend(path.get(), 0, 100, 0, 0, &out.timed_out);
      out.error = path_error(path.get());
      break;
    case WaitIn::kDestroy:
      out.error = path.destroy();
      out.ok = out.error.empty();
      break;
  }
  out.returned_at = now_s();
  return out;
}

// B (the child) sends one message to A and then waits for SIGKILL without ever receiving,
// sending again or destroying. A checks the message, then waits in the call under test while a
// thread kills B 150 ms later.
TEST_P(KilledUcxPeer, WaitingCallFailsWithinASecond) {
  const uint32_t id = new_id();
  allow_stale_shm(id);
  constexpr uint64_t kBytes = 300;
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, polling(), 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == kBytes);
        expect_message(ep, path.get(), 0, got, 42);
        TK_ASSERT(ep, ep.wait_peer()) << "B never got ready";
        if (where() == WaitIn::kSend) {
          fill_message(path.get(), 0, 100, 0, 7);
          send_message(ep, path.get(), 0, 100);  // fills B's only receive buffer for good
        }
        std::atomic<double> killed_at{0};
        std::thread killer([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          killed_at.store(ep.kill_child(where() != WaitIn::kRecvZombiePeer));
        });
        const Outcome out = wait_in(where(), path);
        killer.join();
        const double latency = out.returned_at - killed_at.load();
        ::testing::Test::RecordProperty("latency_us", static_cast<int>(latency * 1e6));
        std::printf("%s %s %s: the call returned %.1f ms after the kill\n", provider(),
                    polling() ? "polling" : "event driven", wait_in_name(where()), latency * 1e3);
        TK_EXPECT(ep, !out.ok) << wait_in_name(where()) << " succeeded after the peer was killed"
                               << (out.timed_out ? " (timed out)" : "");
        TK_EXPECT(ep, latency >= 0) << wait_in_name(where()) << " returned " << -latency
                                    << " s before the peer was killed: " << out.error;
        TK_EXPECT(ep, latency < kDetectBudget)
            << wait_in_name(where()) << " returned " << latency * 1e3 << " ms after the kill (budget "
            << kDetectBudget * 1e3 << " ms): " << out.error;
        TK_EXPECT_AR(ep, mentions_all(out.error, {"disconnected"}));
        TK_EXPECT_AR(ep,
                     mentions_any(out.error, {"gone", "died", "closed the connection", "connection broke"}));
        if (path) {  // after an error only a forced destroy remains: quick and quiet
          const Stopwatch watch;
          const std::string error = path.destroy();
          TK_EXPECT(ep, error.empty()) << "destroy after the error must be forced and succeed: " << error;
          TK_EXPECT(ep, watch.seconds() < 0.5) << "the forced destroy took " << watch.seconds() << " s";
        }
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, polling(), 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        fill_message(path.get(), 0, kBytes, 0, 42);
        send_message(ep, path.get(), 0, kBytes);
        ep.notify_peer();
        for (;;) pause();  // never receives, never destroys: waits for SIGKILL
      });
}

std::string kill_param_name(const ::testing::TestParamInfo<KillParam>& param) {
  return std::string(std::get<0>(param.param)) + (std::get<1>(param.param) ? "_Polling_" : "_Event_") +
         wait_in_name(std::get<2>(param.param));
}

INSTANTIATE_TEST_SUITE_P(Ucx, KilledUcxPeer,
                         ::testing::Combine(::testing::Values("UcxTcp", "UcxShm", "UcxShmAm"),
                                            ::testing::Bool(),
                                            ::testing::Values(WaitIn::kRecv, WaitIn::kRecvZombiePeer,
                                                              WaitIn::kSend, WaitIn::kDestroy)),
                         kill_param_name);

}  // namespace
}  // namespace takyon::test::ucx
