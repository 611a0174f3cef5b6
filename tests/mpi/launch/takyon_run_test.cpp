// SPDX-License-Identifier: MIT
// takyon-run end to end: real ranks (bootstrap_probe) under the real launcher. Exit codes, failure
// handling (kill the others, abort, signals, timeout), the environment, allgather/barrier,
// the secret, binding, and bad command lines.
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "subprocess.hpp"
#include "wire.hpp"

namespace {

using namespace std::chrono_literals;
using takyon::test::run_command;
using takyon::test::RunResult;
using takyon::test::Subprocess;
using takyon::test::TempDir;
namespace wire = takyon::mpi::wire;

const std::string kRun = TAKYON_RUN_PATH;
const std::string kProbe = TAKYON_PROBE_PATH;

/// Failure handling must end a job within this (SIGTERM is immediate; SIGKILL comes after 2 s).
constexpr double kQuickSeconds = 5.0;

std::string describe(const RunResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.timed_out ? " (TIMED OUT)" : "") + " after " +
         std::to_string(r.seconds) + " s\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

RunResult run(std::vector<std::string> args, std::chrono::milliseconds limit = 60s) {
  args.insert(args.begin(), kRun);
  return run_command(args, limit);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

int online_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return CPU_COUNT(&set);
}

TEST(TakyonRun, AllRanksExitZeroGivesZero) {
  const auto r = run({"-n", "3", kProbe, "exit", "1", "0"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "") << describe(r);
}

// A job that dies before its ranks unlink their MPI inboxes, or before they destroy the paths of a
// forced InterProcessMemcpy channel, leaves shared-memory segments behind; takyon-run removes
// exactly this job's once every rank is gone.
TEST(TakyonRun, RemovesTheJobsLeftoverMpiSegments) {
  const auto r = run({"-n", "3", kProbe, "leave-segments", "0", "3"});
  ASSERT_EQ(r.exit_code, 3) << describe(r);
  ASSERT_EQ(count(r.out, "segment /dev/shm/"), 3) << describe(r);
  for (size_t at = r.out.find("segment "); at != std::string::npos; at = r.out.find("segment ", at + 1)) {
    const std::string name = r.out.substr(at + 8, r.out.find('\n', at) - at - 8);
    struct stat st {};
    EXPECT_NE(::stat(name.c_str(), &st), 0) << name << " is still there\n" << describe(r);
  }
}

TEST(TakyonRun, FailingRankExitCodeIsPropagatedAndNamed) {
  const auto r = run({"-n", "3", kProbe, "exit", "2", "3"});
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_NE(r.err.find("rank 2"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("exited with code 3"), std::string::npos) << describe(r);
}

TEST(TakyonRun, RankKilledBySignalGives128PlusSignal) {
  const auto r = run({"-np", "2", kProbe, "signal", "1", std::to_string(SIGUSR1)});
  EXPECT_EQ(r.exit_code, 128 + SIGUSR1) << describe(r);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("SIGUSR1"), std::string::npos) << describe(r);
}

TEST(TakyonRun, FailureKillsTheSleepingRanks) {
  const auto r = run({"-n", "3", kProbe, "fail-one", "1", "sleep"}, 30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("stopping the 2 other running ranks"), std::string::npos) << describe(r);
}

TEST(TakyonRun, FailureEndsRanksWaitingInABarrier) {
  const auto r = run({"-n", "3", kProbe, "fail-one", "2", "barrier"}, 30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_EQ(r.err.find("barrier completed"), std::string::npos) << describe(r);
}

TEST(TakyonRun, RanksIgnoringSigtermGetSigkillAfterTheGracePeriod) {
  const auto r = run({"-n", "2", kProbe, "fail-one", "0", "stubborn"}, 30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_GT(r.seconds, 1.5) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds + 2) << describe(r);
  EXPECT_NE(r.err.find("SIGKILL"), std::string::npos) << describe(r);
}

TEST(TakyonRun, AbortEndsTheJobWithItsCode) {
  const auto r = run({"-n", "3", kProbe, "abort", "1", "7"}, 30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 7) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("rank 1 called MPI_Abort with error code 7: the probe aborts on purpose"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(r.err.find("barrier completed"), std::string::npos) << describe(r);
}

TEST(TakyonRun, ExitWithoutFinalizeIsAFailure) {
  const auto r = run({"-n", "2", kProbe, "no-finalize", "1"}, 30s);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("without calling MPI_Finalize"), std::string::npos) << describe(r);
}

TEST(TakyonRun, RankThatNeverJoinsDoesNotHangTheOthers) {
  const auto r = run({"-n", "3", kProbe, "skip-init", "1"}, 30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("wait for it in collective #1"), std::string::npos) << describe(r);
}

TEST(TakyonRun, TimeoutEndsTheJob) {
  const auto r = run({"--timeout", "0.5", "-n", "2", kProbe, "fail-one", "99", "sleep"}, 30s);
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_GT(r.seconds, 0.4) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << describe(r);
}

TEST(TakyonRun, SigtermIsForwardedToEveryRank) {
  TempDir dir;
  Subprocess p({kRun, "-n", "2", kProbe, "term-marker", dir.path()});
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.0"), 30s));
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.1"), 30s));
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  const auto r = p.wait(30s);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << describe(r);
  EXPECT_EQ(::access(dir.file("term.0").c_str(), F_OK), 0) << "rank 0 did not see SIGTERM\n" << describe(r);
  EXPECT_EQ(::access(dir.file("term.1").c_str(), F_OK), 0) << "rank 1 did not see SIGTERM\n" << describe(r);
  EXPECT_NE(r.err.find("got SIGTERM"), std::string::npos) << describe(r);
}

TEST(TakyonRun, SigintIsForwardedAndEndsTheJob) {
  TempDir dir;
  Subprocess p({kRun, "-n", "2", kProbe, "term-marker", dir.path()});
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.0"), 30s));
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.1"), 30s));
  ASSERT_EQ(::kill(p.pid(), SIGINT), 0);
  const auto r = p.wait(30s);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << describe(r);
  EXPECT_LT(r.seconds, 30) << describe(r);
}

/// True once `pid` has exited (gone, or a zombie nobody reaped yet).
bool process_ended(pid_t pid) {
  const std::string stat = takyon::test::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         (stat[paren + 2] == 'Z' || stat[paren + 2] == 'X');
}

TEST(TakyonRun, RanksDoNotOutliveAKilledLauncher) {
  TempDir dir;
  Subprocess p({kRun, "-n", "2", kProbe, "term-marker", dir.path()});
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.0"), 30s));
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("ready.1"), 30s));
  const pid_t rank0 = std::stoi(takyon::test::read_file(dir.file("ready.0")));
  const pid_t rank1 = std::stoi(takyon::test::read_file(dir.file("ready.1")));
  ASSERT_EQ(::kill(p.pid(), SIGKILL), 0);  // no chance to forward anything
  (void)p.wait(30s);
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!(process_ended(rank0) && process_ended(rank1)) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(process_ended(rank0)) << "rank 0 (pid " << rank0 << ") outlived takyon-run";
  EXPECT_TRUE(process_ended(rank1)) << "rank 1 (pid " << rank1 << ") outlived takyon-run";
  // SIGKILL, not SIGTERM: the ranks' SIGTERM handlers did not run.
  EXPECT_NE(::access(dir.file("term.0").c_str(), F_OK), 0);
}

TEST(TakyonRun, EveryRankSeesItsRankSizeAndLocalRank) {
  // The probe compares TAKYON_RUN_*, OMPI_COMM_WORLD_* and LOCAL_RANK with the bootstrap's view.
  const auto r = run({"-n", "4", kProbe, "check", "--expect-size", "4", "--expect-launcher", "takyon-run"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_NE(
        r.out.find("rank " + std::to_string(rank) + " of 4 ok (local " + std::to_string(rank) + " of 4"),
        std::string::npos)
        << describe(r);
  }
}

TEST(TakyonRun, AllgatherIsCorrectForOneToFourRanks) {
  for (int n = 1; n <= 4; ++n) {
    const auto r =
        run({"-n", std::to_string(n), kProbe, "check", "--expect-size", std::to_string(n), "--rounds", "5"});
    EXPECT_EQ(r.exit_code, 0) << "np " << n << ": " << describe(r);
    EXPECT_EQ(count(r.out, " ok "), n) << describe(r);
  }
}

TEST(TakyonRun, RepeatedAllgatherAndBarrier) {
  const auto r = run({"-n", "3", kProbe, "check", "--rounds", "200"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, " ok "), 3) << describe(r);
}

/// A connection to the rendezvous ("@name", an abstract Unix socket); -1 on failure.
int connect_rendezvous(const std::string& address) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  EXPECT_TRUE(address.size() > 1 && address[0] == '@' && address.size() <= sizeof sa.sun_path) << address;
  std::memcpy(sa.sun_path + 1, address.data() + 1, address.size() - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
  EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&sa), len), 0) << address;
  return fd;
}

