// SPDX-License-Identifier: MIT
// Strangers on a Ucx endpoint's stream: programs that are no Takyon endpoint (python3 and socat
// writing random bytes, on TCP and on the abstract Unix socket), a client that says nothing, one
// that stops in the middle of its greeting, and forged greetings that start right and then lie.
// The Ucx endpoint must report each clearly, within the create timeout, and never crash.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "socket/socket_test_util.hpp"
#include "support/endpoint_runner.hpp"
#include "support/path_ids.hpp"
#include "support/timing.hpp"
#include "ucx/ucx_test_util.hpp"

namespace takyon::test::ucx {
namespace {

// Create timeout of the endpoint under test. The stranger tests expect a verdict in under half of it,
// and when the stranger is a python3 or socat server that includes the program's start, which can be
// slow when several test processes share few cores.
constexpr double kTimeout = 6.0;

// A shell program runs in a thread beside the Takyon endpoint (each bounded by `timeout`).
class Program {
 public:
  explicit Program(std::string command) : thread_([this, command] { output_ = run_command(command); }) {}
  ~Program() {
    if (thread_.joinable()) thread_.join();
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  std::string finish() {
    thread_.join();
    return output_;
  }

 private:
  std::string output_;
  std::thread thread_;
};

void expect_stranger_named(const CreateResult& r, const std::string& who) {
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(r.cause, {"protocol error", who, "is not a Takyon Ucx endpoint", "first bytes"}));
  EXPECT_LT(r.seconds, kTimeout * 0.5) << "a stranger's first bytes must be judged at once: " << r.error;
}

// ---- Programs that write random bytes.

// python3 reads its script from a here-document; PORT stands for the port.
std::string python(const char* script, const std::string& port) {
  std::string text = script;
  text.replace(text.find("PORT"), 4, port);
  return "timeout 10 python3 - 2>&1 <<'EOF'\n" + text + "EOF\n";
}

constexpr const char* kPythonServer = R"(import os, socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', PORT))
s.listen(1)
s.settimeout(8)
c, _ = s.accept()
try:
    c.sendall(os.urandom(4096))
    while c.recv(65536): pass
except OSError:
    pass
)";

constexpr const char* kPythonClient = R"(import os, socket, time
for attempt in range(400):
    try:
        c = socket.create_connection(('127.0.0.1', PORT))
        break
    except OSError:
        time.sleep(0.01)
try:
    c.sendall(os.urandom(100000))
    while c.recv(65536): pass
except OSError:
    pass
)";

TEST(UcxStrangers, ClientMeetsPythonServerWritingRandomBytes) {
  if (!have_program("python3")) GTEST_SKIP() << "python3 is not installed";
  const std::string port = std::to_string(free_port());
  Program server(python(kPythonServer, port));
  const CreateResult r = create_alone("Ucx -client -IP=127.0.0.1 -port=" + port, false, kTimeout);
  server.finish();
  expect_stranger_named(r, "server 127.0.0.1:" + port);
}

TEST(UcxStrangers, ClientMeetsSocatServerWritingRandomBytes) {
  if (!have_program("socat")) GTEST_SKIP() << "socat is not installed";
  const std::string port = std::to_string(free_port());
  Program server("timeout 10 socat -u OPEN:/dev/urandom TCP-LISTEN:" + port +
                 ",bind=127.0.0.1,reuseaddr 2>&1");
  const CreateResult r =
      create_alone("Ucx -client -IP=127.0.0.1 -port=" + port + " -tls=tcp", false, kTimeout);
  server.finish();
  expect_stranger_named(r, "server 127.0.0.1:" + port);
}

TEST(UcxStrangers, ServerMeetsPythonClientWritingRandomBytes) {
  if (!have_program("python3")) GTEST_SKIP() << "python3 is not installed";
  const std::string port = std::to_string(free_port());
  Program client(python(kPythonClient, port));
  const CreateResult r = create_alone("Ucx -server -reuse -IP=127.0.0.1 -port=" + port, true, kTimeout);
  client.finish();
  expect_stranger_named(r, "client 127.0.0.1:");
}

