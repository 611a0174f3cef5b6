// SPDX-License-Identifier: MIT
// Who owns a path ID: a second claim of a live endpoint fails; a dead process's leftovers do not block.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "fault/fault_common.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ids.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"

namespace takyon::test {
namespace {

class Ownership : public PathTest, public ::testing::WithParamInterface<const char*> {
 protected:
  [[nodiscard]] const char* provider() const { return GetParam(); }
};

// A claimer (a thread, or a separate process for InterProcess providers) tries to take side A
// while the first A waits in create, and side B once A and B are connected. Both claims fail
// promptly with a clear error; the real endpoints connect and work.
TEST_P(Ownership, SecondClaimOfASideFails) {
  const uint32_t id = new_id();
  const auto claim = [&](Endpoint& ep, bool side_a) {
    Attrs attrs(provider(), id, side_a, true, 1, 1, 256, 1.0);
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(attrs.get());
    const double elapsed = watch.seconds();
    const std::string error = take_string(attrs.attrs.error_message);
    const char* side = side_a ? "A" : "B";
    if (path != nullptr) {
      TK_ADD_FAILURE(ep) << "a second endpoint " << side << " was created for the same ID";
      std::free(takyonDestroy(&path));
      return;
    }
    TK_EXPECT(ep, elapsed < 0.8) << "the second claim of side " << side << " failed only after " << elapsed
                                 << " s (a timeout, not a clear error): " << error;
    TK_EXPECT_AR(ep, mentions_all(error, {std::to_string(id)})) << "the error must name the path";
    TK_EXPECT_AR(ep,
                 mentions_any(error, {"already", "in use", "exists", "another", "claimed", "busy", "twice"}))
        << "the error must say the endpoint is taken";
  };
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {  // The real endpoints A and B, as two threads of this process.
        PathHandle a;
        std::thread thread_a([&] {
          try {
            Attrs attrs(provider(), id, true, true, 1, 1, 256);
            a = create_path(ep, attrs);
          } catch (const EndpointAbort&) {
            // Recorded already.
          }
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // A waits in create now.
        ep.notify_peer();
        TK_EXPECT(ep, ep.wait_peer()) << "the claimer of side A did not finish";
        Attrs attrs(provider(), id, false, true, 1, 1, 256);
        PathHandle b;
        try {
          b = create_path(ep, attrs);
        } catch (...) {
          thread_a.join();
          throw;
        }
        thread_a.join();
        TK_ASSERT(ep, static_cast<bool>(a));
        ep.notify_peer();
        TK_EXPECT(ep, ep.wait_peer()) << "the claimer of side B did not finish";
        // The first A and B still work together.
        fill_message(a.get(), 0, 200, 0, 1);
        send_message(ep, a.get(), 0, 200);
        const Message got = recv_message(ep, b.get(), 0);
        TK_EXPECT(ep, got.bytes == 200);
        expect_message(ep, b.get(), 0, got, 1);
        std::thread destroy_a([&] { destroy_path(ep, a); });
        destroy_path(ep, b);
        destroy_a.join();
      },
      [&](Endpoint& ep) {  // The claimer.
        TK_ASSERT(ep, ep.wait_peer());
        claim(ep, true);
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer());
        claim(ep, false);
        ep.notify_peer();
      });
}

INSTANTIATE_TEST_SUITE_P(MemoryProviders, Ownership, ::testing::ValuesIn(memory_providers()),
                         provider_name_param_name);

// A message exchange on a fresh path with the given ID (A here, B in a child process).
void expect_path_works(const char* provider, uint32_t id) {
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs(provider, id, true, true, 1, 1, 512, 5.0);
        PathHandle path = create_path(ep, attrs);
        fill_message(path.get(), 0, 500, 0, 11);
        send_message(ep, path.get(), 0, 500);
        const Message got = recv_message(ep, path.get(), 0);
        expect_message(ep, path.get(), 0, got, 12);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider, id, false, true, 1, 1, 512, 5.0);
        PathHandle path = create_path(ep, attrs);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == 500);
        expect_message(ep, path.get(), 0, got, 11);
        fill_message(path.get(), 0, 500, 0, 12);
        send_message(ep, path.get(), 0, 500);
        destroy_path(ep, path);
      });
}

using StaleSharedMemory = Ownership;

// A process killed with -9 in the middle of a path leaves nothing in /dev/shm (its segment has no
// name) and holds no name once dead: a new path with the same ID is created at once.
TEST_P(StaleSharedMemory, KilledMidPathDoesNotBlockTheId) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, true, true, 1, 1, 512, 5.0);
        PathHandle path = create_path(ep, attrs);
        send_message(ep, path.get(), 0, 100);
        TK_ASSERT(ep, ep.wait_peer());
        (void)ep.kill_child();
        uint64_t bytes = 0;
        bool timed_out = false;
        TK_EXPECT(ep, !takyonRecv(path.get(), 0, &bytes, nullptr, &timed_out))
            << "recv from a dead peer succeeded";
        (void)path.destroy();
      },
      [&](Endpoint& ep) {
        Attrs attrs(provider(), id, false, true, 1, 1, 512, 5.0);
        PathHandle path = create_path(ep, attrs);
        (void)recv_message(ep, path.get(), 0);
        ep.notify_peer();
        for (;;) pause();
      });
  const auto stale = shm_entries_for_id(id);
  EXPECT_TRUE(stale.empty()) << "a killed endpoint left /dev/shm/" << stale.front();
  expect_path_works(provider(), id);
}

// The same for a process killed while waiting in create.
TEST_P(StaleSharedMemory, KilledDuringCreateDoesNotBlockTheId) {
  const uint32_t id = new_id();
  RunOptions options;
  options.child_is_a = true;
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {  // Child: claims A and waits for a B that never comes.
        Attrs attrs(provider(), id, true, true, 1, 1, 512, 30.0);
        ep.notify_peer();
        PathHandle path = create_path(ep, attrs);
        TK_ADD_FAILURE(ep) << "A was created without a B";
      },
      [&](Endpoint& ep) {
        TK_ASSERT(ep, ep.wait_peer());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        (void)ep.kill_child();
      },
      options);
  expect_path_works(provider(), id);
}

INSTANTIATE_TEST_SUITE_P(InterProcess, StaleSharedMemory, ::testing::ValuesIn(shared_memory_providers()),
                         provider_name_param_name);

}  // namespace
}  // namespace takyon::test
