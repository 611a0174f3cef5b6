// SPDX-License-Identifier: MIT
// Starting, joining and (on failure) killing the peer thread or process.
#include "peer.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "cpu_placement.hpp"

namespace takyon::bench {

Peer::Peer(PeerKind kind, int cpu, std::function<void()> body) : kind_(kind) {
  if (kind_ == PeerKind::kThread) {
    thread_ = std::thread([cpu, body = std::move(body), error = thread_error_] {
      pin_current_thread(cpu);
      try {
        body();
      } catch (const std::exception& e) {
        *error = e.what();
      }
    });
    return;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  child_ = fork();
  if (child_ < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (child_ == 0) {
    pin_current_thread(cpu);
    int code = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "takyon-bench: peer process: %s\n", e.what());
      code = 1;
    }
    std::fflush(stderr);
    _exit(code);
  }
}

Peer::~Peer() {
  if (thread_.joinable()) thread_.join();
  if (child_ > 0) {
    kill(child_, SIGKILL);
    int status = 0;
    while (waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void Peer::join() {
  if (kind_ == PeerKind::kThread) {
    if (thread_.joinable()) thread_.join();
    if (!thread_error_->empty()) throw std::runtime_error("peer thread: " + *thread_error_);
    return;
  }
  if (child_ <= 0) return;
  int status = 0;
  pid_t done = -1;
  while ((done = waitpid(child_, &status, 0)) < 0 && errno == EINTR) {
  }
  const pid_t pid = child_;
  child_ = -1;
  if (done < 0) throw std::system_error(errno, std::generic_category(), "waitpid");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("peer process " + std::to_string(pid) + " killed by signal " +
                             std::to_string(WTERMSIG(status)));
  }
  throw std::runtime_error("peer process " + std::to_string(pid) + " exited with status " +
                           std::to_string(WEXITSTATUS(status)) + " (its error is on stderr above)");
}

}  // namespace takyon::bench