TEST(UcxStrangers, ServerMeetsSocatClientWritingRandomBytes) {
  if (!have_program("socat")) GTEST_SKIP() << "socat is not installed";
  const std::string port = std::to_string(free_port());
  Program client("timeout 10 socat -u OPEN:/dev/urandom TCP:127.0.0.1:" + port +
                 ",retry=400,interval=0.01 2>&1");
  const CreateResult r =
      create_alone("Ucx -server -reuse -IP=127.0.0.1 -port=" + port + " -tls=tcp", true, kTimeout);
  client.finish();
  expect_stranger_named(r, "client 127.0.0.1:");
}

// "Ucx -ID=<n>" meets on an abstract Unix socket; a stranger there is judged the same way.
TEST(UcxStrangers, EndpointAMeetsSocatOnTheUnixSocket) {
  if (!have_program("socat")) GTEST_SKIP() << "socat is not installed";
  const uint32_t id = unique_path_id();
  Program client("timeout 10 socat -u OPEN:/dev/urandom ABSTRACT-CONNECT:" + abstract_name(id) +
                 ",retry=400,interval=0.01 2>&1");
  const CreateResult r = create_alone("Ucx -ID=" + std::to_string(id), true, kTimeout);
  client.finish();
  expect_stranger_named(r, "endpoint B (@" + abstract_name(id) + ")");
}

TEST(UcxStrangers, EndpointBMeetsSocatOnTheUnixSocket) {
  if (!have_program("socat")) GTEST_SKIP() << "socat is not installed";
  const uint32_t id = unique_path_id();
  Program server("timeout 10 socat -u OPEN:/dev/urandom ABSTRACT-LISTEN:" + abstract_name(id) + " 2>&1");
  const CreateResult r = create_alone("Ucx -ID=" + std::to_string(id) + " -tls=sysv,posix", false, kTimeout);
  server.finish();
  expect_stranger_named(r, "endpoint A (@" + abstract_name(id) + ")");
}

// ---- Raw clients of a Ucx server on a fixed port.

// Connects to the port and runs `act` with the connected socket; the socket closes afterwards.
template <typename Act>
std::thread stranger_client(uint16_t port, Act act) {
  return std::thread([port, act] {
    Fd fd = connect_retry(port, "", kTimeout);
    if (fd.valid()) act(fd.get());
  });
}

CreateResult ucx_server(uint16_t port) {
  return create_alone("Ucx -server -reuse -IP=127.0.0.1 -port=" + std::to_string(port), true, kTimeout);
}

TEST(UcxStrangers, ClientThatClosesAtOnce) {
  const uint16_t port = free_port();
  std::thread client = stranger_client(port, [](int) {});
  const CreateResult r = ucx_server(port);
  client.join();
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(r.cause, {"disconnected", "closed the connection during the greeting exchange"}));
  EXPECT_LT(r.seconds, kTimeout * 0.5) << r.error;
}

TEST(UcxStrangers, ClientThatStopsInTheMiddleOfItsGreetingFailsAtTheCreateTimeout) {
  constexpr double kShort = 0.5;
  const uint16_t port = free_port();
  std::thread client = stranger_client(port, [](int fd) {
    (void)write_all(fd, kGreetingMagic, sizeof(kGreetingMagic));  // then silence, connection open
    drain(fd, 3.0);
  });
  const CreateResult r =
      create_alone("Ucx -server -reuse -IP=127.0.0.1 -port=" + std::to_string(port), true, kShort);
  client.join();
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(
      mentions_all(r.cause, {"timeout", "sent 8 of the 48 bytes of its greeting", "path_create_timeout"}));
  EXPECT_GE(r.seconds, kShort * 0.8) << r.error;
  EXPECT_LE(r.seconds, kShort * 1.5) << r.error;
}

// A greeting head as a Takyon endpoint B with one buffer each way would send.
GreetingHead head_b(uint64_t body_bytes, uint32_t worker_address_bytes) {
  GreetingHead h{};
  std::memcpy(h.magic, kGreetingMagic, sizeof(h.magic));
  h.side = 'B';
  h.polling = 1;
  h.protocol = 0;
  h.nsend = 1;
  h.nrecv = 1;
  h.worker_address_bytes = worker_address_bytes;
  h.control_addr = 0x10000;
  h.body_bytes = body_bytes;
  return h;
}

