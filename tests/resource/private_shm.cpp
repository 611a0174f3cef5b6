// SPDX-License-Identifier: MIT
// A child process with a small /dev/shm of its own (see private_shm.hpp).
#include "private_shm.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace takyon::test {

std::string private_shm_unavailable() {
  if (geteuid() != 0) return "mounting a private tmpfs on /dev/shm needs root";
  const ChildResult probe = run_with_private_shm("64k", [](int) { return 0; });
  if (!probe.exited || probe.code != 0) return "no private mount namespace here: " + probe.describe();
  return "";
}

std::string ChildResult::describe() const {
  std::string text = exited ? "exit code " + std::to_string(code)
                            : "killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")";
  return text + ", report: '" + report + "'";
}

void report(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

ChildResult run_with_private_shm(const std::string& size, const std::function<int(int report_fd)>& body) {
  return run_in_child([&](int fd) {
    const std::string options = "size=" + size + ",mode=1777";
    if (unshare(CLONE_NEWNS) != 0) {
      report(fd, std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno));
      return 100;
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
      report(fd, std::string("mount: ") + std::strerror(errno));
      return 100;
    }
    return body(fd);
  });
}

ChildResult run_in_child(const std::function<int(int report_fd)>& body) {
  ChildResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.report = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t child = fork();
  if (child < 0) {
    result.report = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (child == 0) {
    close(fds[0]);
    _exit(body(fds[1]));
  }
  close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.report.append(buf, size_t(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.exited = WIFEXITED(status);
  result.code = result.exited ? WEXITSTATUS(status) : WTERMSIG(status);
  return result;
}

}  // namespace takyon::test
