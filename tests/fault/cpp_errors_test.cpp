// SPDX-License-Identifier: MIT
// C++ API errors: takyon::Error with the right status and message; the path then refuses further use.
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "fault/fault_common.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.hpp"

namespace takyon::test {
namespace {

using CppErrors = PathTest;

// Runs f, which must throw takyon::Error with `status`; returns what().
template <typename F>
std::string expect_error(Endpoint& ep, Status status, F&& f, const char* what) {
  try {
    f();
  } catch (const Error& e) {
    TK_EXPECT(ep, e.status() == status) << what << ": status " << status_name(e.status()) << ", expected "
                                        << status_name(status) << ": " << e.what();
    return e.what();
  } catch (const std::exception& e) {
    TK_ADD_FAILURE(ep) << what << ": threw something other than takyon::Error: " << e.what();
    return {};
  }
  TK_ADD_FAILURE(ep) << what << ": did not throw";
  return {};
}

PathOptions options(uint32_t id, bool a, const char* provider = "InterThreadMemcpy") {
  PathOptions o = PathOptions::symmetric(interconnect_for(provider, id, a), a, 2, 1024);
  o.timeouts.create = 5.0;
  o.timeouts.destroy = 2.0;
  return o;
}

TEST_F(CppErrors, ConstructorRejectsBadOptions) {
  run_single(true, [&](Endpoint& ep) {
    PathOptions o = options(new_id(), true);
    o.provider = "Bogus -ID=3";
    std::string what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "unknown provider");
    TK_EXPECT_AR(ep, mentions_all(what, {"Bogus"}));

    o = options(new_id(), true);
    o.send_bytes.clear();
    o.recv_bytes.clear();
    what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "no buffers");
    TK_EXPECT_AR(ep, mentions_all(what, {"nbufs"}));

    o = options(new_id(), true);
    o.send_addrs = {nullptr};  // One address for two buffers.
    (void)expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "send_addrs of the wrong length");

    o = options(new_id(), true);
    o.timeouts.recv_start = -3.0;
    what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "negative timeout");
    TK_EXPECT_AR(ep, mentions_any(what, {"recv_start"}));
  });
}

TEST_F(CppErrors, ConstructorRejectsBadProviderStrings) {
  run_single(true, [&](Endpoint& ep) {
    for (const char* provider : all_providers()) {
      for (const BadInterconnect& c : bad_interconnects(provider_name(provider))) {
        PathOptions o = options(new_id(), true, provider);
        o.provider = c.text;
        const std::string what = expect_error(
            ep, Status::kInvalidArgument, [&] { Path p(o); }, ("provider '" + c.text + "'").c_str());
        TK_EXPECT_AR(ep, mentions_all(what, c.all_of)) << "provider '" << c.text << "'";
        if (!c.any_of.empty()) {
          TK_EXPECT_AR(ep, mentions_any(what, c.any_of)) << "provider '" << c.text << "'";
        }
      }
    }
    PathOptions o = options(new_id(), true);
    o.provider = "InterThreadMemcpy -ID=1 " + std::string(1200, 'x');
    const std::string what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "1224-character provider");
    TK_EXPECT_AR(ep,
                 mentions_any(what, {"long", "1000", "999", "TAKYON_MAX_INTERCONNECT_CHARS", "characters"}));
  });
}

TEST_F(CppErrors, ConstructorRejectsBadTimeoutsAndAddresses) {
  run_single(true, [&](Endpoint& ep) {
    for (double Timeouts::*field : {&Timeouts::create, &Timeouts::send_start, &Timeouts::send_finish,
                                    &Timeouts::recv_start, &Timeouts::recv_finish, &Timeouts::destroy}) {
      for (const double bad : {-2.0, std::numeric_limits<double>::quiet_NaN()}) {
        PathOptions o = options(new_id(), true);
        o.timeouts.*field = bad;
        const std::string what = expect_error(
            ep, Status::kInvalidArgument, [&] { Path p(o); }, "bad timeout");
        TK_EXPECT_AR(ep, mentions_any(what, {"timeout"}));
      }
    }
    static std::byte memory[1024];
    PathOptions o = options(new_id(), true, "InterThreadPointer");
    o.send_addrs = {memory, nullptr};
    std::string what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "Pointer send address");
    TK_EXPECT_AR(ep, mentions_any(what, {"send"}));
    o = options(new_id(), true, "InterProcessMemcpy");
    o.recv_addrs = {nullptr, memory};
    what = expect_error(
        ep, Status::kInvalidArgument, [&] { Path p(o); }, "InterProcess recv address");
    TK_EXPECT_AR(ep, mentions_any(what, {"recv"}));
  });
}

