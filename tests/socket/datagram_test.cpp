// SPDX-License-Identifier: MIT
// Connectionless providers on loopback: unicast and multicast streams counted with sequence
// numbers (loss, duplicates, reordering) with every received byte checked; size limits; and
// plain UDP programs (Python, socat) talking to Takyon endpoints both ways.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/byte_pattern.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/path_test.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test {
namespace {

constexpr uint64_t kMaxDatagram = 65507;

// A sender (endpoint A, one A->B buffer) or receiver (endpoint B, `nbufs` A->B buffers).
Attrs datagram_attrs(const std::string& text, bool sender, bool polling, uint64_t bytes, int nbufs = 1) {
  Attrs attrs("Socket", 0, sender, polling, nbufs, 0, bytes);
  attrs.set_interconnect(text);
  return attrs;
}

uint64_t size_of(uint64_t seq) {
  return 8 + (seq * 7919) % (kMaxDatagram - 8);
}

void fill_datagram(TakyonPath* path, uint64_t seq, uint64_t bytes) {
  uint8_t* data = send_buffer(path, 0);
  std::memcpy(data, &seq, 8);
  fill_pattern(data + 8, bytes - 8, seq, 0);
}

struct StreamCount {
  uint64_t received = 0;
  uint64_t duplicates = 0;
  uint64_t reordered = 0;
  uint64_t bad = 0;
  std::string first_bad;
};

// Receives until `quiet_s` passes without a datagram; checks each one's length and bytes.
StreamCount receive_stream(Endpoint& ep, TakyonPath* path, uint64_t count, double quiet_s) {
  StreamCount out;
  std::vector<char> seen(count, 0);
  uint64_t highest = 0;
  const int nbufs = path->attrs.nbufs_AtoB;
  for (int k = 0;; ++k) {
    const int buffer = k % nbufs;
    uint64_t bytes = 0;
    bool timed_out = false;
    TK_ASSERT(ep, takyonRecv(path, buffer, &bytes, nullptr, &timed_out)) << path_error(path);
    if (timed_out) break;
    const uint8_t* data = recv_buffer(path, buffer);
    uint64_t seq = UINT64_MAX;
    if (bytes >= 8) std::memcpy(&seq, data, 8);
    std::string problem;
    if (seq >= count) {
      problem = "sequence number " + std::to_string(seq) + " out of range";
    } else if (bytes != size_of(seq)) {
      problem = "message " + std::to_string(seq) + " has " + std::to_string(bytes) + " bytes, sent " +
                std::to_string(size_of(seq));
    } else {
      problem = check_pattern(data + 8, bytes - 8, seq, 0);
    }
    if (!problem.empty()) {
      if (out.bad++ == 0) out.first_bad = problem;
      continue;
    }
    if (seen[seq] != 0) {
      ++out.duplicates;
      continue;
    }
    seen[seq] = 1;
    ++out.received;
    if (seq < highest) ++out.reordered;
    highest = std::max(highest, seq);
    (void)quiet_s;
  }
  return out;
}

void send_stream(Endpoint& ep, TakyonPath* path, uint64_t count) {
  for (uint64_t seq = 0; seq < count; ++seq) {
    const uint64_t bytes = size_of(seq);
    fill_datagram(path, seq, bytes);
    send_message(ep, path, 0, bytes);
    if (seq % 4 == 3) std::this_thread::sleep_for(std::chrono::microseconds(300));  // let receivers keep up
  }
}

void expect_stream(Endpoint& ep, const StreamCount& c, uint64_t count, const char* who) {
  std::printf("%s: %llu of %llu received, %llu lost, %llu duplicated, %llu reordered, %llu bad\n", who,
              static_cast<unsigned long long>(c.received), static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(count - c.received),
              static_cast<unsigned long long>(c.duplicates), static_cast<unsigned long long>(c.reordered),
              static_cast<unsigned long long>(c.bad));
  std::fflush(stdout);  // the receiver may be a forked child that leaves with _exit()
  TK_EXPECT(ep, c.bad == 0) << who << ": " << c.bad << " corrupt or partial messages; first: " << c.first_bad;
  TK_EXPECT(ep, c.duplicates == 0) << who << ": loopback does not duplicate";
  TK_EXPECT(ep, c.received * 2 >= count) << who << ": only " << c.received << " of " << count << " arrived";
}

class Datagram : public PathTest, public ::testing::WithParamInterface<bool> {
 protected:
  [[nodiscard]] bool polling() const { return GetParam(); }
};

TEST_P(Datagram, UnicastStreamArrivesWholeAndCounted) {
  constexpr uint64_t kCount = 400;
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs =
            datagram_attrs("UnicastSendSocket -IP=127.0.0.1 -port=" + port, true, polling(), kMaxDatagram);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "the receiver never got ready";
        send_stream(ep, path.get(), kCount);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        Attrs attrs = datagram_attrs("UnicastRecvSocket -IP=127.0.0.1 -port=" + port, false, polling(),
                                     kMaxDatagram, 2);
        attrs.attrs.recv_start_timeout = 0.5;
        PathHandle path = create_path(ep, attrs);
        ep.notify_peer();
        expect_stream(ep, receive_stream(ep, path.get(), kCount, 0.5), kCount, "unicast receiver");
        destroy_path(ep, path);
      });
}

