// SPDX-License-Identifier: MIT
// Disconnect detection: a peer process SIGKILLed, or a peer endpoint destroyed, while this side waits.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fault/fault_common.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"

namespace takyon::test {
namespace {

// kRecvPolled: takyonRecv with a zero recv_start_timeout, called in a loop (how MPI polls a path).
enum class WaitIn { kRecv, kRecvZombiePeer, kRecvPolled, kSend, kDestroy, kOneSided };

const char* wait_in_name(WaitIn where) {
  switch (where) {
    case WaitIn::kRecv:
      return "Recv";
    case WaitIn::kRecvZombiePeer:
      return "RecvZombiePeer";
    case WaitIn::kRecvPolled:
      return "RecvPolled";
    case WaitIn::kSend:
      return "Send";
    case WaitIn::kDestroy:
      return "Destroy";
    case WaitIn::kOneSided:
      return "OneSided";
  }
  return "?";
}

using DisconnectParam = std::tuple<const char*, bool, WaitIn>;

std::string disconnect_param_name(const ::testing::TestParamInfo<DisconnectParam>& info) {
  const auto& [provider, polling, where] = info.param;
  return std::string(provider) + (polling ? "_Polling_" : "_Event_") + wait_in_name(where);
}

class Disconnect : public PathTest, public ::testing::WithParamInterface<DisconnectParam> {
 protected:
  [[nodiscard]] const char* provider() const { return std::get<0>(GetParam()); }
  [[nodiscard]] bool polling() const { return std::get<1>(GetParam()); }
  [[nodiscard]] WaitIn where() const { return std::get<2>(GetParam()); }
};

// What the waiting call returned.
struct Outcome {
  bool ok = true;
  bool timed_out = false;
  std::string error;
  double returned_at = 0;
};

// Makes the call this test waits in: recv on an empty buffer, send on a buffer the peer never
// emptied (the first send filled it), or a graceful destroy the peer never answers.
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
    case WaitIn::kRecvPolled: {
      // Each call returns at once; the disconnect must still show within the budget (bounded here
      // so that a miss fails instead of hanging).
      uint64_t bytes = 0;
      const double give_up = now_s() + 3.0;
      do {
        out.timed_out = false;
        out.ok = takyonRecv(path.get(), 0, &bytes, nullptr, &out.timed_out);
      } while (out.ok && out.timed_out && now_s() < give_up);
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
    case WaitIn::kOneSided:  // KilledPeerOneSided runs its own loop
      break;
  }
  out.returned_at = now_s();
  return out;
}

void expect_disconnect_error(Endpoint& ep, const Outcome& out, double latency, WaitIn where) {
  ::testing::Test::RecordProperty("latency_us", static_cast<int>(latency * 1e6));  // In the XML report.
  TK_EXPECT(ep, !out.ok) << wait_in_name(where) << " returned success after the peer went away"
                         << (out.timed_out ? " (timed out)" : "");
  TK_EXPECT(ep, latency >= 0) << wait_in_name(where) << " returned " << -latency
                              << " s before the peer went away: " << out.error;
  TK_EXPECT(ep, latency <= kDisconnectBudget)
      << wait_in_name(where) << " returned " << latency * 1000 << " ms after the peer went away (budget "
      << kDisconnectBudget * 1000 << " ms)";
  TK_EXPECT_AR(ep,
               mentions_any(out.error, {"peer", "disconnect", "exited", "died", "gone", "destroy", "closed"}))
      << "the error does not say the peer went away";
}

// After the error only a forced destroy remains: NULL, without waiting for anybody.
void expect_forced_destroy(Endpoint& ep, PathHandle& path) {
  const Stopwatch watch;
  const std::string error = path.destroy();
  TK_EXPECT(ep, error.empty()) << "destroy after an error must be forced and return NULL: " << error;
  TK_EXPECT(ep, watch.seconds() < 0.5) << "forced destroy took " << watch.seconds() << " s";
}

// ---- Peer process killed with SIGKILL (InterProcess providers).

using KilledPeer = Disconnect;

TEST_P(KilledPeer, WaitingCallFailsPromptly) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, polling(), 1, 1, 1024, 5.0);
        if (where() == WaitIn::kRecvPolled) attrs.attrs.recv_start_timeout = 0;
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "B never got ready";
        if (where() == WaitIn::kSend) send_message(ep, path.get(), 0, 100);  // Fills B's only buffer.
        std::atomic<double> killed_at{0};
        std::thread killer([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          killed_at.store(ep.kill_child(where() != WaitIn::kRecvZombiePeer));
        });
        const Outcome out = wait_in(where(), path);
        killer.join();
        expect_disconnect_error(ep, out, out.returned_at - killed_at.load(), where());
        if (path) expect_forced_destroy(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, polling(), 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        ep.notify_peer();
        for (;;) pause();  // Never receives, never destroys: waits for SIGKILL.
      });
}