// Both sides throw when the buffer counts differ, naming both counts.
TEST_F(CppErrors, MismatchedBufferCountsThrowOnBothSides) {
  const uint32_t id = new_id();
  const auto endpoint = [&](Endpoint& ep) {
    PathOptions o =
        PathOptions::symmetric(interconnect_for("InterThreadMemcpy", id, ep.is_a()), ep.is_a(), 1, 64);
    o.timeouts.create = 3.0;
    if (ep.is_a()) o.send_bytes.assign(11, 64);   // A->B: 11 on A ...
    if (!ep.is_a()) o.recv_bytes.assign(12, 64);  // ... 12 on B.
    const std::string what = expect_error(
        ep, Status::kProtocol, [&] { Path p(o); }, "nbufs mismatch");
    TK_EXPECT(ep, mentions_number(what, "11") && mentions_number(what, "12")) << what;
  };
  run_endpoints(Mode::kThreads, endpoint, endpoint);
}

// A send larger than the peer's receive buffer throws, naming both sizes.
TEST_F(CppErrors, SendPastPeerBufferThrows) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kThreads,
      [&](Endpoint& ep) {
        PathOptions o = options(id, true);
        Path path(o);
        const std::string what = expect_error(
            ep, Status::kInvalidArgument, [&] { (void)path.send(0, 777); }, "send");
        TK_EXPECT(ep, mentions_number(what, "777") && mentions_number(what, "555")) << what;
        ep.notify_peer();
      },
      [&](Endpoint& ep) {
        PathOptions o = options(id, false);
        o.recv_bytes = {555, 555};
        Path path(o);
        TK_EXPECT(ep, ep.wait_peer());
      });
}

TEST_F(CppErrors, ConstructorTimesOutWithoutPeer) {
  run_single(true, [&](Endpoint& ep) {
    PathOptions o = options(new_id(), true, "InterProcessMemcpy");
    o.timeouts.create = 0.2;
    const std::string what = expect_error(
        ep, Status::kTimeout, [&] { Path p(o); }, "create without a peer");
    TK_EXPECT_AR(ep, mentions_all(what, {"InterProcessMemcpy"}));
  });
}

// A bad call throws kInvalidArgument; later calls throw kFailedPath; destroy() still works.
TEST_F(CppErrors, BadCallsThrowAndFailThePath) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kThreads,
      [&](Endpoint& ep) {
        Path path(options(id, true));
        std::string what = expect_error(
            ep, Status::kInvalidArgument, [&] { (void)path.send(2, 10); }, "send(2)");
        TK_EXPECT_AR(ep, mentions_all(what, {"buffer"}));
        TK_EXPECT_AR(ep, mentions_any(what, {"send"}));
        what = expect_error(
            ep, Status::kFailedPath, [&] { (void)path.send(0, 10); }, "send on a failed path");
        TK_EXPECT_AR(ep, mentions_any(what, {"earlier", "failed"}));
        (void)expect_error(
            ep, Status::kFailedPath, [&] { (void)path.recv(0); }, "recv on a failed path");
        try {
          path.destroy();  // Forced after the error: no throw.
        } catch (const Error& e) {
          TK_ADD_FAILURE(ep) << "destroy() after an error threw: " << e.what();
        }
        ep.notify_peer();
      },
      [&](Endpoint& ep) {
        Path path(options(id, false));
        TK_EXPECT(ep, ep.wait_peer());
      });  // ~Path of B: A is gone; must not throw or hang.
}