TEST_P(Datagram, MulticastReachesEveryReceiver) {
  constexpr uint64_t kCount = 300;
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  const std::string group = unique_group();
  const std::string recv_text =
      "MulticastRecvSocket -IP=127.0.0.1 -group=" + group + " -port=" + port + " -reuse";
  run_endpoints(
      Mode::kProcesses,
      [&](Endpoint& ep) {
        Attrs attrs = datagram_attrs("MulticastSendSocket -IP=127.0.0.1 -group=" + group + " -port=" + port,
                                     true, polling(), kMaxDatagram);
        PathHandle path = create_path(ep, attrs);
        TK_ASSERT(ep, ep.wait_peer()) << "the receivers never got ready";
        send_stream(ep, path.get(), kCount);
        destroy_path(ep, path);
      },
      [&](Endpoint& ep) {
        // Two receivers in this process, on the same group and port.
        Attrs first_attrs = datagram_attrs(recv_text, false, polling(), kMaxDatagram, 2);
        Attrs second_attrs = datagram_attrs(recv_text, false, polling(), kMaxDatagram, 2);
        first_attrs.attrs.recv_start_timeout = 0.5;
        second_attrs.attrs.recv_start_timeout = 0.5;
        PathHandle first = create_path(ep, first_attrs);
        PathHandle second = create_path(ep, second_attrs);
        ep.notify_peer();
        StreamCount second_count;
        std::thread other([&] {
          try {
            second_count = receive_stream(ep, second.get(), kCount, 0.5);
          } catch (const EndpointAbort&) {
          }
        });
        const StreamCount first_count = receive_stream(ep, first.get(), kCount, 0.5);
        other.join();
        expect_stream(ep, first_count, kCount, "multicast receiver 1");
        expect_stream(ep, second_count, kCount, "multicast receiver 2");
        destroy_path(ep, first);
        destroy_path(ep, second);
      });
}

// -noLoopback (IP_MULTICAST_LOOP off) cannot be seen on lo: the loopback device hands every
// packet it sends back to this host. The netns suite checks it on a veth.

INSTANTIATE_TEST_SUITE_P(Modes, Datagram, ::testing::Bool(), polling_param_name);

// ----- limits ----------------------------------------------------------------------------------

std::string failed_send(const std::string& text, uint64_t bytes, uint64_t dest_offset) {
  Attrs attrs = datagram_attrs(text, true, true, 70000);
  TakyonPath* path = takyonCreate(attrs.get());
  if (path == nullptr) return "create failed: " + take_string(attrs.attrs.error_message);
  bool timed_out = false;
  const bool ok = takyonSend(path, 0, bytes, 0, dest_offset, &timed_out);
  std::string error = ok ? "" : path_error(path);
  std::free(takyonDestroy(&path));
  return ok ? "the send was accepted" : error;
}

TEST(DatagramLimits, OversizeAndOffsetSendsAreRejected) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  const std::string unicast = "UnicastSendSocket -IP=127.0.0.1 -port=" + port;
  const std::string multicast =
      "MulticastSendSocket -IP=127.0.0.1 -group=" + unique_group() + " -port=" + port;
  for (const std::string& text : {unicast, multicast}) {
    SCOPED_TRACE(text);
    std::string error = failed_send(text, kMaxDatagram + 1, 0);
    EXPECT_NE(error.find("65508 bytes"), std::string::npos) << error;
    EXPECT_NE(error.find("at most 65507"), std::string::npos) << error;
    error = failed_send(text, 100, 8);
    EXPECT_NE(error.find("dest_offset"), std::string::npos) << error;
  }
}

