// SPDX-License-Identifier: MIT
// What a Takyon socket endpoint does with a peer that completes the greeting and then misbehaves:
// closes in the middle of a message, names a buffer that does not exist, overflows a buffer,
// sends an unknown frame, returns a credit it never got. The fake peer writes the wire format
// by hand (little-endian), so these tests also pin the format down.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test {
namespace {

struct Frame {
  uint32_t type;
  uint32_t buffer;
  uint64_t bytes;
  uint64_t offset;
  uint32_t ncredits;
  uint32_t credit0;
  uint32_t piggyback;
  uint32_t reserved;
};
static_assert(sizeof(Frame) == 40);

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// Plays endpoint A (one 4096-byte buffer each way): greeting, verdict, then `after` bytes, then close.
void fake_endpoint_a(int listener, const std::vector<char>& after) {
  const int fd = accept(listener, nullptr, nullptr);
  if (fd < 0) return;
  std::vector<char> greeting(24 + 16);
  std::memcpy(greeting.data(), "TAKYONS2", 8);
  const uint32_t header[4] = {'A', 1, 1, 0};
  std::memcpy(greeting.data() + 8, header, sizeof(header));
  const uint64_t sizes[2] = {4096, 4096};
  std::memcpy(greeting.data() + 24, sizes, sizeof(sizes));
  std::vector<char> theirs(24 + 16);
  std::vector<char> verdict(256, 0);
  std::memcpy(verdict.data(), "TAKYONOK", 8);
  std::vector<char> their_verdict(256);
  if (write_all(fd, greeting.data(), greeting.size()) && read_all(fd, theirs.data(), theirs.size()) &&
      write_all(fd, verdict.data(), verdict.size()) &&
      read_all(fd, their_verdict.data(), their_verdict.size())) {
    (void)write_all(fd, after.data(), after.size());
  }
  close(fd);
}

std::vector<char> frame_bytes(const Frame& f, size_t payload = 0) {
  std::vector<char> out(sizeof(f) + payload, 'x');
  std::memcpy(out.data(), &f, sizeof(f));
  return out;
}

struct WireCase {
  const char* name;
  std::vector<char> after;
  std::vector<std::string> words;
};

class WireFaults : public ::testing::TestWithParam<bool> {};

TEST_P(WireFaults, ReceiverReportsEachAndDeliversNothing) {
  const std::vector<WireCase> cases = {
      {"closes mid-message",
       frame_bytes({1, 0, 1000, 0, 0, 0, 0, 0}, 100),
       {"middle of a message", "100 of 1000"}},
      {"closes mid-header", std::vector<char>(10, 'h'), {"middle of a frame header"}},
      {"closes without a close frame", {}, {"without destroying"}},
      {"buffer out of range", frame_bytes({1, 5, 10, 0, 0, 0, 0, 0}, 10), {"buffer 5"}},
      {"overflows the buffer",
       frame_bytes({1, 0, 4000, 200, 0, 0, 0, 0}, 10),
       {"4000", "offset 200", "4096"}},
      {"unknown frame type", frame_bytes({12, 0, 0, 0, 0, 0, 0, 0}), {"unknown type 12"}},
      {"a one-sided reply nobody asked for", frame_bytes({9, 0, 8, 0, 0, 0, 0, 0}, 8), {"no request"}},
      {"a one-sided write past the buffer",
       frame_bytes({6, 0, 4000, 200, 0, 0, 0, 0}, 10),
       {"one-sided request", "4000", "offset 200"}},
      {"an atomic of an unknown kind", frame_bytes({8, 0, 7, 0, 0, 0, 0, 0}, 16), {"one-sided request"}},
      {"credit never owed", frame_bytes({2, 0, 0, 0, 1, 0, 0, 0}), {"credit", "send buffer 0"}},
      {"more credits than buffers", frame_bytes({2, 0, 0, 0, 7, 0, 0, 0}), {"7 credits"}},
  };
  for (const WireCase& c : cases) {
    SCOPED_TRACE(c.name);
    RawSocket listener(SOCK_STREAM);
    const uint16_t port = listener.bind_loopback();
    ASSERT_NE(port, 0);
    ASSERT_EQ(listen(listener.fd(), 1), 0);
    std::thread fake([&] { fake_endpoint_a(listener.fd(), c.after); });

    Attrs attrs("Socket", 0, false, GetParam(), 1, 1, 4096, 3.0);
    attrs.set_interconnect("Socket -client -IP=127.0.0.1 -port=" + std::to_string(port));
    TakyonPath* path = takyonCreate(attrs.get());
    const std::string create_error = take_string(attrs.attrs.error_message);
    if (path == nullptr) {
      fake.join();
      FAIL() << "create failed against the fake endpoint A: " << create_error;
    }
    std::memset(recv_buffer(path, 0), 0x5A, 4096);
    uint64_t bytes = 77777;
    uint64_t offset = 88888;
    bool timed_out = false;
    const Stopwatch watch;
    const bool ok = takyonRecv(path, 0, &bytes, &offset, &timed_out);
    const double elapsed = watch.seconds();
    const std::string error = path_error(path);
    EXPECT_FALSE(ok) << "the receiver accepted a broken stream";
    EXPECT_FALSE(timed_out);
    EXPECT_LT(elapsed, 1.0) << "the fault was noticed only after " << elapsed << " s";
    EXPECT_EQ(bytes, 77777u) << "a failed receive must not report a message";
    EXPECT_EQ(offset, 88888u);
    for (const std::string& word : c.words) {
      EXPECT_NE(error.find(word), std::string::npos) << "the error does not mention '" << word << "':\n"
                                                     << error;
    }
    std::free(takyonDestroy(&path));
    fake.join();
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, WireFaults, ::testing::Bool(), polling_param_name);

}  // namespace
}  // namespace takyon::test
