// SPDX-License-Identifier: MIT
// A child process with a small /dev/shm of its own (see private_shm.hpp).
#include "private_shm.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace takyon::test {

bool make_fallocate_fail() {
#if defined(__x86_64__)
  constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
  errno = ENOSYS;
  return false;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fallocate, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSPC & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#endif
}

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