INSTANTIATE_TEST_SUITE_P(InterProcess, KilledPeer,
                         ::testing::Combine(::testing::ValuesIn(shared_memory_providers()), ::testing::Bool(),
                                            ::testing::Values(WaitIn::kRecv, WaitIn::kRecvZombiePeer,
                                                              WaitIn::kRecvPolled, WaitIn::kSend,
                                                              WaitIn::kDestroy)),
                         disconnect_param_name);

// ---- Peer process killed with SIGKILL during one-sided operations (every provider that has them
// between processes): a mapped peer buffer stays mapped, a carried operation waits for an answer;
// either way the call must fail within the budget.

using OneSidedParam = std::tuple<const char*, bool>;

class KilledPeerOneSided : public PathTest, public ::testing::WithParamInterface<OneSidedParam> {};

std::vector<const char*> one_sided_process_providers() {
  std::vector<const char*> out;
  for (const char* label : all_providers()) {
    const TakyonProviderInfo* info = config_of(label).info;
    if (info->one_sided && info->reach >= TAKYON_REACH_PROCESSES) out.push_back(label);
  }
  return out;
}

TEST_P(KilledPeerOneSided, OneSidedCallsFailPromptly) {
  const auto& [provider, polling] = GetParam();
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs(provider, id, true, polling, 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "B never got ready";
        std::atomic<double> killed_at{0};
        std::thread killer([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          killed_at.store(ep.kill_child(true));
        });
        // Writes and atomics until one fails (bounded: a miss fails instead of hanging).
        Outcome out;
        const double give_up = now_s() + 5.0;
        uint64_t n = 0;
        while (out.ok && now_s() < give_up) {
          out.ok = (++n & 1) != 0 ? takyonWrite(path.get(), 0, 64, 0, 0)
                                  : takyonAtomicFetchAdd(path.get(), 0, 512, 1, nullptr);
        }
        out.error = path_error(path.get());
        out.returned_at = now_s();
        killer.join();
        expect_disconnect_error(ep, out, out.returned_at - killed_at.load(), WaitIn::kOneSided);
        if (path) expect_forced_destroy(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider, id, false, polling, 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        ep.notify_peer();
        for (;;) pause();  // Outside the library until SIGKILL: carried operations wait for it.
      });
}

std::string one_sided_param_name(const ::testing::TestParamInfo<OneSidedParam>& info) {
  return std::string(std::get<0>(info.param)) + (std::get<1>(info.param) ? "_Polling" : "_Event");
}

INSTANTIATE_TEST_SUITE_P(Processes, KilledPeerOneSided,
                         ::testing::Combine(::testing::ValuesIn(one_sided_process_providers()),
                                            ::testing::Bool()),
                         one_sided_param_name);

// ---- Peer endpoint destroyed (gracefully) while this side waits (every provider).

using PeerDestroys = Disconnect;

TEST_P(PeerDestroys, WaitingCallFailsPromptly) {
  const uint32_t id = new_id();
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, polling(), 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "B never got ready";
        if (where() == WaitIn::kSend) send_message(ep, path.get(), 0, 100);
        ep.notify_peer();  // B destroys 150 ms from now.
        const Outcome out = wait_in(where(), path);
        double destroyed_at = 0;
        TK_ASSERT(ep, ep.wait_peer(kDefaultTimeout, &destroyed_at)) << "B never destroyed";
        expect_disconnect_error(ep, out, out.returned_at - destroyed_at, where());
        if (path) expect_forced_destroy(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, polling(), 1, 1, 1024, 5.0);
        PathHandle path = create_path(ep, attrs);
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer());
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        ep.notify_peer(now_s());
        const Stopwatch watch;
        (void)path.destroy();  // Graceful; its result depends on how A ends, only its duration matters.
        TK_EXPECT(ep, watch.seconds() < 1.0)
            << "B's destroy took " << watch.seconds() << " s although A failed and destroyed right away";
      });
}

INSTANTIATE_TEST_SUITE_P(AllProviders, PeerDestroys,
                         ::testing::Combine(::testing::ValuesIn(all_providers()), ::testing::Bool(),
                                            ::testing::Values(WaitIn::kRecv, WaitIn::kSend)),
                         disconnect_param_name);

}  // namespace
}  // namespace takyon::test