/// Everything the launcher sends until it closes (at most `limit`).
std::string read_until_closed(int fd, std::chrono::milliseconds limit = 10s) {
  std::string got;
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) {
      ADD_FAILURE() << "the launcher did not close the connection within " << limit.count() << " ms";
      break;
    }
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

/// Sends `bytes` to the rendezvous and returns what comes back until the launcher closes.
std::string poke(const std::string& address, const std::string& bytes) {
  const int fd = connect_rendezvous(address);
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  std::string got = read_until_closed(fd);
  ::close(fd);
  return got;
}

std::string refusal_text(const std::string& reply) {
  wire::Parser parser(wire::kMaxTextBytes + 64);
  parser.append(reply.data(), reply.size());
  const auto f = parser.next();
  if (!f) return "(no frame: " + std::to_string(reply.size()) + " bytes)";
  if (f->type != wire::Type::kRefused) return std::string("(a ") + wire::type_name(f->type) + " frame)";
  return f->payload;
}

std::string hello(int rank, const std::string& secret) {
  return wire::encode(wire::Type::kHello,
                      wire::Writer().u32(wire::kProtocolVersion).i32(rank).i32(4242).bytes(secret).take());
}

TEST(TakyonRun, WrongSecretIsRefusedAndTheJobGoesOn) {
  TempDir dir;
  Subprocess p({kRun, "-n", "2", kProbe, "hold", dir.path()});
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("rendezvous"), 30s));
  const std::string address = takyon::test::read_file(dir.file("rendezvous"));
  // Claims rank 1 (a rank that has joined: the secret is checked before anything else).
  EXPECT_EQ(refusal_text(poke(address, hello(1, std::string(32, '0')))), "wrong secret");
  EXPECT_EQ(refusal_text(poke(address, hello(0, ""))), "wrong secret");
  // Not the protocol at all.
  EXPECT_NE(refusal_text(poke(address, "GET / HTTP/1.0\r\n\r\n")).find("bad frame header"),
            std::string::npos);
  // A frame other than hello first.
  EXPECT_NE(refusal_text(poke(address, wire::encode(wire::Type::kFinalize, ""))).find("expected hello"),
            std::string::npos);
  { std::ofstream go(dir.file("go")); }
  const auto r = p.wait(30s);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, " ok "), 2) << describe(r);
  // The first refusal is named; the others of its kind within a second are summed up.
  EXPECT_EQ(count(r.err, "refused a rendezvous connection from pid " + std::to_string(::getpid()) +
                             ": wrong secret"),
            1)
      << describe(r);
  EXPECT_EQ(count(r.err, "refused 3 more rendezvous connections in the last"), 1) << describe(r);
  EXPECT_EQ(count(r.err, "wrong secret or not the rendezvous protocol"), 1) << describe(r);
}

