// SPDX-License-Identifier: MIT
// The forms a Ucx message takes on its way, each checked byte for byte at the receiver: over
// shared memory with the map protocol a message of up to 40 bytes travels inside the mailbox slot
// and larger ones in the peer's buffer; with -protocol=am a small message rides in the active
// message while a larger one is copied into the peer's mapped buffer by the sender and only the
// header follows (application receive buffers cannot be mapped: there every size goes through
// UCX). Every size across both limits, at odd offsets, in both buffers, both ways; the bytes
// around each message must stay as the receiver left them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "takyon/takyon.h"

namespace takyon::test::ucx {
namespace {

constexpr uint64_t kFormBufferBytes = 128 * 1024;
constexpr int kFormBuffers = 2;
constexpr unsigned char kFormGuard = 0xe7;

struct Form {
  const char* name;
  const char* extra;      ///< appended to "Ucx -ID=<n> -tls=sysv,posix"
  bool app_recv_buffers;  ///< endpoint B's receive buffers are the application's (not mappable)
};

void PrintTo(const Form& f, std::ostream* os) {
  *os << f.name;
}

const Form kForms[] = {
    {"Map", "", false},
    {"Am", " -protocol=am", false},
    {"AmApplicationReceiveBuffers", " -protocol=am", true},
};

// Sizes on both sides of the inline limit (40) and of the am protocol's placement limit (256).
const uint64_t kFormSizes[] = {0, 1, 7, 8, 39, 40, 41, 64, 255, 256, 257, 1000, 4096, 70000};

class UcxMessageForms : public PathTest, public ::testing::WithParamInterface<std::tuple<Form, bool>> {};

// The receive buffer's bytes outside [offset, offset + bytes) must still be the guard.
void expect_guard_kept(Endpoint& ep, const unsigned char* buffer, uint64_t offset, uint64_t bytes) {
  const uint64_t before = offset >= 64 ? offset - 64 : 0;
  const uint64_t after = std::min<uint64_t>(offset + bytes + 64, kFormBufferBytes);
  for (uint64_t i = before; i < after; ++i) {
    if (i >= offset && i < offset + bytes) continue;
    if (buffer[i] != kFormGuard) {
      TK_EXPECT(ep, false) << "byte " << i << " outside the message (" << bytes << " bytes at offset "
                           << offset << ") changed to " << static_cast<unsigned>(buffer[i]);
      return;
    }
  }
}

TEST_P(UcxMessageForms, EverySizeAcrossTheLimitsArrivesExactly) {
  const auto& [form, polling] = GetParam();
  const uint32_t id = new_id();
  const auto endpoint = [&, form = form, polling = polling](Endpoint& ep) {
    Attrs attrs("Ucx", id, ep.is_a(), polling, kFormBuffers, kFormBuffers, kFormBufferBytes, 5.0);
    attrs.set_interconnect("Ucx -ID=" + std::to_string(id) + " -tls=sysv,posix" + form.extra);
    std::vector<std::unique_ptr<void, decltype(&std::free)>> owned;  // outlives the path
    if (form.app_recv_buffers && !ep.is_a()) {
      for (size_t& addr : attrs.recv_addrs) {
        owned.emplace_back(std::aligned_alloc(4096, kFormBufferBytes), &std::free);
        addr = reinterpret_cast<size_t>(owned.back().get());
      }
    }
    PathHandle path = create_path(ep, attrs);
    auto recv_bytes = [&](int buffer) {
      return reinterpret_cast<unsigned char*>(path.get()->attrs.recver_addr_list[buffer]);
    };
    for (int buffer = 0; buffer < kFormBuffers; ++buffer)
      std::memset(recv_bytes(buffer), kFormGuard, kFormBufferBytes);
    uint64_t tag = 0;
    for (const uint64_t bytes : kFormSizes) {
      for (int buffer = 0; buffer < kFormBuffers; ++buffer) {
        // Odd offsets, different on each side of the copy; every size fits after them.
        const uint64_t src = 3 + 5 * static_cast<uint64_t>(buffer);
        const uint64_t dest = 4093 - 64 * static_cast<uint64_t>(buffer);
        ++tag;
        auto take = [&](uint64_t message) {
          const Message got = recv_message(ep, path.get(), buffer);
          TK_EXPECT(ep, got.bytes == bytes && got.offset == dest) << got.bytes << " bytes at " << got.offset;
          expect_message(ep, path.get(), buffer, got, message);
          expect_guard_kept(ep, recv_bytes(buffer), dest, bytes);
          // The peer writes this buffer again only after our reply: restore the guard first.
          std::memset(recv_bytes(buffer), kFormGuard, kFormBufferBytes);
        };
        if (ep.is_a()) {
          fill_message(path.get(), buffer, bytes, src, tag);
          send_message(ep, path.get(), buffer, bytes, src, dest);
          take(tag + 1000);
        } else {
          take(tag);
          fill_message(path.get(), buffer, bytes, src, tag + 1000);
          send_message(ep, path.get(), buffer, bytes, src, dest);
        }
      }
    }
    destroy_path(ep, path);
  };
  run_endpoints(Mode::kProcesses, endpoint, endpoint);
}

std::string form_param_name(const ::testing::TestParamInfo<std::tuple<Form, bool>>& param) {
  return std::string(std::get<0>(param.param).name) + (std::get<1>(param.param) ? "_Polling" : "_Event");
}

INSTANTIATE_TEST_SUITE_P(Ucx, UcxMessageForms,
                         ::testing::Combine(::testing::ValuesIn(kForms), ::testing::Bool()), form_param_name);

}  // namespace
}  // namespace takyon::test::ucx
