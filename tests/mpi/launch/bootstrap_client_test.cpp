// SPDX-License-Identifier: MIT
// The bootstrap library in-process: source selection, the singleton, job ids, the wire format,
// and the takyon-run client against a fake launcher that dies, refuses or reports a failure.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "bootstrap.hpp"
#include "job_id.hpp"
#include "wire.hpp"

namespace {

using takyon::mpi::BootstrapError;
using takyon::mpi::make_bootstrap;
namespace wire = takyon::mpi::wire;

/// Sets variables for one test and restores the environment after it.
class ScopedEnv {
 public:
  ScopedEnv() {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_.emplace_back(name, v != nullptr ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }
  /// The environment takyon-run gives rank `rank` of `size`, pointing at `address` ("@name").
  void run_rank(int rank, int size, const std::string& address, const std::string& secret) {
    set("TAKYON_RUN_RANK", std::to_string(rank));
    set("TAKYON_RUN_SIZE", std::to_string(size));
    set("TAKYON_RUN_LOCAL_RANK", std::to_string(rank));
    set("TAKYON_RUN_LOCAL_SIZE", std::to_string(size));
    set("TAKYON_RUN_JOB_ID", "fake-job");
    set("TAKYON_RUN_RENDEZVOUS", address);
    set("TAKYON_RUN_SECRET", secret);
  }

 private:
  static constexpr const char* kNames[] = {
      "TAKYON_RUN_RANK",       "TAKYON_RUN_SIZE",   "TAKYON_RUN_LOCAL_RANK",
      "TAKYON_RUN_LOCAL_SIZE", "TAKYON_RUN_JOB_ID", "TAKYON_RUN_RENDEZVOUS",
      "TAKYON_RUN_SECRET",     "PMIX_NAMESPACE",    "PMIX_RANK"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

/// A one-connection launcher on a thread: accepts, reads the hello, then runs `script`.
class FakeLauncher {
 public:
  using Script = std::function<void(int fd, wire::Parser& in)>;
  explicit FakeLauncher(Script script) {
    // An abstract Unix socket, as takyon-run's; the kernel picks the name (autobind).
    listener_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    EXPECT_EQ(::bind(listener_, reinterpret_cast<const sockaddr*>(&sa), sizeof(sa_family_t)), 0);
    EXPECT_EQ(::listen(listener_, 4), 0);
    socklen_t len = sizeof sa;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&sa), &len);
    address_ = "@" + std::string(sa.sun_path + 1, len - offsetof(sockaddr_un, sun_path) - 1);
    thread_ = std::thread([this, script = std::move(script)] {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      wire::Parser in(wire::kMaxRequestPayload);
      script(fd, in);
      ::close(fd);
    });
  }
  ~FakeLauncher() {
    thread_.join();
    ::close(listener_);
  }
  FakeLauncher(const FakeLauncher&) = delete;
  FakeLauncher& operator=(const FakeLauncher&) = delete;
  [[nodiscard]] const std::string& address() const { return address_; }

  /// Blocks for the next frame (nothing on EOF).
  static std::optional<wire::Frame> next(int fd, wire::Parser& in) {
    char buf[4096];
    while (true) {
      if (auto f = in.next()) return f;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      in.append(buf, static_cast<size_t>(n));
    }
  }
  static void send(int fd, wire::Type type, const std::string& payload) {
    const std::string bytes = wire::encode(type, payload);
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }

 private:
  int listener_ = -1;
  std::string address_;
  std::thread thread_;
};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const BootstrapError& e) {
    return e.what();
  }
  return "(no BootstrapError)";
}

TEST(BootstrapSingleton, NoLauncherMeansOneRank) {
  ScopedEnv env;
  auto b = make_bootstrap();
  EXPECT_EQ(b->job().launcher, "singleton");
  EXPECT_EQ(b->job().rank, 0);
  EXPECT_EQ(b->job().size, 1);
  EXPECT_EQ(b->job().local_rank, 0);
  EXPECT_EQ(b->job().local_size, 1);
  EXPECT_TRUE(takyon::mpi::is_valid_job_id(b->job().job_id)) << b->job().job_id;
  const auto all = b->allgather("hello");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], "hello");
  b->barrier();
  b->finalize();
  EXPECT_NE(make_bootstrap()->job().job_id, b->job().job_id);
  EXPECT_NE(
      error_of([&] { (void)b->allgather(std::string(wire::kMaxBlobBytes + 1, 'x')); }).find("more than"),
      std::string::npos);
}

