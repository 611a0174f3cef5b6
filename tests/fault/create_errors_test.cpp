// SPDX-License-Identifier: MIT
// takyonCreate() rejects bad interconnect strings and attributes at once, naming what is wrong.
#include <cmath>
#include <cstdlib>
#include <cstring>
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

// Stores an out-of-range enum value, as a C caller could; written bytewise so this C++ code
// never loads an invalid enum value itself (UBSan's -fsanitize=enum would flag that).
void set_invalid_method(TakyonCompletionMethod* field, int value) {
  static_assert(sizeof(*field) == sizeof(value));
  std::memcpy(field, &value, sizeof(value));
}

class CreateErrors : public PathTest, public ::testing::WithParamInterface<const char*> {
 protected:
  [[nodiscard]] const char* provider() const { return GetParam(); }
  /// Endpoint A alone, 2 buffers each way of 64 bytes.
  [[nodiscard]] Attrs attrs(uint32_t id) const { return Attrs(provider(), id, true, true, 2, 2, 64, 3.0); }

  /// takyonCreate() must fail at once (no waiting for a peer) with an error message.
  static std::string create_error(Attrs& attrs, TakyonPathAttributes* raw = nullptr) {
    TakyonPathAttributes* a = raw != nullptr ? raw : attrs.get();
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(a);
    const double elapsed = watch.seconds();
    if (path != nullptr) {
      ADD_FAILURE() << "takyonCreate accepted the bad attributes";
      std::free(takyonDestroy(&path));
      return {};
    }
    EXPECT_LT(elapsed, 1.0) << "rejecting bad attributes should not wait for a peer";
    std::string error = take_string(a->error_message);
    a->error_message = nullptr;
    EXPECT_FALSE(error.empty()) << "takyonCreate returned NULL without an error_message";
    return error;
  }
};

TEST_P(CreateErrors, BadInterconnectStrings) {
  const std::vector<BadInterconnect> cases = bad_interconnects(provider_name(provider()));
  for (const BadInterconnect& c : cases) {
    SCOPED_TRACE("interconnect '" + c.text + "'");
    Attrs a = attrs(new_id());
    a.set_interconnect(c.text);
    const std::string error = create_error(a);
    EXPECT_TRUE(mentions_all(error, c.all_of));
    if (!c.any_of.empty()) {
      EXPECT_TRUE(mentions_any(error, c.any_of));
    }
  }
}

TEST_P(CreateErrors, InterconnectWithoutTerminatingNul) {
  Attrs a = attrs(new_id());
  std::memset(a.attrs.interconnect, 'x', sizeof(a.attrs.interconnect));
  const std::string error = create_error(a);
  EXPECT_TRUE(mentions_any(error, {"terminat", "NUL", "TAKYON_MAX_INTERCONNECT_CHARS", "1000"}));
  EXPECT_TRUE(mentions_any(error, {"interconnect"}));
}

TEST_P(CreateErrors, BadBufferCounts) {
  {
    SCOPED_TRACE("both nbufs 0");
    Attrs a = attrs(new_id());
    a.attrs.nbufs_AtoB = 0;
    a.attrs.nbufs_BtoA = 0;
    EXPECT_TRUE(mentions_all(create_error(a), {"nbufs"}));
  }
  {
    SCOPED_TRACE("nbufs_AtoB -1");
    Attrs a = attrs(new_id());
    a.attrs.nbufs_AtoB = -1;
    const std::string error = create_error(a);
    EXPECT_TRUE(mentions_all(error, {"nbufs_AtoB", "-1"}));
  }
  {
    SCOPED_TRACE("nbufs_BtoA -7");
    Attrs a = attrs(new_id());
    a.attrs.nbufs_BtoA = -7;
    EXPECT_TRUE(mentions_all(create_error(a), {"nbufs_BtoA", "-7"}));
  }
}

TEST_P(CreateErrors, NullListsWhereEntriesAreNeeded) {
  const std::vector<std::pair<const char*, std::function<void(TakyonPathAttributes*)>>> cases = {
      {"sender_max_bytes_list", [](TakyonPathAttributes* a) { a->sender_max_bytes_list = nullptr; }},
      {"recver_max_bytes_list", [](TakyonPathAttributes* a) { a->recver_max_bytes_list = nullptr; }},
      {"sender_addr_list", [](TakyonPathAttributes* a) { a->sender_addr_list = nullptr; }},
      {"recver_addr_list", [](TakyonPathAttributes* a) { a->recver_addr_list = nullptr; }},
  };
  for (const auto& [field, clear] : cases) {
    SCOPED_TRACE(field);
    Attrs a = attrs(new_id());
    TakyonPathAttributes* raw = a.get();
    clear(raw);
    EXPECT_TRUE(mentions_all(create_error(a, raw), {field}));
  }
}

// With no buffers in a direction, that direction's lists are not read and may be NULL.
TEST_P(CreateErrors, NullListsAllowedWithoutEntries) {
  const uint32_t id = new_id();
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {
        Attrs a(provider(), id, true, true, 1, 0, 64);
        PathHandle path = create_path(ep, a);  // recv lists are NULL (no B->A buffers).
        fill_message(path.get(), 0, 64, 0, 5);
        send_message(ep, path.get(), 0, 64);
        TK_ASSERT(ep, ep.wait_peer());
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs a(provider(), id, false, true, 1, 0, 64);  // send lists are NULL.
        PathHandle path = create_path(ep, a);
        const Message got = recv_message(ep, path.get(), 0);
        expect_message(ep, path.get(), 0, got, 5);
        ep.notify_peer();
        destroy_path(ep, path);
      });
}

