// SPDX-License-Identifier: MIT
// Spawning ucx_perftest's server and client, bounding them in time, and reading its "Final:" line.
#include "ucx_perftest.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "clock.hpp"
#include "common/knobs.hpp"
#include "socket_providers.hpp"

namespace takyon::bench {
namespace {

constexpr int kOutputTailLines = 8;
// A server that did not exit this long after its client had is killed (its result is in).
constexpr double kServerExitWaitS = 5.0;

double seconds_left(std::int64_t deadline_ns) {
  return static_cast<double>(deadline_ns - now_ns()) / 1e9;
}

std::string last_lines(const std::string& text, int count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) return "(none)";
  std::string out;
  for (std::size_t i = lines.size() > static_cast<std::size_t>(count) ? lines.size() - count : 0;
       i < lines.size(); ++i) {
    out += "\n      " + lines[i];
  }
  return out;
}

// One process of the pair: stdin from /dev/null, stdout and stderr into an anonymous file read
// once it has exited (no pipe to drain while it runs). posix_spawn, not fork: this process may
// hold UCX's threads and registered memory. Killed and reaped on destruction if still running.
class Child {
 public:
  // posix_spawn takes char* const[]: argv and envp point into these copies.
  Child(const std::string& executable, std::vector<std::string> args, std::vector<std::string> env,
        const char* name)
      : out_(memfd_create(name, MFD_CLOEXEC)) {
    if (out_ < 0) {
      throw std::system_error(errno, std::generic_category(), "memfd_create for ucx_perftest output");
    }
    args.insert(args.begin(), executable);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    envp.reserve(env.size() + 1);
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_, 1);
    posix_spawn_file_actions_adddup2(&actions, out_, 2);
    const int rc = posix_spawn(&pid_, executable.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ::close(out_);
      throw std::system_error(rc, std::generic_category(), "starting " + executable);
    }
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));  // -1 on old kernels: then we poll
  }
  ~Child() {
    kill_and_reap();
    if (pidfd_ >= 0) ::close(pidfd_);
    ::close(out_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&&) = delete;
  Child& operator=(Child&&) = delete;

  /// Has it exited (reaps it if so)?
  bool exited() {
    if (reaped_) return true;
    pid_t done = 0;
    while ((done = waitpid(pid_, &status_, WNOHANG)) < 0 && errno == EINTR) {
    }
    if (done == pid_) reaped_ = true;
    return reaped_;
  }
  [[nodiscard]] int pidfd() const { return pidfd_; }
  [[nodiscard]] bool succeeded() const { return reaped_ && WIFEXITED(status_) && WEXITSTATUS(status_) == 0; }
  [[nodiscard]] std::string how_it_ended() const {
    if (!reaped_) return "was still running (killed)";
    if (WIFSIGNALED(status_)) return "was killed by signal " + std::to_string(WTERMSIG(status_));
    return "exited with status " + std::to_string(WEXITSTATUS(status_));
  }
  void kill_and_reap() {
    if (reaped_ || pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    killed_ = true;
  }
  [[nodiscard]] bool killed() const { return killed_; }
  [[nodiscard]] std::string output() const {
    std::string text;
    char chunk[4096];
    for (off_t at = 0;;) {
      const ssize_t n = pread(out_, chunk, sizeof(chunk), at);
      if (n <= 0) break;
      text.append(chunk, static_cast<std::size_t>(n));
      at += n;
    }
    return text;
  }

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int out_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  bool killed_ = false;
};

// Sleeps until one of the children exits or `timeout_s` passes, without spinning on A's CPU
// (the client spins there).
void wait_for_exit(Child& first, Child* second, double timeout_s) {
  if (timeout_s <= 0) return;
  if (first.pidfd() >= 0 && (second == nullptr || second->pidfd() >= 0)) {
    pollfd fds[2] = {{first.pidfd(), POLLIN, 0}, {second != nullptr ? second->pidfd() : -1, POLLIN, 0}};
    const int ms = static_cast<int>(std::min(timeout_s * 1e3 + 1, 2.0e9));
    while (poll(fds, second != nullptr ? 2 : 1, ms) < 0 && errno == EINTR) {
    }
    return;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10, static_cast<int>(timeout_s * 1e3) + 1)));
}

// Is anything listening on TCP port `port` (IPv4 or IPv6)? Read from /proc, so that no probe
// connection is taken by the server for its client.
bool listening(int port) {
  char hex[8];
  std::snprintf(hex, sizeof(hex), ":%04X", port);
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // heading
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot;
      std::string local;
      std::string remote;
      std::string state;
      fields >> slot >> local >> remote >> state;
      if (state == "0A" && local.size() >= 5 && local.compare(local.size() - 5, 5, hex) == 0) return true;
    }
  }
  return false;
}

std::vector<std::string> environment_with_tls(const std::string& tls) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "UCX_TLS=", 8) != 0) env.emplace_back(*e);
  }
  env.push_back("UCX_TLS=" + tls);
  return env;
}

std::vector<std::string> client_args(const PerftestRun& run, int port) {
  std::vector<std::string> args = {"127.0.0.1",
                                   "-p",
                                   std::to_string(port),
                                   "-t",
                                   run.test,
                                   "-s",
                                   std::to_string(run.bytes),
                                   "-n",
                                   std::to_string(run.iters),
                                   "-w",
                                   std::to_string(run.warmup)};
  if (run.client_cpu >= 0) args.insert(args.end(), {"-c", std::to_string(run.client_cpu)});
  return args;
}