// A connection from outside the ranks' process trees gets one second to show the secret.
TEST(TakyonRun, SilentStrangerIsClosedAfterASecond) {
  TempDir dir;
  Subprocess p({kRun, "-n", "2", kProbe, "hold", dir.path()});
  ASSERT_TRUE(takyon::test::wait_for_file(dir.file("rendezvous"), 30s));
  const int fd = connect_rendezvous(takyon::test::read_file(dir.file("rendezvous")));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(read_until_closed(fd), "");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  EXPECT_GT(waited, 0.8);
  EXPECT_LT(waited, 3.0);
  { std::ofstream go(dir.file("go")); }
  const auto r = p.wait(30s);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, " ok "), 2) << describe(r);
  EXPECT_EQ(count(r.err, "closed a rendezvous connection from pid " + std::to_string(::getpid()) +
                             ": no hello within 1 s"),
            1)
      << describe(r);
}

TEST(TakyonRun, BindToCorePinsEachRankToOneCpu) {
  const auto r = run({"--bind-to", "core", "-n", "2", kProbe, "affinity", "core"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "on 1 CPU(s)"), 2) << describe(r);
}

TEST(TakyonRun, BindToCoreGoesRoundRobinWhenOversubscribed) {
  const int n = online_cpus() + 1;
  const auto r = run({"--bind-to=core", "-n", std::to_string(n), kProbe, "affinity", "core"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "on 1 CPU(s)"), n) << describe(r);
}