TEST(DatagramLimits, DatagramLargerThanTheReceiveBufferIsReportedNotTruncated) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  Endpoint ep(true, false, 0, -1, -1);
  Attrs recv_attrs = datagram_attrs("UnicastRecvSocket -IP=127.0.0.1 -port=" + port, false, true, 1000);
  Attrs send_attrs = datagram_attrs("UnicastSendSocket -IP=127.0.0.1 -port=" + port, true, true, 2000);
  PathHandle receiver = create_path(ep, recv_attrs);
  PathHandle sender = create_path(ep, send_attrs);
  send_message(ep, sender.get(), 0, 2000);
  uint64_t bytes = 12345;
  bool timed_out = false;
  EXPECT_FALSE(takyonRecv(receiver.get(), 0, &bytes, nullptr, &timed_out));
  const std::string error = path_error(receiver.get());
  EXPECT_NE(error.find("2000 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("holds 1000"), std::string::npos) << error;
  EXPECT_EQ(bytes, 12345u) << "a truncated datagram must not be reported as a message";
  destroy_path(ep, sender);
  (void)receiver.destroy();
  EXPECT_TRUE(ep.ok());
}

// ----- plain UDP programs on the other side ---------------------------------------------------

// Runs `command` through the shell, returns its standard output; exit status in *status.
std::string run_command(const std::string& command, int* status) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *status = -1;
    return {};
  }
  std::string out;
  char chunk[4096];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0) out.append(chunk, n);
  *status = pclose(pipe);
  return out;
}

std::string hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// A plain program sends; the Takyon receiver gets exactly its bytes.
void expect_foreign_datagram(const std::string& port, const std::string& command,
                             const std::string& payload) {
  Endpoint ep(false, false, 0, -1, -1);
  Attrs attrs = datagram_attrs("UnicastRecvSocket -IP=127.0.0.1 -port=" + port, false, true, 4096);
  attrs.attrs.recv_start_timeout = 5.0;
  PathHandle path = create_path(ep, attrs);
  int status = 0;
  const std::string output = run_command(command, &status);
  ASSERT_EQ(status, 0) << "'" << command << "' failed: " << output;
  const Message got = recv_message(ep, path.get(), 0);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(recv_buffer(path.get(), 0)), got.bytes), payload);
  destroy_path(ep, path);
  EXPECT_TRUE(ep.ok());
}

// The Takyon sender sends until the plain program (which takes one datagram) has exited.
std::string foreign_receive(const std::string& command, const std::string& port, const std::string& payload) {
  int status = -1;
  std::string output;
  std::atomic<bool> done{false};
  std::thread program([&] {
    output = run_command(command, &status);
    done = true;
  });
  Endpoint ep(true, false, 0, -1, -1);
  Attrs attrs = datagram_attrs("UnicastSendSocket -IP=127.0.0.1 -port=" + port, true, true, 4096);
  PathHandle path = create_path(ep, attrs);
  std::memcpy(send_buffer(path.get(), 0), payload.data(), payload.size());
  const Stopwatch watch;
  while (!done && watch.seconds() < 8.0) {  // until the program has bound its port and taken one
    send_message(ep, path.get(), 0, payload.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  program.join();
  destroy_path(ep, path);
  EXPECT_TRUE(ep.ok());
  EXPECT_EQ(status, 0) << "'" << command << "' failed: " << output;
  return output;
}

TEST(DatagramInterop, PythonSendsToTakyon) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  const std::string payload = "from python \x01\x02\xff datagram";
  expect_foreign_datagram(port,
                          "python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                          "s.sendto(bytes.fromhex('" +
                              hex(payload) + "'), ('127.0.0.1', " + port + "))\" 2>&1",
                          payload);
}

TEST(DatagramInterop, TakyonSendsToPython) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  static constexpr char kBytes[] = "to python \x00\x7f\x80 datagram";  // with a NUL inside
  const std::string payload(kBytes, sizeof(kBytes) - 1);
  const std::string output = foreign_receive(
      "python3 -c \"import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
      "s.bind(('127.0.0.1', " +
          port + ")); s.settimeout(5); d, _ = s.recvfrom(70000); sys.stdout.write(d.hex())\"",
      port, payload);
  EXPECT_EQ(output, hex(payload));
}

TEST(DatagramInterop, SocatSendsToTakyon) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  expect_foreign_datagram(port,
                          "printf 'socat says hello' | socat -u - UDP-SENDTO:127.0.0.1:" + port + " 2>&1",
                          "socat says hello");
}

TEST(DatagramInterop, TakyonSendsToSocat) {
  const std::string port = std::to_string(free_port(SOCK_DGRAM));
  const std::string output = foreign_receive(
      "timeout 8 socat -u UDP-RECVFROM:" + port + ",bind=127.0.0.1 - | od -An -v -tx1 | tr -d ' \\n'", port,
      "takyon to socat \x01\x02");
  EXPECT_EQ(output, hex("takyon to socat \x01\x02"));
}

}  // namespace
}  // namespace takyon::test
