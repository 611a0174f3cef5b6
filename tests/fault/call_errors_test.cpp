// SPDX-License-Identifier: MIT
// Bad send/recv/isSendFinished calls fail with a clear message, fail the path, and leave destroy working.
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fault/fault_common.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"

namespace takyon::test {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kSendSize = 1536;
constexpr uint64_t kSmallRecv = 555;  // Memcpy: B's receive buffer 1 is smaller than A's send buffer 1.

struct CallCase {
  std::string name;
  bool memcpy_only = false;
  bool pointer_only = false;
  bool nonblocking = false;               // A sends with TAKYON_USE_IS_SEND_FINISHED.
  bool finite_timeouts = true;            // false: every timeout TAKYON_WAIT_FOREVER.
  std::function<bool(TakyonPath*)> call;  // Makes the bad call (after any legal set-up); its result.
  std::vector<std::string> operation;     // The error names one of these operations.
  std::vector<std::string> all_of;        // ... and all of these words.
};

std::vector<CallCase> call_cases() {
  const auto send = [](int buf, uint64_t bytes, uint64_t src, uint64_t dest) {
    return [=](TakyonPath* p) {
      bool timed_out = false;
      return takyonSend(p, buf, bytes, src, dest, &timed_out);
    };
  };
  const std::vector<std::string> kSend = {"takyonSend"};
  const std::vector<std::string> kRecv = {"takyonRecv"};
  const std::vector<std::string> kFinished = {"takyonIsSendFinished", "takyonSendTest"};
  std::vector<CallCase> c;
  c.push_back({"send buffer -1", false, false, false, true, send(-1, 10, 0, 0), kSend, {"buffer", "-1"}});
  c.push_back({"send buffer nbufs", false, false, false, true, send(2, 10, 0, 0), kSend, {"buffer"}});
  c.push_back({"recv buffer -1",
               false,
               false,
               false,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonRecv(p, -1, nullptr, nullptr, &to);
               },
               kRecv,
               {"buffer", "-1"}});
  c.push_back({"recv buffer nbufs",
               false,
               false,
               false,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonRecv(p, 2, nullptr, nullptr, &to);
               },
               kRecv,
               {"buffer"}});
  c.push_back({"isSendFinished buffer -1",
               false,
               false,
               true,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonIsSendFinished(p, -1, &to);
               },
               kFinished,
               {"buffer", "-1"}});
  c.push_back({"sendTest buffer nbufs",
               false,
               false,
               true,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonSendTest(p, 2, &to);
               },
               kFinished,
               {"buffer"}});
  c.push_back({"bytes past the send buffer",
               false,
               false,
               false,
               true,
               send(0, kSendSize + 1, 0, 0),
               kSend,
               {"1536", "1537"}});
  c.push_back({"bytes + src_offset past the send buffer (Memcpy)",
               true,
               false,
               false,
               true,
               send(0, 1000, 600, 0),
               kSend,
               {"1536", "src_offset"}});
  c.push_back({"bytes + src_offset past the send buffer (Pointer)",
               false,
               true,
               false,
               true,
               send(0, 1000, 600, 600),
               kSend,
               {"1536"}});
  c.push_back({"bytes + dest_offset past the peer's receive buffer",
               true,
               false,
               false,
               true,
               send(1, 777, 0, 0),
               kSend,
               {"555", "777"}});
  c.push_back({"dest_offset past the peer's receive buffer",
               true,
               false,
               false,
               true,
               send(1, 10, 0, 550),
               kSend,
               {"555", "dest_offset"}});
  c.push_back({"src_offset overflows uint64",
               true,
               false,
               false,
               true,
               send(0, 16, kMax - 8, 0),
               kSend,
               {"src_offset"}});
  c.push_back({"dest_offset overflows uint64",
               true,
               false,
               false,
               true,
               send(0, 16, 0, kMax - 8),
               kSend,
               {"dest_offset"}});
  c.push_back({"both offsets overflow uint64 (Pointer)",
               false,
               true,
               false,
               true,
               send(0, 16, kMax - 8, kMax - 8),
               kSend,
               {"offset"}});
  c.push_back({"bytes overflow uint64", false, false, false, true, send(0, kMax, 16, 16), kSend, {}});
  c.push_back({"Pointer src_offset != dest_offset",
               false,
               true,
               false,
               true,
               send(0, 10, 0, 16),
               kSend,
               {"src_offset", "dest_offset"}});
  c.push_back({"isSendFinished on a blocking path",
               false,
               false,
               false,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonIsSendFinished(p, 0, &to);
               },
               kFinished,
               {"send_completion_method"}});
  c.push_back({"isSendFinished without a pending send",
               false,
               false,
               true,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 return takyonIsSendFinished(p, 0, &to);
               },
               kFinished,
               {}});
  c.push_back({"send again before isSendFinished",
               false,
               false,
               true,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 if (!takyonSend(p, 0, 10, 0, 0, &to) || to) return true;  // The legal first send must work.
                 return takyonSend(p, 0, 10, 0, 0, &to);
               },
               kSend,
               {}});
  c.push_back({"send with timed_out_ret NULL and finite timeouts",
               false,
               false,
               false,
               true,
               [](TakyonPath* p) { return takyonSend(p, 0, 10, 0, 0, nullptr); },
               kSend,
               {"timed_out_ret"}});
  c.push_back({"recv with timed_out_ret NULL and finite timeouts",
               false,
               false,
               false,
               true,
               [](TakyonPath* p) { return takyonRecv(p, 0, nullptr, nullptr, nullptr); },
               kRecv,
               {"timed_out_ret"}});
  c.push_back({"isSendFinished with timed_out_ret NULL and a finite timeout",
               false,
               false,
               true,
               true,
               [](TakyonPath* p) {
                 bool to = false;
                 if (!takyonSend(p, 0, 10, 0, 0, &to) || to) return true;
                 return takyonIsSendFinished(p, 0, nullptr);
               },
               kFinished,
               {"timed_out_ret"}});
  return c;
}

