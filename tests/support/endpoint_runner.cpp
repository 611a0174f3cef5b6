// SPDX-License-Identifier: MIT
// Two-endpoint runner: threads, or parent plus fork()ed child reporting back through a pipe.
#include "support/endpoint_runner.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>

namespace takyon::test {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      std::perror("pipe2");
      std::abort();
    }
    read_fd = fds[0];
    write_fd = fds[1];
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_fd(read_fd);
    close_fd(write_fd);
  }
};

void run_guarded(Endpoint& ep, const EndpointFn& fn) {
  try {
    fn(ep);
  } catch (const EndpointAbort&) {
    // Already recorded.
  } catch (const std::exception& e) {
    ep.add_failure("(endpoint function)", 0, std::string("uncaught exception: ") + e.what());
  } catch (...) {
    ep.add_failure("(endpoint function)", 0, "uncaught exception of unknown type");
  }
}

void report(const Endpoint& ep, const char* where) {
  for (const Failure& f : ep.failures()) {
    ADD_FAILURE_AT(f.file.c_str(), f.line) << "endpoint " << ep.name() << where << ": " << f.message;
  }
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Child -> parent record: file '\0' line '\0' message '\0'.
void send_failures(int fd, const Endpoint& ep) {
  std::string out;
  for (const Failure& f : ep.failures()) {
    out += f.file;
    out.push_back('\0');
    out += std::to_string(f.line);
    out.push_back('\0');
    out += f.message.substr(0, 8000);
    out.push_back('\0');
  }
  write_all(fd, out.data(), out.size());
}

// Reads the child's records until EOF or the deadline; returns false on deadline.
bool read_failures(int fd, double deadline, std::vector<Failure>& out) {
  std::string data;
  char chunk[4096];
  bool eof = false;
  while (!eof) {
    const double left = deadline - now_s();
    if (left <= 0) break;
    pollfd pfd{fd, POLLIN, 0};
    const int r = poll(&pfd, 1, static_cast<int>(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
      break;
    }
    data.append(chunk, static_cast<size_t>(n));
  }
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\0') {
      fields.emplace_back(data.substr(start, i - start));
      start = i + 1;
    }
  }
  for (size_t i = 0; i + 3 <= fields.size(); i += 3) {
    out.push_back(Failure{fields[i], std::atoi(fields[i + 1].c_str()), fields[i + 2]});
  }
  return eof;
}

// Waits for the child until the deadline, then SIGKILLs it. Returns the wait status.
int reap_child(pid_t pid, double deadline, bool& hung) {
  int status = 0;
  hung = false;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;
    if (now_s() > deadline) {
      hung = true;
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    usleep(2000);
  }
}

}  // namespace

Endpoint::Endpoint(bool is_a, bool in_child, pid_t child_pid, int notify_fd, int wait_fd)
    : is_a_(is_a), in_child_(in_child), child_pid_(child_pid), notify_fd_(notify_fd), wait_fd_(wait_fd) {}

Endpoint::~Endpoint() = default;

void Endpoint::notify_peer(double value) {
  char token[1 + sizeof(double)] = {1};
  std::memcpy(token + 1, &value, sizeof(double));
  if (notify_fd_ < 0 || !write_all(notify_fd_, token, sizeof(token))) {
    add_failure(__FILE__, __LINE__, "notify_peer: side channel closed");
  }
}