TEST_F(CppErrors, MoreBadCalls) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kThreads,
      [&](Endpoint& ep) {
        {
          Path path(options(id, true));
          (void)expect_error(
              ep, Status::kInvalidArgument, [&] { (void)path.is_send_finished(0); },
              "is_send_finished on a blocking path");
        }
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer());
        {
          Path path(options(id, true));
          (void)expect_error(
              ep, Status::kInvalidArgument, [&] { (void)path.send(0, 2000); }, "send past the buffer");
        }
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer());
        {
          Path path(options(id, true));
          (void)expect_error(
              ep, Status::kInvalidArgument, [&] { (void)path.recv(-1); }, "recv(-1)");
        }
        ep.notify_peer();
      },
      [&](Endpoint& ep) {
        for (int i = 0; i < 3; ++i) {
          {
            Path path(options(id, false));
            TK_EXPECT(ep, ep.wait_peer());
          }
          if (i < 2) ep.notify_peer();
        }
      });
}

TEST_F(CppErrors, BufferAccessOutOfRangeThrows) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kThreads,
      [&](Endpoint& ep) {
        Path path(options(id, true));
        bool threw = false;
        try {
          (void)path.send_buffer(2);
        } catch (const std::exception&) {
          threw = true;
        }
        TK_EXPECT(ep, threw) << "send_buffer(2) with 2 buffers did not throw";
        threw = false;
        try {
          (void)path.recv_buffer(-1);
        } catch (const std::exception&) {
          threw = true;
        }
        TK_EXPECT(ep, threw) << "recv_buffer(-1) did not throw";
      },
      [&](Endpoint&) { Path path(options(id, false)); });
}

// Path::destroy() throws kTimeout when the peer never destroys; the path is gone either way.
TEST_F(CppErrors, DestroyThrowsOnTimeout) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kThreads,
      [&](Endpoint& ep) {
        PathOptions o = options(id, true);
        o.timeouts.destroy = 0.2;
        Path path(o);
        const std::string what = expect_error(
            ep, Status::kTimeout, [&] { path.destroy(); }, "destroy without peer");
        TK_EXPECT(ep, !path) << "the path must be gone after a failed destroy()";
        ep.notify_peer();
      },
      [&](Endpoint& ep) {
        Path path(options(id, false));
        TK_EXPECT(ep, ep.wait_peer());
      });
}

// recv() throws kDisconnected when the peer destroys its endpoint meanwhile.
TEST_F(CppErrors, RecvThrowsDisconnectedWhenPeerDestroys) {
  const uint32_t id = new_id();
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Path path(options(id, true, "InterProcessMemcpy"));
        ep.notify_peer();
        const std::string what = expect_error(
            ep, Status::kDisconnected, [&] { (void)path.recv(0); }, "recv while the peer destroys");
        TK_EXPECT_AR(ep, mentions_all(what, {"InterProcessMemcpy"}));
      },
      [&](Endpoint& ep) {
        Path path(options(id, false, "InterProcessMemcpy"));
        TK_ASSERT(ep, ep.wait_peer());
        try {
          path.destroy();
        } catch (const Error&) {
          // Either outcome is fine for the side that destroyed first.
        }
      });
}

TEST(CppStatus, NamesAreReadable) {
  for (const Status s :
       {Status::kOk, Status::kTimedOut, Status::kInvalidArgument, Status::kDisconnected, Status::kSystem,
        Status::kNoMemory, Status::kUnsupported, Status::kTimeout, Status::kProtocol, Status::kFailedPath}) {
    const char* name = status_name(s);
    ASSERT_NE(name, nullptr);
    EXPECT_GT(std::string(name).size(), 1u);
  }
  EXPECT_NE(std::string(status_name(Status::kDisconnected)), std::string(status_name(Status::kTimeout)));
}

}  // namespace
}  // namespace takyon::test