TEST(BootstrapJobId, ValidNamesAreKeptOthersAreHashed) {
  using takyon::mpi::is_valid_job_id;
  using takyon::mpi::job_id_from_name;
  EXPECT_EQ(job_id_from_name("3553689601"), "3553689601");
  EXPECT_EQ(job_id_from_name("abc_DEF-123"), "abc_DEF-123");
  const std::set<std::string> names = {
      "slurm.pmix.42.0",     "slurm.pmix.42.1",     "slurm_pmix_42_0",     "prterun-host-1234@1",
      "prterun-host-1234@2", std::string(100, 'a'), std::string(101, 'a'), ""};
  std::set<std::string> ids;
  for (const auto& n : names) {
    const std::string id = job_id_from_name(n);
    EXPECT_TRUE(is_valid_job_id(id)) << "'" << n << "' -> '" << id << "'";
    EXPECT_EQ(id, job_id_from_name(n)) << "not deterministic";
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), names.size()) << "two names gave the same id";
  EXPECT_EQ(job_id_from_name("slurm.pmix.42.0").rfind("slurm_pmix_42_0-", 0), 0u);
  EXPECT_FALSE(is_valid_job_id(""));
  EXPECT_FALSE(is_valid_job_id(std::string(33, 'a')));
  EXPECT_FALSE(is_valid_job_id("a/b"));
  EXPECT_EQ(takyon::mpi::random_hex(16).size(), 32u);
  EXPECT_NE(takyon::mpi::random_hex(16), takyon::mpi::random_hex(16));
}

TEST(BootstrapWire, FramesSurviveBytewiseDelivery) {
  const std::string a = wire::encode(wire::Type::kAllgather, wire::Writer().u64(7).raw("blob").take());
  const std::string b = wire::encode(wire::Type::kBarrier, wire::Writer().u64(8).take());
  const std::string both = a + b;
  wire::Parser p(100);
  std::vector<wire::Frame> got;
  for (char c : both) {
    p.append(&c, 1);
    while (auto f = p.next()) got.push_back(std::move(*f));
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].type, wire::Type::kAllgather);
  wire::Reader r(got[0].payload);
  EXPECT_EQ(r.u64(), 7u);
  EXPECT_EQ(r.rest(), "blob");
  EXPECT_EQ(got[1].type, wire::Type::kBarrier);
  EXPECT_EQ(p.buffered(), 0u);
}

TEST(BootstrapWire, BadFramesAreRejected) {
  wire::Parser small(8);
  const std::string big = wire::encode(wire::Type::kAllgather, std::string(9, 'x'));
  small.append(big.data(), big.size());
  EXPECT_THROW(small.next(), wire::WireError);
  wire::Parser junk(100);
  junk.append("GET / HTTP/1.0\r\n", 16);
  EXPECT_THROW(junk.next(), wire::WireError);
  wire::Reader r(std::string_view("\x01\x02", 2));
  EXPECT_THROW(r.u32(), wire::WireError);
  EXPECT_TRUE(wire::secrets_equal("abc", "abc"));
  EXPECT_FALSE(wire::secrets_equal("abc", "abd"));
  EXPECT_FALSE(wire::secrets_equal("abc", "abcd"));
}

TEST(BootstrapRunClient, NoLauncherListeningIsAClearError) {
  ScopedEnv env;
  // A name nobody listens on.
  env.run_rank(0, 2, "@takyon-test-nobody-" + std::to_string(::getpid()), std::string(32, 'a'));
  const std::string err = error_of([] { (void)make_bootstrap(); });
  EXPECT_NE(err.find("takyon-run rendezvous @takyon-test-nobody-"), std::string::npos) << err;
  EXPECT_NE(err.find("Connection refused"), std::string::npos) << err;
}

TEST(BootstrapRunClient, BadEnvironmentIsNamed) {
  ScopedEnv env;
  env.run_rank(0, 2, "@takyon-test-unused", std::string(32, 'a'));
  env.set("TAKYON_RUN_RANK", "2");
  EXPECT_NE(error_of([] { (void)make_bootstrap(); }).find("TAKYON_RUN_RANK='2' is not a number in 0..1"),
            std::string::npos);
  env.set("TAKYON_RUN_RANK", "0");
  env.set("TAKYON_RUN_RENDEZVOUS", "127.0.0.1:4000");
  EXPECT_NE(error_of([] {
              (void)make_bootstrap();
            }).find("TAKYON_RUN_RENDEZVOUS='127.0.0.1:4000' is not an abstract Unix socket name"),
            std::string::npos);
  ::unsetenv("TAKYON_RUN_SECRET");
  EXPECT_NE(error_of([] { (void)make_bootstrap(); }).find("TAKYON_RUN_SECRET is not set"), std::string::npos);
}