class CallErrors : public PathTest, public ::testing::WithParamInterface<const char*> {
 protected:
  [[nodiscard]] const char* provider() const { return GetParam(); }
};

// Each case on a fresh path: the bad call fails naming the operation and the problem; the path is
// then failed (send/recv say so), and destroy is forced and quick; the peer can still destroy.
TEST_P(CallErrors, BadCallsFailThePathCleanly) {
  std::vector<CallCase> cases;
  for (CallCase& c : call_cases()) {
    if (c.memcpy_only && is_pointer(provider())) continue;
    if (c.pointer_only && !is_pointer(provider())) continue;
    cases.push_back(std::move(c));
  }
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < cases.size(); ++i) ids.push_back(new_id());
  const auto attrs_for = [&](const CallCase& c, uint32_t id, bool a) {
    Attrs attrs(provider(), id, a, true, 2, 2, kSendSize, 5.0);
    if (!c.finite_timeouts) attrs.set_timeouts(TAKYON_WAIT_FOREVER);
    attrs.attrs.path_create_timeout = 5.0;
    attrs.attrs.path_destroy_timeout = 2.0;
    if (a && c.nonblocking) attrs.attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED;
    if (!a && !is_pointer(provider())) attrs.recv_bytes[1] = kSmallRecv;
    return attrs;
  };
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {
        for (size_t i = 0; i < cases.size(); ++i) {
          const CallCase& c = cases[i];
          Attrs attrs = attrs_for(c, ids[i], true);
          PathHandle path = create_path(ep, attrs);
          const bool ok = c.call(path.get());
          const std::string error = path_error(path.get());
          TK_EXPECT(ep, !ok) << "[" << c.name << "] the call succeeded";
          if (!ok) {
            TK_EXPECT_AR(ep, mentions_any(error, c.operation)) << "[" << c.name << "]";
            TK_EXPECT_AR(ep, mentions_all(error, c.all_of)) << "[" << c.name << "]";
            TK_EXPECT_AR(ep, mentions_all(error, {provider_name(provider())}))
                << "[" << c.name << "] the error must name the path";
            bool timed_out = false;
            TK_EXPECT(ep, !takyonSend(path.get(), 0, 0, 0, 0, &timed_out))
                << "[" << c.name << "] send on a failed path";
            TK_EXPECT_AR(ep,
                         mentions_any(path_error(path.get()), {"earlier", "failed path", "already failed"}))
                << "[" << c.name << "] send on a failed path";
            TK_EXPECT(ep, !takyonRecv(path.get(), 0, nullptr, nullptr, &timed_out))
                << "[" << c.name << "] recv on a failed path";
            TK_EXPECT_AR(ep,
                         mentions_any(path_error(path.get()), {"earlier", "failed path", "already failed"}))
                << "[" << c.name << "] recv on a failed path";
          }
          const Stopwatch watch;
          const std::string destroy_error = path.destroy();
          TK_EXPECT(ep, destroy_error.empty() || ok)
              << "[" << c.name << "] destroy after an error: " << destroy_error;
          TK_EXPECT(ep, watch.seconds() < 0.5)
              << "[" << c.name << "] forced destroy took " << watch.seconds() << " s";
          ep.notify_peer();
          TK_ASSERT(ep, ep.wait_peer()) << "[" << c.name << "] B did not finish";
        }
      },
      [&](Endpoint& ep) {
        for (size_t i = 0; i < cases.size(); ++i) {
          const CallCase& c = cases[i];
          Attrs attrs = attrs_for(c, ids[i], false);
          PathHandle path = create_path(ep, attrs);
          TK_ASSERT(ep, ep.wait_peer()) << "[" << c.name << "] A did not finish";
          const Stopwatch watch;
          (void)path.destroy();  // A is gone; the result may be an error, but it must not hang.
          TK_EXPECT(ep, watch.seconds() < 1.0)
              << "[" << c.name << "] B's destroy after A's forced destroy took " << watch.seconds() << " s";
          ep.notify_peer();
        }
      });
}