std::vector<std::string> server_args(const PerftestRun& run, int port) {
  std::vector<std::string> args = {"-p", std::to_string(port)};
  if (run.server_cpu >= 0) args.insert(args.end(), {"-c", std::to_string(run.server_cpu)});
  return args;
}

}  // namespace

bool parse_perftest_final(std::string_view output, PerftestFinal& out) {
  const std::size_t at = output.rfind("Final:");
  if (at == std::string_view::npos) return false;
  const std::size_t end = output.find('\n', at);
  const std::string line(
      output.substr(at + 6, end == std::string_view::npos ? std::string_view::npos : end - at - 6));
  double v[8];
  char extra = 0;
  if (std::sscanf(line.c_str(), "%lf %lf %lf %lf %lf %lf %lf %lf %c", &v[0], &v[1], &v[2], &v[3], &v[4],
                  &v[5], &v[6], &v[7], &extra) != 8) {
    return false;
  }
  out = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  return v[0] > 0;
}

std::string find_ucx_perftest() {
  if (common::knob_is_set(common::KnobId::kBenchUcxPerftest))
    return common::knob_text(common::KnobId::kBenchUcxPerftest);
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    std::string candidate = dirs.substr(start, colon - start);
    candidate = (candidate.empty() ? "." : candidate) + "/ucx_perftest";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = colon + 1;
  }
  return "";
}

std::string ucx_perftest_version(const std::string& executable) {
  const std::size_t slash = executable.rfind('/');
  std::string info = slash == std::string::npos ? "ucx_info" : executable.substr(0, slash + 1) + "ucx_info";
  if (access(info.c_str(), X_OK) != 0) info = "ucx_info";
  FILE* pipe = popen((info + " -v 2>/dev/null").c_str(), "r");  // NOLINT: a fixed command, no user input
  if (pipe == nullptr) return "UCX version unknown";
  std::string text;
  char chunk[512];
  while (std::fgets(chunk, sizeof(chunk), pipe) != nullptr) text += chunk;
  pclose(pipe);
  // "# Version 1.13.1" (1.13), "# Library version: 1.16.0" (later releases)
  for (const std::string key : {"Library version: ", "Version "}) {
    const std::size_t at = text.find(key);
    if (at == std::string::npos) continue;
    const std::size_t start = at + key.size();
    const std::size_t end = text.find_first_of(" \n", start);
    return "UCX " + text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return "UCX version unknown";
}

std::string perftest_client_command(const std::string& executable, const PerftestRun& run, int port) {
  std::string out = "UCX_TLS=" + run.tls + " " + executable;
  for (const std::string& a : client_args(run, port)) out += " " + a;
  return out;
}

PerftestFinal run_ucx_perftest(const std::string& executable, const PerftestRun& run) {
  const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(run.timeout_s * 1e9);
  const std::vector<std::string> env = environment_with_tls(run.tls);
  for (int attempt = 0;; ++attempt) {
    const int port = std::stoi(free_loopback_port());
    const std::string command = perftest_client_command(executable, run, port);
    auto failure = [&](const std::string& what, Child& server, Child* client) {
      server.kill_and_reap();
      if (client != nullptr) client->kill_and_reap();
      std::string text = "ucx_perftest: " + what;
      text += "\n    client: " + command;
      text += "\n    server: UCX_TLS=" + run.tls + " " + executable;
      for (const std::string& a : server_args(run, port)) text += " " + a;
      if (client != nullptr) text += "\n    client output: " + last_lines(client->output(), kOutputTailLines);
      text += "\n    server output: " + last_lines(server.output(), kOutputTailLines);
      return std::runtime_error(text);
    };

    Child server(executable, server_args(run, port), env, "ucx_perftest-server");
    bool retry = false;
    while (!listening(port)) {
      if (server.exited()) {
        const std::string output = server.output();
        if (attempt == 0 &&
            (output.find("bind") != std::string::npos || output.find("in use") != std::string::npos)) {
          retry = true;  // someone took the port between our probe and the server's bind
          break;
        }
        throw failure("the server " + server.how_it_ended() + " before it listened", server, nullptr);
      }
      if (seconds_left(deadline) <= 0) {
        throw failure("the server did not listen on port " + std::to_string(port) + " within " +
                          std::to_string(static_cast<int>(run.timeout_s)) + " s",
                      server, nullptr);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (retry) continue;

    Child client(executable, client_args(run, port), env, "ucx_perftest-client");
    while (!client.exited()) {
      if (server.exited() && !server.succeeded()) {
        // A server that failed leaves its client waiting for ever.
        throw failure("the server " + server.how_it_ended() + " while the client ran", server, &client);
      }
      const double left = seconds_left(deadline);
      if (left <= 0) {
        throw failure("timed out after " + std::to_string(static_cast<int>(run.timeout_s)) + " s", server,
                      &client);
      }
      wait_for_exit(client, server.exited() ? nullptr : &server, left);
    }
    if (!client.succeeded()) throw failure("the client " + client.how_it_ended(), server, &client);
    PerftestFinal final;
    if (!parse_perftest_final(client.output(), final)) {
      throw failure("the client printed no 'Final:' line with 8 numbers", server, &client);
    }
    const std::int64_t server_deadline = now_ns() + static_cast<std::int64_t>(kServerExitWaitS * 1e9);
    while (!server.exited() && seconds_left(server_deadline) > 0) {
      wait_for_exit(server, nullptr, seconds_left(server_deadline));
    }
    if (server.exited() && !server.succeeded()) {
      throw failure("the server " + server.how_it_ended() + " after its client had finished", server,
                    &client);
    }
    server.kill_and_reap();  // still running after its client finished: its result is in
    return final;
  }
}

}  // namespace takyon::bench