TEST(TakyonRun, BindToNoneLeavesTheCpuSetAlone) {
  const auto r = run({"--bind-to", "none", "-n", "2", kProbe, "affinity", "none"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

// The default follows mpirun: bound when the ranks fit on the launcher's CPUs (one each), unbound
// when there are more ranks than CPUs.
TEST(TakyonRun, DefaultBindsRanksThatFitAndLeavesMoreUnbound) {
  const int cpus = online_cpus();
  for (int n : {1, cpus, cpus + 1}) {
    const auto r = run({"-n", std::to_string(n), kProbe, "affinity", "auto"});
    EXPECT_EQ(r.exit_code, 0) << "-n " << n << "\n" << describe(r);
    EXPECT_EQ(count(r.out, "on 1 CPU(s)"), n <= cpus ? n : (cpus == 1 ? n : 0)) << "-n " << n << "\n"
                                                                                << describe(r);
  }
}

TEST(TakyonRun, MpiexecTimeoutActsLikeTimeout) {
  const auto r = run_command(
      {"/usr/bin/env", "MPIEXEC_TIMEOUT=0.5", kRun, "-n", "2", kProbe, "fail-one", "99", "sleep"}, 30s);
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_GT(r.seconds, 0.4) << describe(r);
  EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  EXPECT_NE(r.err.find("MPIEXEC_TIMEOUT 0.5 s"), std::string::npos) << describe(r);
  // The command line wins over the environment.
  const auto longer = run_command({"/usr/bin/env", "MPIEXEC_TIMEOUT=30", kRun, "--timeout", "0.5", "-n", "2",
                                   kProbe, "fail-one", "99", "sleep"},
                                  30s);
  EXPECT_EQ(longer.exit_code, 124) << describe(longer);
  EXPECT_LT(longer.seconds, kQuickSeconds) << describe(longer);
  EXPECT_NE(longer.err.find("--timeout 0.5 s"), std::string::npos) << describe(longer);
  const auto bad = run_command({"/usr/bin/env", "MPIEXEC_TIMEOUT=soon", kRun, "-n", "2", kProbe}, 30s);
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("MPIEXEC_TIMEOUT needs a positive number of seconds, not 'soon'"), std::string::npos)
      << describe(bad);
}

TEST(TakyonRun, BadCommandLinesFailClearly) {
  TempDir dir;
  const std::string not_executable = dir.file("not-executable");
  const std::string not_a_program = dir.file("not-a-program");
  for (const auto& [path, mode] : {std::pair{not_executable, 0644}, std::pair{not_a_program, 0755}}) {
    std::ofstream(path) << "just text\n";
    ASSERT_EQ(::chmod(path.c_str(), static_cast<mode_t>(mode)), 0);
  }
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"-n", "0", kProbe, "exit", "0", "0"}, 2, "-n needs a number of ranks from 1 to"},
      {{"-n", "two", kProbe}, 2, "-n needs a number of ranks"},
      {{"-n", "2"}, 2, "no program to run"},
      {{kProbe}, 2, "say how many ranks"},
      {{"-n"}, 2, "-n needs a value"},
      {{"-n", "2", "--bind-to", "socket", kProbe}, 2, "--bind-to takes 'core' or 'none'"},
      {{"-n", "2", "--timeout", "-1", kProbe}, 2, "--timeout needs a positive number"},
      {{"-n", "2", "--frobnicate", kProbe}, 2, "unknown option '--frobnicate'"},
      {{"-n", "2", "/nonexistent/takyon-probe"}, 127, "cannot run '/nonexistent/takyon-probe'"},
      {{"-n", "2", "takyon-no-such-program-xyz"}, 127, "not found in PATH"},
      {{"-n", "2", dir.path()}, 126, "not an executable file"},
      {{"-n", "2", not_executable}, 126, "not an executable file"},
      // Root may run any file with an x bit; then exec itself says no, in each rank.
      {{"-n", "2", not_a_program}, 126, "cannot execute '" + not_a_program + "': Exec format error"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args, 30s);
    std::string cmd;
    for (const auto& a : c.args) cmd += " " + a;
    EXPECT_EQ(r.exit_code, c.code) << "takyon-run" << cmd << "\n" << describe(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "takyon-run" << cmd << "\n" << describe(r);
    EXPECT_LT(r.seconds, kQuickSeconds) << describe(r);
  }
}

TEST(TakyonRun, HelpIsPrintedAndSucceeds) {
  const auto r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("usage: takyon-run -n N"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("--bind-to core"), std::string::npos) << describe(r);
}

}  // namespace