TEST_P(CreateErrors, BadCompletionMethods) {
  {
    Attrs a = attrs(new_id());
    set_invalid_method(&a.attrs.send_completion_method, 7);
    EXPECT_TRUE(mentions_all(create_error(a), {"send_completion_method"}));
  }
  {
    Attrs a = attrs(new_id());
    a.attrs.recv_completion_method = TAKYON_USE_IS_SEND_FINISHED;
    EXPECT_TRUE(mentions_all(create_error(a), {"recv_completion_method"}));
  }
  {
    Attrs a = attrs(new_id());
    set_invalid_method(&a.attrs.recv_completion_method, -3);
    EXPECT_TRUE(mentions_all(create_error(a), {"recv_completion_method"}));
  }
}

TEST_P(CreateErrors, BadTimeouts) {
  const std::vector<std::pair<const char*, double TakyonPathAttributes::*>> fields = {
      {"path_create_timeout", &TakyonPathAttributes::path_create_timeout},
      {"send_start_timeout", &TakyonPathAttributes::send_start_timeout},
      {"send_finish_timeout", &TakyonPathAttributes::send_finish_timeout},
      {"recv_start_timeout", &TakyonPathAttributes::recv_start_timeout},
      {"recv_finish_timeout", &TakyonPathAttributes::recv_finish_timeout},
      {"path_destroy_timeout", &TakyonPathAttributes::path_destroy_timeout},
  };
  for (const auto& [name, field] : fields) {
    for (const double bad : {-2.5, -0.5, std::numeric_limits<double>::quiet_NaN()}) {
      SCOPED_TRACE(std::string(name) + " = " + std::to_string(bad));
      Attrs a = attrs(new_id());
      a.attrs.*field = bad;
      const std::string error = create_error(a);
      EXPECT_TRUE(mentions_all(error, {name}));
      if (bad == -2.5) {
        EXPECT_TRUE(mentions_all(error, {"-2.5"}));
      }
    }
  }
}

TEST_P(CreateErrors, ApplicationAddressesWhereTheProviderOwnsTheMemory) {
  alignas(64) static uint8_t memory[64];
  if (is_pointer(provider())) {
    SCOPED_TRACE("Pointer sender address");
    Attrs a = attrs(new_id());
    a.send_addrs[1] = reinterpret_cast<size_t>(memory);
    EXPECT_TRUE(mentions_all(create_error(a), {"sender_addr_list"}));
  }
  if (is_inter_process(provider())) {
    SCOPED_TRACE("InterProcess receiver address");
    Attrs a = attrs(new_id());
    a.recv_addrs[0] = reinterpret_cast<size_t>(memory);
    EXPECT_TRUE(mentions_all(create_error(a), {"recver_addr_list"}));
  }
}

// Both endpoints must agree on the buffer counts: both creates fail, naming both values.
TEST_P(CreateErrors, MismatchedBufferCountsFailOnBothSides) {
  const uint32_t id = new_id();
  const auto endpoint = [&](Endpoint& ep) {
    Attrs a(provider(), id, ep.is_a(), true, ep.is_a() ? 11 : 12, 1, 0, 3.0);
    const Stopwatch watch;
    TakyonPath* path = takyonCreate(a.get());
    const double elapsed = watch.seconds();
    const std::string error = take_string(a.attrs.error_message);
    if (path != nullptr) {
      TK_ADD_FAILURE(ep) << "endpoint " << ep.name()
                         << " was created although A has 11 A->B buffers and B 12";
      std::free(takyonDestroy(&path));
      return;
    }
    TK_EXPECT(ep, elapsed < 2.0) << "the mismatch was found only after " << elapsed << " s: " << error;
    TK_EXPECT(ep, mentions_number(error, "11") && mentions_number(error, "12"))
        << "the error does not name both nbufs_AtoB values (11, 12): " << error;
  };
  run_endpoints(mode_for(provider()), endpoint, endpoint);
}

// Pointer: the sender's buffer is the receiver's, so it may not be larger.
TEST_P(CreateErrors, PointerSenderLargerThanReceiver) {
  if (!is_pointer(provider())) GTEST_SKIP() << "Memcpy providers allow any sizes per side";
  const uint32_t id = new_id();
  run_endpoints(
      mode_for(provider()),
      [&](Endpoint& ep) {
        Attrs a(provider(), id, true, true, 1, 1, 2222, 3.0);
        TakyonPath* path = takyonCreate(a.get());
        const std::string error = take_string(a.attrs.error_message);
        if (path != nullptr) {
          TK_ADD_FAILURE(ep) << "A (send 2222 bytes) connected to B (recv 1111 bytes)";
          std::free(takyonDestroy(&path));
          return;
        }
        TK_EXPECT(ep, mentions_number(error, "2222") && mentions_number(error, "1111"))
            << "the error does not name both sizes: " << error;
      },
      [&](Endpoint&) {
        Attrs a(provider(), id, false, true, 1, 1, 1111, 3.0);
        TakyonPath* path = takyonCreate(a.get());
        std::free(a.attrs.error_message);
        if (path != nullptr) std::free(takyonDestroy(&path));
      });
}

INSTANTIATE_TEST_SUITE_P(AllProviders, CreateErrors, ::testing::ValuesIn(all_providers()),
                         provider_name_param_name);

}  // namespace
}  // namespace takyon::test
