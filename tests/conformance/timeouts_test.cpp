// SPDX-License-Identifier: MIT
// TwoSided: start timeouts (accurate, not errors, path stays usable), create/destroy timeouts, re-creation.
#include <cstdlib>
#include <string>

#include "conformance/two_sided.hpp"

namespace takyon::test {
namespace {

constexpr double kStartTimeout = 0.2;

TEST_P(TwoSided, RecvStartTimeoutIsAccurateAndPathStaysUsable) {
  const uint32_t id = new_id();
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 1024);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "B never reported its timed-out recv";
        fill_message(path.get(), 0, 1000, 0, 7);
        send_message(ep, path.get(), 0, 1000);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == 10);
        expect_message(ep, path.get(), 0, got, 8);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 1024);
        attrs.attrs.recv_start_timeout = kStartTimeout;
        PathHandle path = create_path(ep, attrs);
        bool timed_out = false;
        uint64_t bytes = 99;
        const Stopwatch watch;
        const bool ok = takyonRecv(path.get(), 0, &bytes, nullptr, &timed_out);
        const double elapsed = watch.seconds();
        TK_ASSERT(ep, ok) << "a recv start timeout is not an error: " << path_error(path.get());
        TK_EXPECT(ep, timed_out) << "takyonRecv returned a message nobody sent (" << bytes << " bytes)";
        TK_EXPECT(ep, fired_on_time(elapsed, kStartTimeout))
            << "recv_start_timeout " << kStartTimeout << " s took " << elapsed << " s";
        ep.notify_peer();
        // The path still works: the message sent now arrives intact (retry while it is on its way).
        Message got;
        for (int tries = 0;; ++tries) {
          TK_ASSERT(ep, takyonRecv(path.get(), 0, &got.bytes, &got.offset, &timed_out))
              << path_error(path.get());
          if (!timed_out) break;
          TK_ASSERT(ep, tries < 50) << "the message sent after the timeout never arrived";
        }
        TK_EXPECT(ep, got.bytes == 1000 && got.offset == 0) << got.bytes << " bytes at " << got.offset;
        expect_message(ep, path.get(), 0, got, 7);
        fill_message(path.get(), 0, 10, 0, 8);
        send_message(ep, path.get(), 0, 10);
        destroy_path(ep, path);
      });
}

// A send waits while the peer still holds an unreceived message in that buffer; expiry is not an
// error, sends nothing, and a later send on the same buffer works.
TEST_P(TwoSided, SendStartTimeoutIsAccurateAndPathStaysUsable) {
  const uint32_t id = new_id();
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 1024);
        attrs.attrs.send_start_timeout = kStartTimeout;
        PathHandle path = create_path(ep, attrs);
        fill_message(path.get(), 0, 600, 0, 1);
        send_message(ep, path.get(), 0, 600);
        // Memcpy: the send buffer is ours, refill it now; the timed-out send must not copy it.
        if (!pointer()) fill_message(path.get(), 0, 500, 0, 2);
        bool timed_out = false;
        const Stopwatch watch;
        const bool ok = takyonSend(path.get(), 0, 500, 0, 0, &timed_out);
        const double elapsed = watch.seconds();
        TK_ASSERT(ep, ok) << "a send start timeout is not an error: " << path_error(path.get());
        TK_EXPECT(ep, timed_out) << "the send did not wait for B to receive the previous message";
        TK_EXPECT(ep, fired_on_time(elapsed, kStartTimeout))
            << "send_start_timeout " << kStartTimeout << " s took " << elapsed << " s";
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer()) << "B never received the first message";
        if (pointer()) fill_message(path.get(), 0, 500, 0, 2);
        send_message(ep, path.get(), 0, 500);
        const Message got = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, got.bytes == 0);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 1024);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "A never reported its timed-out send";
        const Message first = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, first.bytes == 600 && first.offset == 0) << first.bytes << " bytes at " << first.offset;
        expect_message(ep, path.get(), 0, first, 1);
        ep.notify_peer();
        const Message second = recv_message(ep, path.get(), 0);
        TK_EXPECT(ep, second.bytes == 500 && second.offset == 0)
            << second.bytes << " bytes at " << second.offset;
        expect_message(ep, path.get(), 0, second, 2);
        send_message(ep, path.get(), 0, 0);
        destroy_path(ep, path);
      });
}