// Another user's process listening on the rendezvous name (say, after takyon-run died) gets no
// hello: the rank checks the listener's user first, since the hello carries the job's secret.
TEST(BootstrapRunClient, AnotherUsersListenerGetsNoHello) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to listen as uid 65534";
  const std::string name = "takyon-test-impostor-" + std::to_string(::getpid());
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // only system calls from here: the test process may have threads
    ::close(report[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    if (::bind(listener, reinterpret_cast<const sockaddr*>(&sa), len) != 0 || ::listen(listener, 4) != 0)
      ::_exit(3);
    char byte = 'r';
    (void)::write(report[1], &byte, 1);
    const int fd = ::accept(listener, nullptr, nullptr);
    long received = 0;
    char buf[512];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) received += n;
    byte = received == 0 ? '0' : 'X';
    (void)::write(report[1], &byte, 1);
    ::_exit(0);
  }
  ::close(report[1]);
  char ready = 0;
  ASSERT_EQ(::read(report[0], &ready, 1), 1);
  ASSERT_EQ(ready, 'r') << "the impostor could not listen";
  ScopedEnv env;
  env.run_rank(0, 2, "@" + name, std::string(32, 's'));
  const std::string err = error_of([] { (void)make_bootstrap(); });
  EXPECT_NE(err.find("belongs to uid 65534"), std::string::npos) << err;
  EXPECT_NE(err.find("the job's secret is not sent"), std::string::npos) << err;
  char verdict = 0;
  EXPECT_EQ(::read(report[0], &verdict, 1), 1);
  EXPECT_EQ(verdict, '0') << "the impostor received bytes from the rank";
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST(BootstrapRunClient, RefusalIsReported) {
  ScopedEnv env;
  FakeLauncher fake([](int fd, wire::Parser& in) {
    ASSERT_TRUE(FakeLauncher::next(fd, in));
    FakeLauncher::send(fd, wire::Type::kRefused, "wrong secret");
  });
  env.run_rank(1, 2, fake.address(), std::string(32, 'b'));
  const std::string err = error_of([] { (void)make_bootstrap(); });
  EXPECT_NE(err.find("refused: wrong secret"), std::string::npos) << err;
}

TEST(BootstrapRunClient, LauncherDeathDuringAllgatherIsAnError) {
  ScopedEnv env;
  const std::string secret(32, 'c');
  FakeLauncher fake([&](int fd, wire::Parser& in) {
    const auto h = FakeLauncher::next(fd, in);
    ASSERT_TRUE(h);
    ASSERT_EQ(h->type, wire::Type::kHello);
    wire::Reader r(h->payload);
    EXPECT_EQ(r.u32(), wire::kProtocolVersion);
    EXPECT_EQ(r.i32(), 0);
    (void)r.i32();
    EXPECT_EQ(r.bytes(), secret);
    FakeLauncher::send(fd, wire::Type::kWelcome, "");
    const auto ag = FakeLauncher::next(fd, in);
    ASSERT_TRUE(ag);
    EXPECT_EQ(ag->type, wire::Type::kAllgather);
    // ... and the launcher dies: the connection closes.
  });
  env.run_rank(0, 2, fake.address(), secret);
  auto b = make_bootstrap();
  EXPECT_EQ(b->job().launcher, "takyon-run");
  EXPECT_EQ(b->job().job_id, "fake-job");
  const std::string err = error_of([&] { (void)b->allgather("mine"); });
  EXPECT_NE(err.find("the launcher closed the connection"), std::string::npos) << err;
  // Broken for good, and says why.
  EXPECT_EQ(error_of([&] { b->barrier(); }), err);
}

TEST(BootstrapRunClient, PeerFailureNoticeEndsABarrier) {
  ScopedEnv env;
  FakeLauncher fake([](int fd, wire::Parser& in) {
    ASSERT_TRUE(FakeLauncher::next(fd, in));
    FakeLauncher::send(fd, wire::Type::kWelcome, "");
    ASSERT_TRUE(FakeLauncher::next(fd, in));
    FakeLauncher::send(fd, wire::Type::kJobFailed, "rank 1 (pid 77) exited with code 3");
    (void)FakeLauncher::next(fd, in);  // until the client closes
  });
  env.run_rank(0, 2, fake.address(), std::string(32, 'd'));
  auto b = make_bootstrap();
  const std::string err = error_of([&] { b->barrier(); });
  EXPECT_NE(err.find("barrier: the job is ending: rank 1 (pid 77) exited with code 3"), std::string::npos)
      << err;
  b.reset();
}

TEST(BootstrapRunClient, AbortWaitsForTheAcknowledgement) {
  ScopedEnv env;
  int code = 0;
  std::string why;
  {
    FakeLauncher fake([&](int fd, wire::Parser& in) {
      ASSERT_TRUE(FakeLauncher::next(fd, in));
      FakeLauncher::send(fd, wire::Type::kWelcome, "");
      const auto f = FakeLauncher::next(fd, in);
      ASSERT_TRUE(f);
      ASSERT_EQ(f->type, wire::Type::kAbort);
      wire::Reader r(f->payload);
      code = r.i32();
      why = std::string(r.rest());
      FakeLauncher::send(fd, wire::Type::kAbortAck, "");
    });
    env.run_rank(0, 1, fake.address(), std::string(32, 'e'));
    auto b = make_bootstrap();
    b->abort(42, "out of cheese");
  }  // joins the fake launcher's thread
  EXPECT_EQ(code, 42);
  EXPECT_EQ(why, "out of cheese");
}

}  // namespace
