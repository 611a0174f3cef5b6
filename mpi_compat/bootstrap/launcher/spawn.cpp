// SPDX-License-Identifier: MIT
// Starting ranks (see spawn.hpp).
#include "spawn.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "../cpu_order.hpp"

namespace takyon::mpi::launcher {
namespace {

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Writes a line to stderr without allocating (between fork and exec).
void child_complain(std::initializer_list<const char*> parts) {
  char line[512];
  size_t n = 0;
  for (const char* s : parts) {
    for (; s != nullptr && *s != '\0' && n + 1 < sizeof line; ++s) line[n++] = *s;
  }
  line[n++] = '\n';
  (void)!::write(STDERR_FILENO, line, n);  // one write: lines from several ranks do not interleave
}

}  // namespace

std::string resolve_program(const std::string& name) {
  if (name.empty()) throw LaunchError("takyon-run: the program name is empty", 127);
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), F_OK) != 0) {
      throw LaunchError("takyon-run: cannot run '" + name + "': " + std::strerror(errno), 127);
    }
    if (!is_regular_file(name) || ::access(name.c_str(), X_OK) != 0) {
      throw LaunchError("takyon-run: cannot run '" + name + "': not an executable file", 126);
    }
    return name;
  }
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_unexecutable = false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    // An empty PATH entry means the current directory.
    std::string candidate = (end > start ? path.substr(start, end - start) : std::string(".")) + "/" + name;
    if (is_regular_file(candidate)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      found_unexecutable = true;
    }
    start = end + 1;
  }
  if (found_unexecutable) throw LaunchError("takyon-run: cannot run '" + name + "': not executable", 126);
  throw LaunchError("takyon-run: cannot run '" + name + "': not found in PATH", 127);
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) {
    throw LaunchError(std::string("takyon-run: sched_getaffinity: ") + std::strerror(errno), 1);
  }
  std::vector<int> cpus = cpus_cores_first(set);
  if (cpus.empty()) throw LaunchError("takyon-run: no CPU to bind ranks to", 1);
  return cpus;
}

std::vector<std::string> with_variables(const std::vector<std::string>& base,
                                        const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::string> out;
  out.reserve(base.size() + set.size());
  for (const auto& entry : base) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : set) replaced = replaced || name == k;
    if (!replaced) out.push_back(entry);
  }
  for (const auto& [k, v] : set) out.push_back(k + "=" + v);
  return out;
}

pid_t spawn_rank(const RankLaunch& launch) {
  // Everything the child needs is built before fork: the child only makes system calls.
  std::vector<char*> argv;
  for (const auto& a : launch.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : launch.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (launch.cpu >= 0) CPU_SET(launch.cpu, &cpus);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) throw LaunchError(std::string("takyon-run: fork: ") + std::strerror(errno), 1);
  if (pid > 0) return pid;

  // The child. A rank must not outlive takyon-run (nobody would reap or stop it).
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  if (launch.stdin_fd >= 0 && ::dup2(launch.stdin_fd, STDIN_FILENO) < 0) ::_exit(1);
  if (launch.cpu >= 0 && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
    child_complain({"takyon-run: sched_setaffinity: ", std::strerror(errno)});
    ::_exit(1);
  }
  (void)::sigprocmask(SIG_SETMASK, &launch.sigmask, nullptr);
  ::execve(launch.path.c_str(), argv.data(), envp.data());
  const int err = errno;
  child_complain({"takyon-run: cannot execute '", launch.path.c_str(), "': ", std::strerror(err)});
  ::_exit(err == ENOENT ? 127 : 126);
}

}  // namespace takyon::mpi::launcher