TEST_P(TwoSided, CreateTimeoutWithoutPeerNamesTheProvider) {
  constexpr double kTimeout = 0.3;
  const uint32_t id = new_id();
  for (const bool endpoint_a : {true, false}) {
    Attrs attrs(provider(), id, endpoint_a, polling(), 1, 1, 64);
    attrs.attrs.path_create_timeout = kTimeout;
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(attrs.get());
    const double elapsed = watch.seconds();
    EXPECT_EQ(path, nullptr) << "created endpoint " << (endpoint_a ? "A" : "B") << " without a peer";
    if (path != nullptr) std::free(takyonDestroy(&path));
    const std::string error = take_string(attrs.attrs.error_message);
    const std::string interconnect = interconnect_for(provider(), id, endpoint_a);
    EXPECT_NE(error.find(interconnect), std::string::npos)
        << "error does not name '" << interconnect << "': " << error;
    EXPECT_TRUE(fired_on_time(elapsed, kTimeout))
        << "path_create_timeout " << kTimeout << " s took " << elapsed << " s";
  }
}

TEST_P(TwoSided, DestroyTimeoutWhenPeerNeverDestroys) {
  constexpr double kTimeout = 0.3;
  const uint32_t id = new_id();
  run(
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 64);
        attrs.attrs.path_destroy_timeout = kTimeout;
        PathHandle path = create_path(ep, attrs);
        const Stopwatch watch;
        const std::string error = path.destroy();
        const double elapsed = watch.seconds();
        ep.notify_peer();
        TK_EXPECT(ep, !error.empty()) << "takyonDestroy returned NULL although B never destroyed";
        TK_EXPECT(ep, fired_on_time(elapsed, kTimeout))
            << "path_destroy_timeout " << kTimeout << " s took " << elapsed << " s; error: " << error;
      },
      [&](Endpoint& ep) {
        Attrs attrs = attrs_for(id, ep, 1, 1, 64);
        attrs.attrs.path_destroy_timeout = 1.0;
        PathHandle path = create_path(ep, attrs);
        TK_EXPECT(ep, ep.wait_peer()) << "A's destroy never returned";
        (void)path.destroy();  // A is gone by now; only that this returns matters.
      });
}

// Both endpoints destroy, agree (outside Takyon) that both are gone, and create the same ID again.
TEST_P(TwoSided, RecreateSameIdAfterBothDestroyed) {
  const uint32_t id = new_id();
  constexpr int kTimes = 5;
  const auto endpoint = [&](Endpoint& ep) {
    for (int t = 0; t < kTimes; ++t) {
      Attrs attrs = attrs_for(id, ep, 1, 1, 256);
      PathHandle path = create_path(ep, attrs);
      const uint64_t tag = (ep.is_a() ? 0 : 1) + 2 * static_cast<uint64_t>(t);
      fill_message(path.get(), 0, 200, 0, tag);
      send_message(ep, path.get(), 0, 200);
      const Message got = recv_message(ep, path.get(), 0);
      TK_EXPECT(ep, got.bytes == 200) << "creation " << t;
      expect_message(ep, path.get(), 0, got, tag ^ 1);
      destroy_path(ep, path);
      ep.notify_peer();
      TK_ASSERT(ep, ep.wait_peer()) << "peer did not finish destroy " << t;
    }
  };
  run(endpoint, endpoint);
}

// The header promises more than the contract: "can be created again as soon as this returns",
// without waiting for the peer's destroy to return too.
TEST_P(TwoSided, RecreateSameIdRightAfterDestroyReturns) {
  const uint32_t id = new_id();
  constexpr int kTimes = 5;
  const auto endpoint = [&](Endpoint& ep) {
    for (int t = 0; t < kTimes; ++t) {
      Attrs attrs = attrs_for(id, ep, 1, 1, 256);
      PathHandle path = create_path(ep, attrs);
      const uint64_t tag = (ep.is_a() ? 0 : 1) + 2 * static_cast<uint64_t>(t);
      fill_message(path.get(), 0, 200, 0, tag);
      send_message(ep, path.get(), 0, 200);
      const Message got = recv_message(ep, path.get(), 0);
      TK_EXPECT(ep, got.bytes == 200) << "creation " << t;
      expect_message(ep, path.get(), 0, got, tag ^ 1);
      destroy_path(ep, path);
    }
  };
  run(endpoint, endpoint);
}

}  // namespace
}  // namespace takyon::test
