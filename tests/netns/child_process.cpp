// SPDX-License-Identifier: MIT
// ChildProcess: fork/exec with a reader thread for the output and a kill at the deadline.
#include "netns/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "support/timing.hpp"

namespace takyon::test::netns {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, double limit_s, const std::string& input)
    : argv_(argv), deadline_s_(now_s() + limit_s) {
  int out[2] = {-1, -1};
  int in[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0) {
    error_ = std::string("pipe2 failed: ") + std::strerror(errno);
    for (int fd : {out[0], out[1], in[0], in[1]}) {
      if (fd >= 0) close(fd);
    }
    return;
  }
  // Everything the child touches between fork() and exec() is prepared here (async-signal-safe).
  std::vector<char*> args;
  for (const std::string& a : argv_) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the test died before the prctl()
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    execv(args[0], args.data());
    static constexpr char kFailed[] = "exec failed\n";
    (void)!write(STDERR_FILENO, kFailed, sizeof(kFailed) - 1);
    _exit(127);
  }
  close(out[1]);
  close(in[0]);
  if (pid_ < 0) {
    error_ = std::string("fork failed: ") + std::strerror(errno);
    close(out[0]);
    close(in[1]);
    return;
  }
  setpgid(pid_, pid_);  // also from here, so a kill of the group right away finds it
  if (!input.empty()) {
    // Small inputs (command batches) fit the pipe: this never blocks on a child that reads late.
    (void)!write(in[1], input.data(), input.size());
  }
  close(in[1]);
  reader_ = std::thread([this, fd = out[0]] { read_output(fd); });
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    reap(true);
  }
  if (reader_.joinable()) reader_.join();
}

std::string ChildProcess::command() const {
  std::string out;
  for (const std::string& a : argv_) {
    if (!out.empty()) out += ' ';
    out += a.find(' ') == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

void ChildProcess::read_output(int fd) {
  char chunk[4096];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    if (n <= 0) {
      eof_ = true;
      changed_.notify_all();
      break;
    }
    output_.append(chunk, static_cast<size_t>(n));
    changed_.notify_all();
  }
  close(fd);
}

namespace {

// The whole lines of `text` (a trailing partial line is not yet a line).
std::vector<std::string_view> whole_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t at = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', at)) {
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

}  // namespace

bool ChildProcess::wait_line(std::string_view prefix, double timeout_s) {
  const double until = std::min(now_s() + timeout_s, deadline_s_);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    for (std::string_view l : whole_lines(output_)) {
      if (l.starts_with(prefix)) return true;
    }
    if (eof_ || now_s() >= until) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

std::optional<std::string> ChildProcess::line(std::string_view prefix) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::string_view l : whole_lines(output_)) {
    if (l.starts_with(prefix)) return std::string(l);
  }
  return std::nullopt;
}

std::vector<std::string> ChildProcess::lines(std::string_view prefix) const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::string_view l : whole_lines(output_)) {
    if (l.starts_with(prefix)) out.emplace_back(l);
  }
  return out;
}

std::string ChildProcess::output() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return output_;
}

void ChildProcess::signal(int sig) const {
  if (pid_ > 0 && !reaped_) kill(pid_, sig);
}

bool ChildProcess::reap(bool block) {
  for (;;) {
    int status = 0;
    const pid_t got = waitpid(pid_, &status, block ? 0 : WNOHANG);
    if (got == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
      return true;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      reaped_ = true;  // not ours to wait for any more
      return true;
    }
    return false;
  }
}

int ChildProcess::wait(double timeout_s) {
  if (pid_ <= 0) return -1;
  const double until = std::min(now_s() + timeout_s, deadline_s_);
  while (!reaped_) {
    if (reap(false)) break;
    if (now_s() >= until) {
      killed_on_timeout_ = true;
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      reap(true);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The output ends when every holder of the pipe is gone; wait a little for the reader to drain.
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, std::chrono::seconds(2), [this] { return eof_; });
  return status_;
}

std::string ChildProcess::describe() const {
  std::string out = "`" + command() + "`";
  if (!error_.empty()) return out + ": " + error_;
  if (!reaped_) {
    out += " is still running";
  } else if (killed_on_timeout_) {
    out += " was killed at its time limit";
  } else {
    out += " exited " + std::to_string(status_);
  }
  return out + ", output:\n" + output();
}

CommandResult run_command(const std::vector<std::string>& argv, double limit_s) {
  ChildProcess child(argv, limit_s);
  if (!child.started()) return {-1, child.error()};
  CommandResult result;
  result.status = child.wait(limit_s);
  result.output = child.output();
  if (child.killed_on_timeout()) result.output += "\n(killed after " + std::to_string(limit_s) + " s)";
  return result;
}

std::map<std::string, std::string> parse_fields(std::string_view line) {
  std::map<std::string, std::string> out;
  size_t at = line.find(' ');
  while (at != std::string_view::npos && at < line.size()) {
    while (at < line.size() && line[at] == ' ') ++at;
    if (at >= line.size()) break;
    if (line.substr(at).starts_with("text=")) {
      out["text"] = std::string(line.substr(at + 5));
      break;
    }
    const size_t end = line.find(' ', at);
    const std::string_view field =
        line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    const size_t eq = field.find('=');
    if (eq != std::string_view::npos)
      out[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    at = end;
  }
  return out;
}

}  // namespace takyon::test::netns
