// SPDX-License-Identifier: MIT
// TwoSided through the C++ API (takyon::Path, std::span buffers), and the verbosity output.
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "conformance/two_sided.hpp"
#include "takyon/takyon.hpp"
#include "takyon/takyon_providers.h"

namespace takyon::test {
namespace {

void fill_span(std::span<std::byte> span, uint64_t message, int buffer) {
  fill_pattern(span.data(), span.size(), message, buffer);
}

std::string check_span(std::span<const std::byte> span, uint64_t message, int buffer) {
  return check_pattern(span.data(), span.size(), message, buffer);
}

TEST_P(TwoSided, CppApiRoundTrip) {
  const uint32_t id = new_id();
  constexpr std::uint64_t kBytes = 8192;
  const auto options_for = [&](const Endpoint& ep) {
    PathOptions options =
        PathOptions::symmetric(interconnect_for(provider(), id, ep.is_a()), ep.is_a(), 2, kBytes);
    options.polling = polling();
    options.timeouts.send_start = kDefaultTimeout;
    options.timeouts.recv_start = kDefaultTimeout;
    return options;
  };
  run(
      [&](Endpoint& ep) {
        Path created(options_for(ep));
        Path path(std::move(created));  // Moving keeps the endpoint.
        TK_EXPECT(ep, !created);
        TK_ASSERT(ep, static_cast<bool>(path));
        TK_EXPECT(ep, path.send_buffer_count() == 2 && path.recv_buffer_count() == 2)
            << path.send_buffer_count() << "/" << path.recv_buffer_count();
        TK_EXPECT(ep, path.send_buffer(1).size() == kBytes && path.recv_buffer(0).size() == kBytes);
        TK_ASSERT(ep, path.c_path() != nullptr);
        TK_EXPECT(ep, path.c_path()->attrs.is_endpointA && path.c_path()->attrs.nbufs_AtoB == 2);
        TK_EXPECT(ep,
                  path.send_buffer(1).data() == reinterpret_cast<std::byte*>(send_buffer(path.c_path(), 1)));
        for (int r = 0; r < 5; ++r) {
          fill_span(path.send_buffer(1).first(5000), 2 * r, 1);
          TK_ASSERT(ep, path.send(1, 5000));
          const std::optional<Received> got = path.recv(0);
          TK_ASSERT(ep, got.has_value()) << "recv timed out";
          TK_EXPECT(ep, got->bytes == 3000 && got->offset == 100)
              << got->bytes << " bytes at " << got->offset;
          const std::string bad =
              check_span(path.recv_buffer(0).subspan(got->offset, got->bytes), 2 * r + 1, 0);
          TK_EXPECT(ep, bad.empty()) << bad;
        }
        path.destroy();
        TK_EXPECT(ep, !path);
      },
      [&](Endpoint& ep) {
        Path path(options_for(ep));
        const std::uint64_t src = pointer() ? 100 : 0;
        for (int r = 0; r < 5; ++r) {
          const std::optional<Received> got = path.recv(1);
          TK_ASSERT(ep, got.has_value()) << "recv timed out";
          TK_EXPECT(ep, got->bytes == 5000 && got->offset == 0) << got->bytes << " bytes at " << got->offset;
          const std::string bad = check_span(path.recv_buffer(1).subspan(got->offset, got->bytes), 2 * r, 1);
          TK_EXPECT(ep, bad.empty()) << bad;
          fill_span(path.send_buffer(0).subspan(src, 3000), 2 * r + 1, 0);
          TK_ASSERT(ep, path.send(0, 3000, src, 100));
        }
        path.destroy();
      });
}

// Start timeouts are return values in C++: send() -> false, recv() -> std::nullopt. The
// destructor destroys gracefully.
// One-sided operations through the C++ API: write, read and the atomics move what they should,
// and a provider without them throws kUnsupported naming itself.
TEST_P(TwoSided, CppApiOneSided) {
  const uint32_t id = new_id();
  constexpr std::uint64_t kBytes = 4096;
  const auto options_for = [&](const Endpoint& ep) {
    PathOptions options =
        PathOptions::symmetric(interconnect_for(provider(), id, ep.is_a()), ep.is_a(), 1, kBytes);
    options.polling = polling();
    return options;
  };
  const TakyonProviderInfo* info = takyonFindProvider(provider_name(provider()).c_str());
  const bool one_sided = info != nullptr && info->one_sided;
  run(
      [&](Endpoint& ep) {
        Path path(options_for(ep));
        if (!one_sided) {
          try {
            path.write(0, 8);
            TK_FAIL(ep) << "write succeeded on a provider without one-sided operations";
          } catch (const Error& e) {
            TK_EXPECT(ep, e.status() == Status::kUnsupported) << status_name(e.status());
            TK_EXPECT(ep, std::string(e.what()).find("has no one-sided operations") != std::string::npos)
                << e.what();
          }
          ep.notify_peer();
          return;  // the failed path is destroyed (forced) by ~Path
        }
        fill_span(path.send_buffer(0).first(512), 7, 0);
        path.write(0, 512, 0, 1024);
        TK_EXPECT(ep, path.atomic_fetch_add(0, 2048, 5) == 0);
        TK_EXPECT(ep, path.atomic_fetch_add(0, 2048, 5) == 5);
        TK_EXPECT(ep, path.atomic_compare_swap(0, 2056, 0, 9) == 0);
        path.read(0, 512, 3072, 1024);
        const std::string bad = check_span(path.send_buffer(0).subspan(3072, 512), 7, 0);
        TK_EXPECT(ep, bad.empty()) << bad;
        // Started, then finished: the write lands and the fetched value arrives by the finish.
        fill_span(path.send_buffer(0).subspan(2560, 256), 8, 0);
        path.write_start(0, 256, 2560, 2560);
        std::uint64_t old = 99;
        path.atomic_fetch_add_start(0, 2048, 1, &old);
        while (!path.is_one_sided_finished()) {
        }
        TK_EXPECT(ep, old == 10) << "the started fetch-add found " << old;
        path.send(0, 8, 3584, 3584);  // done: B, inside recv() meanwhile, may look
        TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint B";
        path.destroy();
      },
      [&](Endpoint& ep) {
        Path path(options_for(ep));
        if (one_sided) {
          // In a call while A works: a socket provider carries A's operations out in here.
          (void)path.recv(0);
          const std::string bad = check_span(path.recv_buffer(0).subspan(1024, 512), 7, 0);
          TK_EXPECT(ep, bad.empty()) << bad;
          std::uint64_t words[2] = {0, 0};
          std::memcpy(words, path.recv_buffer(0).data() + 2048, sizeof words);
          TK_EXPECT(ep, words[0] == 11 && words[1] == 9) << words[0] << ", " << words[1];
          const std::string started = check_span(path.recv_buffer(0).subspan(2560, 256), 8, 0);
          TK_EXPECT(ep, started.empty()) << "the started write: " << started;
          ep.notify_peer();
          path.destroy();
          return;
        }
        TK_EXPECT(ep, ep.wait_peer()) << "no word from endpoint A";
        try {
          path.destroy();  // A's path failed and went forced: a socket provider reports the abrupt end
        } catch (const Error&) {
        }
      });
}

TEST_P(TwoSided, CppApiStartTimeoutsAreReturnValues) {
  const uint32_t id = new_id();
  const auto options_for = [&](const Endpoint& ep) {
    PathOptions options =
        PathOptions::symmetric(interconnect_for(provider(), id, ep.is_a()), ep.is_a(), 1, 256);
    options.polling = polling();
    options.timeouts.send_start = 0.05;
    options.timeouts.recv_start = 0.05;
    return options;
  };
  run(
      [&](Endpoint& ep) {
        Path path(options_for(ep));
        TK_EXPECT(ep, !path.recv(0).has_value()) << "recv returned a message nobody sent";
        TK_ASSERT(ep, path.send(0, 10));
        TK_EXPECT(ep, !path.send(0, 20)) << "send did not time out although B holds an unreceived message";
        ep.notify_peer();
        TK_ASSERT(ep, ep.wait_peer());
        bool sent = false;
        for (int tries = 0; tries < 100 && !sent; ++tries) sent = path.send(0, 20);
        TK_EXPECT(ep, sent);
        TK_ASSERT(ep, ep.wait_peer());
      },
      [&](Endpoint& ep) {
        Path path(options_for(ep));
        TK_ASSERT(ep, ep.wait_peer());
        std::optional<Received> got = path.recv(0);
        TK_ASSERT(ep, got.has_value() && got->bytes == 10) << "first message";
        ep.notify_peer();
        for (int tries = 0; tries < 100 && !got; ++tries) got = path.recv(0);
        got.reset();
        for (int tries = 0; tries < 100 && !got; ++tries) got = path.recv(0);
        TK_EXPECT(ep, got.has_value() && got->bytes == 20) << "second message";
        ep.notify_peer();
      });
}

// Verbosity output goes to stdout and mentions the provider. Both endpoints run as threads of
// this process (InterProcess providers allow that too) so gtest can capture the output.
TEST_P(TwoSided, VerbosityPrintsMentionTheProvider) {
  const uint32_t id = new_id();
  const auto endpoint = [&](Endpoint& ep) {
    Attrs attrs = attrs_for(id, ep, 1, 1, 64);
    attrs.attrs.verbosity = TAKYON_VERBOSITY_ERRORS | TAKYON_VERBOSITY_CREATE_DESTROY |
                            TAKYON_VERBOSITY_CREATE_DESTROY_MORE | TAKYON_VERBOSITY_SEND_RECV |
                            TAKYON_VERBOSITY_SEND_RECV_MORE;
    PathHandle path = create_path(ep, attrs);
    if (ep.is_a()) {
      send_message(ep, path.get(), 0, 8);
    } else {
      (void)recv_message(ep, path.get(), 0);
    }
    destroy_path(ep, path);
  };
  ::testing::internal::CaptureStdout();
  run_endpoints(Mode::kThreads, endpoint, endpoint);
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string interconnect = interconnect_for(provider(), id, true);
  EXPECT_NE(out.find(interconnect), std::string::npos)
      << "stdout does not mention '" << interconnect << "':\n"
      << out;
  EXPECT_NE(out.find(std::to_string(id)), std::string::npos) << "stdout does not mention the ID:\n" << out;
}

TEST_P(TwoSided, NoVerbosityPrintsNothing) {
  const uint32_t id = new_id();
  const auto endpoint = [&](Endpoint& ep) {
    Attrs attrs = attrs_for(id, ep, 1, 1, 64);
    PathHandle path = create_path(ep, attrs);
    if (ep.is_a()) {
      send_message(ep, path.get(), 0, 8);
    } else {
      (void)recv_message(ep, path.get(), 0);
    }
    destroy_path(ep, path);
  };
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  run_endpoints(Mode::kThreads, endpoint, endpoint);
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace takyon::test