template <typename T>
void put(std::vector<unsigned char>& out, const T& value) {
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Sends `bytes` as soon as connected, then reads until the endpoint closes.
CreateResult server_meets(const std::vector<unsigned char>& bytes) {
  const uint16_t port = free_port();
  std::thread client = stranger_client(port, [&bytes](int fd) {
    (void)write_all(fd, bytes.data(), bytes.size());
    drain(fd, kTimeout + 1);
  });
  const CreateResult r = ucx_server(port);
  client.join();
  return r;
}

TEST(UcxStrangers, ForgedGreetingWithAnAbsurdBodySize) {
  std::vector<unsigned char> bytes;
  put(bytes, head_b(1ull << 40, 16));
  const CreateResult r = server_meets(bytes);
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(
      r.cause, {"announced a greeting body of 1099511627776 bytes", "not a Takyon Ucx endpoint"}));
  EXPECT_LT(r.seconds, kTimeout * 0.5) << r.error;
}

TEST(UcxStrangers, ForgedGreetingWithAnAbsurdBufferCount) {
  std::vector<unsigned char> bytes;
  GreetingHead h = head_b(64, 16);
  h.nsend = 0xFFFFFFFFu;
  put(bytes, h);
  bytes.resize(bytes.size() + 64, 0);
  const CreateResult r = server_meets(bytes);
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(r.cause, {"malformed greeting", "nsend 4294967295"}));
  EXPECT_LT(r.seconds, kTimeout * 0.5) << r.error;
}

TEST(UcxStrangers, ForgedGreetingWhoseBodyDoesNotMatchItsHeader) {
  // One buffer each way needs 3 * 8 bytes of sizes and addresses, the worker address and two
  // key lengths; 100 zero bytes announce keys of length 0 and then too much.
  std::vector<unsigned char> bytes;
  put(bytes, head_b(100, 16));
  bytes.resize(bytes.size() + 100, 0);
  const CreateResult r = server_meets(bytes);
  EXPECT_FALSE(r.created);
  EXPECT_TRUE(mentions_all(r.cause, {"greeting whose body does not match its header"}));
  EXPECT_LT(r.seconds, kTimeout * 0.5) << r.error;
}

// Consistent in every length, but the UCX worker address is noise: UCX must not be handed
// something it aborts on; the endpoint fails with a clear error instead. The Takyon endpoint runs
// in a fork()ed child, so that a crash fails this test alone.
TEST(UcxStrangers, ForgedGreetingWithANoiseWorkerAddress) {
  for (const uint32_t address_bytes : {16u, 200u}) {
    SCOPED_TRACE(std::to_string(address_bytes) + " bytes of worker address");
    const std::vector<unsigned char> noise = random_bytes(address_bytes, 777 + address_bytes);
    std::vector<unsigned char> body;
    put(body, uint64_t{1024});     // send buffer size
    put(body, uint64_t{1024});     // receive buffer size
    put(body, uint64_t{0x20000});  // receive buffer address
    body.insert(body.end(), noise.begin(), noise.end());
    put(body, uint32_t{0});  // control area key: none
    put(body, uint32_t{0});  // receive buffer key: none
    std::vector<unsigned char> bytes;
    put(bytes, head_b(body.size(), address_bytes));
    bytes.insert(bytes.end(), body.begin(), body.end());
    std::vector<unsigned char> verdict(kVerdictBytes, 0);
    std::memcpy(verdict.data(), "OK", 2);
    bytes.insert(bytes.end(), verdict.begin(), verdict.end());
    const uint16_t port = free_port();
    RunOptions options;
    options.child_is_a = true;
    options.child_deadline_s = kTimeout + 2;
    run_endpoints(
        Mode::kProcesses,
        [&](Endpoint& ep) {
          const CreateResult r = ucx_server(port);
          TK_EXPECT(ep, !r.created) << "a path to a noise worker address was created";
          TK_EXPECT(ep, r.seconds < kTimeout * 0.5) << r.error;
          TK_EXPECT_AR(ep, mentions_any(r.cause, {"UCX worker", "worker address", "remote key"}));
        },
        [&](Endpoint& ep) {
          Fd fd = connect_retry(port, "", kTimeout);
          TK_ASSERT(ep, fd.valid()) << "the Ucx server never listened on " << port;
          (void)write_all(fd.get(), bytes.data(), bytes.size());
          drain(fd.get(), kTimeout + 1);
        },
        options);
  }
}

}  // namespace
}  // namespace takyon::test::ucx