// NULL timed_out_ret is fine when every timeout is TAKYON_WAIT_FOREVER.
TEST_P(CallErrors, NullTimedOutRetAllowedWhenWaitingForever) {
  const uint32_t id = new_id();
  const auto make = [&](bool a) {
    Attrs attrs(provider(), id, a, true, 1, 1, 64, TAKYON_WAIT_FOREVER);
    attrs.attrs.path_create_timeout = 5.0;
    attrs.attrs.path_destroy_timeout = 5.0;
    if (a) attrs.attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED;
    return attrs;
  };
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {
        Attrs attrs = make(true);
        PathHandle path = create_path(ep, attrs);
        TK_EXPECT(ep, takyonSend(path.get(), 0, 8, 0, 0, nullptr)) << path_error(path.get());
        TK_EXPECT(ep, takyonIsSendFinished(path.get(), 0, nullptr)) << path_error(path.get());
        uint64_t bytes = 1;
        TK_EXPECT(ep, takyonRecv(path.get(), 0, &bytes, nullptr, nullptr)) << path_error(path.get());
        TK_EXPECT(ep, bytes == 0);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = make(false);
        PathHandle path = create_path(ep, attrs);
        uint64_t bytes = 0;
        uint64_t offset = 1;
        TK_EXPECT(ep, takyonRecv(path.get(), 0, &bytes, &offset, nullptr)) << path_error(path.get());
        TK_EXPECT(ep, bytes == 8 && offset == 0);
        TK_EXPECT(ep, takyonSend(path.get(), 0, 0, 0, 0, nullptr)) << path_error(path.get());
        destroy_path(ep, path);
      });
}

INSTANTIATE_TEST_SUITE_P(AllProviders, CallErrors, ::testing::ValuesIn(all_providers()),
                         provider_name_param_name);

// Calls with a NULL path fail (destroy returns an error string) and say why on stderr.
TEST(NullPath, CallsFailAndDestroyReturnsAnError) {
  bool timed_out = false;
  uint64_t bytes = 0;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(takyonSend(nullptr, 0, 0, 0, 0, &timed_out));
  const std::string send_err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(mentions_all(send_err, {"takyonSend"})) << "stderr should say why takyonSend failed";
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(takyonRecv(nullptr, 0, &bytes, nullptr, &timed_out));
  EXPECT_FALSE(takyonIsSendFinished(nullptr, 0, &timed_out));
  EXPECT_FALSE(takyonSendTest(nullptr, 0, &timed_out));
  const std::string other_err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(mentions_all(other_err, {"takyonRecv"}));
  EXPECT_TRUE(mentions_any(other_err, {"takyonIsSendFinished", "takyonSendTest"}));
  const std::string destroy_null_ret = take_string(takyonDestroy(nullptr));
  EXPECT_FALSE(destroy_null_ret.empty()) << "takyonDestroy(NULL) must return an error string";
  TakyonPath* path = nullptr;
  const std::string destroy_null_path = take_string(takyonDestroy(&path));
  EXPECT_FALSE(destroy_null_path.empty()) << "takyonDestroy(&NULL) must return an error string";
  EXPECT_TRUE(mentions_any(destroy_null_path, {"NULL", "null"}));
}

TEST(NullPath, CreateWithNullAttributesFails) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(takyonCreate(nullptr), nullptr);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(mentions_all(err, {"takyonCreate"})) << "stderr should say why takyonCreate failed";
}

}  // namespace
}  // namespace takyon::test