bool Endpoint::wait_peer(double timeout_s, double* value) {
  if (wait_fd_ < 0) return false;
  const double deadline = now_s() + timeout_s;
  char token[1 + sizeof(double)];
  size_t got = 0;
  while (got < sizeof(token)) {
    const double left = deadline - now_s();
    if (left <= 0) return false;
    pollfd pfd{wait_fd_, POLLIN, 0};
    const int r = poll(&pfd, 1, static_cast<int>(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(wait_fd_, token + got, sizeof(token) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  if (value != nullptr) std::memcpy(value, token + 1, sizeof(double));
  return true;
}

double Endpoint::kill_child(bool reap) {
  if (child_pid_ <= 0) {
    add_failure(__FILE__, __LINE__, "kill_child: this endpoint has no child process");
    return now_s();
  }
  const double when = now_s();
  kill(child_pid_, SIGKILL);
  child_killed_.store(true);
  if (reap) {
    int status = 0;
    while (waitpid(child_pid_, &status, 0) < 0 && errno == EINTR) {
    }
    child_reaped_.store(true);
  }
  return when;
}

void Endpoint::add_failure(const char* file, int line, std::string message) {
  std::lock_guard lock(mutex_);
  failures_.push_back(Failure{file, line, std::move(message)});
}

bool Endpoint::ok() const {
  std::lock_guard lock(mutex_);
  return failures_.empty();
}

std::vector<Failure> Endpoint::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

void Endpoint::close_notify() {
  close_fd(notify_fd_);
}

FailureBuilder::FailureBuilder(Endpoint& ep, const char* file, int line, const char* condition, bool fatal)
    : ep_(ep), file_(file), line_(line), fatal_(fatal) {
  if (condition != nullptr && condition[0] != '\0') stream_ << "check failed: " << condition << ". ";
}

FailureBuilder::~FailureBuilder() noexcept(false) {
  ep_.add_failure(file_, line_, stream_.str());
  if (fatal_ && std::uncaught_exceptions() == 0) throw EndpointAbort{};
}

void run_endpoints(Mode mode, const EndpointFn& fn_a, const EndpointFn& fn_b, const RunOptions& options) {
  Pipe a_to_b;
  Pipe b_to_a;
  if (mode == Mode::kThreads) {
    Endpoint ep_a(true, false, 0, a_to_b.write_fd, b_to_a.read_fd);
    Endpoint ep_b(false, false, 0, b_to_a.write_fd, a_to_b.read_fd);
    a_to_b.write_fd = -1;  // Owned (and closed) by the endpoints now.
    b_to_a.write_fd = -1;
    std::thread thread_b([&] {
      run_guarded(ep_b, fn_b);
      ep_b.close_notify();
    });
    run_guarded(ep_a, fn_a);
    ep_a.close_notify();
    thread_b.join();
    report(ep_a, "");
    report(ep_b, "");
    return;
  }

  Pipe results;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed: " << std::strerror(errno);
    return;
  }
  const bool child_is_a = options.child_is_a;
  if (pid == 0) {
    // Child: run the endpoint, send failures back, _exit without returning into gtest.
    // Never outlive the test process (if it crashes) nor the ctest timeout (if both hang).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(3);
    std::signal(SIGPIPE, SIG_IGN);
    alarm(static_cast<unsigned>(options.child_deadline_s) + 60u);
    close_fd(results.read_fd);
    int notify_fd = child_is_a ? a_to_b.write_fd : b_to_a.write_fd;
    int wait_fd = child_is_a ? b_to_a.read_fd : a_to_b.read_fd;
    close_fd(child_is_a ? a_to_b.read_fd : b_to_a.read_fd);
    close_fd(child_is_a ? b_to_a.write_fd : a_to_b.write_fd);
    {
      Endpoint ep(child_is_a, true, 0, notify_fd, wait_fd);
      run_guarded(ep, child_is_a ? fn_a : fn_b);
      send_failures(results.write_fd, ep);
      _exit(ep.ok() ? 0 : 1);
    }
  }
  close_fd(results.write_fd);
  const int notify_fd = child_is_a ? b_to_a.write_fd : a_to_b.write_fd;
  const int wait_fd = child_is_a ? a_to_b.read_fd : b_to_a.read_fd;
  Endpoint ep(!child_is_a, false, pid, notify_fd, wait_fd);
  (child_is_a ? b_to_a.write_fd : a_to_b.write_fd) = -1;  // Owned by ep now.
  close_fd(child_is_a ? b_to_a.read_fd : a_to_b.read_fd);
  close_fd(child_is_a ? a_to_b.write_fd : b_to_a.write_fd);
  run_guarded(ep, child_is_a ? fn_b : fn_a);
  ep.close_notify();

  const double deadline = now_s() + options.child_deadline_s;
  std::vector<Failure> child_failures;
  read_failures(results.read_fd, deadline, child_failures);
  report(ep, " (parent process)");
  const char* child_name = child_is_a ? "A" : "B";
  for (const Failure& f : child_failures) {
    ADD_FAILURE_AT(f.file.c_str(), f.line) << "endpoint " << child_name << " (child process): " << f.message;
  }
  if (ep.child_killed()) {
    int status = 0;
    if (!ep.child_reaped()) {
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    return;
  }
  bool hung = false;
  const int status = reap_child(pid, deadline, hung);
  if (hung) {
    ADD_FAILURE() << "endpoint " << child_name << " (child process) did not finish within "
                  << options.child_deadline_s << " s after the parent's endpoint; killed";
  } else if (WIFSIGNALED(status)) {
    ADD_FAILURE() << "endpoint " << child_name << " (child process) died of signal " << WTERMSIG(status)
                  << " (" << strsignal(WTERMSIG(status)) << ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && child_failures.empty()) {
    ADD_FAILURE() << "endpoint " << child_name << " (child process) exited with status "
                  << WEXITSTATUS(status) << " without reporting a failure";
  }
}

void run_single(bool is_a, const EndpointFn& fn) {
  Endpoint ep(is_a, false, 0, -1, -1);
  run_guarded(ep, fn);
  report(ep, "");
}

}  // namespace takyon::test
