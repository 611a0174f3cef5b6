// SPDX-License-Identifier: MIT
// Every provider under a low file-descriptor limit: a child process lowers RLIMIT_NOFILE to what it
// has open plus k free descriptors and creates both endpoints of a path (two threads). For each k,
// the child must not die (no signal, no abort): each create either succeeds, and then a message
// arrives intact, or fails with an error that names the cause (file descriptors, EMFILE); an
// endpoint whose peer failed may fail for that reason. With enough descriptors the path works. The
// test does not assume how many descriptors a provider needs.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/byte_pattern.hpp"
#include "support/path_attrs.hpp"
#include "support/path_ids.hpp"
#include "support/sanitizers.hpp"
#include "takyon/takyon.h"

namespace takyon::test {
namespace {

// The free descriptors each child gets, from none upward; the last must be enough for any provider.
constexpr int kFreeFds[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128};
constexpr uint64_t kBytes = 20000;
constexpr double kCreateTimeout = 5.0;
constexpr double kChildLimit = 60.0;  // a child still running then is hung

// Label of the UDP pair (not in provider_configs(): it is neither reliable nor two-way).
constexpr const char* kUnicast = "UnicastSocket";

std::vector<int> open_fds() {
  std::vector<int> out;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return out;
  const int own = dirfd(dir);
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const int fd = std::atoi(e->d_name);
    if (fd != own) out.push_back(fd);
  }
  closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

// The soft limit that leaves exactly `free` descriptor numbers unused below it.
rlim_t limit_leaving(int free) {
  const std::vector<int> open = open_fds();
  rlim_t limit = 0;
  int unused = 0;
  size_t next = 0;
  while (true) {
    while (next < open.size() && open[next] < static_cast<int>(limit)) ++next;
    if (unused == free) return limit;
    if (next < open.size() && open[next] == static_cast<int>(limit)) {
      ++limit;  // taken
    } else {
      ++limit;
      ++unused;
    }
  }
}

uint16_t free_udp_port() {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  uint16_t port = 0;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) close(fd);
  return port;
}

struct Side {
  bool created = false;
  bool data_ok = false;
  std::string error;
};

// One endpoint in the child: create, then one message A to B (and B to A where the path is two-way).
void run_side(const std::string& label, uint32_t id, uint16_t port, bool is_a, std::atomic<bool>& b_got,
              Side& out) {
  const bool unicast = label == kUnicast;
  // The UDP pair has one buffer, from A to B; its interconnect replaces the placeholder's.
  Attrs attrs(unicast ? "InterThreadMemcpy" : label, id, is_a, true, 1, unicast ? 0 : 1, kBytes,
              kCreateTimeout);
  if (unicast) {
    attrs.set_interconnect(std::string(is_a ? "UnicastSendSocket" : "UnicastRecvSocket") +
                           " -IP=127.0.0.1 -port=" + std::to_string(port));
  }
  TakyonPath* path = takyonCreate(attrs.get());
  if (path == nullptr) {
    out.error = attrs.attrs.error_message != nullptr ? attrs.attrs.error_message : "(no message)";
    std::free(attrs.attrs.error_message);
    return;
  }
  out.created = true;
  bool ok = true;
  bool timed_out = false;
  auto send = [&](uint64_t message) {
    fill_pattern(reinterpret_cast<void*>(path->attrs.sender_addr_list[0]), kBytes, message, 0);
    return takyonSend(path, 0, kBytes, 0, 0, &timed_out) && !timed_out;
  };
  auto recv = [&](uint64_t message) {
    uint64_t bytes = 0;
    uint64_t offset = 0;
    if (!takyonRecv(path, 0, &bytes, &offset, &timed_out) || timed_out) return false;
    const auto* data = reinterpret_cast<const std::byte*>(path->attrs.recver_addr_list[0]) + offset;
    return bytes == kBytes && check_pattern(data, bytes, message, 0).empty();
  };
  if (unicast) {
    // Datagrams sent before the receiver exists are lost: send until it has one.
    if (is_a) {
      for (int i = 0; i < 200 && !b_got.load() && ok; ++i) {
        ok = send(1);
        usleep(20000);
      }
    } else {
      ok = recv(1);
      b_got = ok;
    }
  } else {
    ok = is_a ? send(1) && recv(2) : recv(1) && send(2);
  }
  out.data_ok = ok;
  if (!ok && path->attrs.error_message != nullptr) out.error = path->attrs.error_message;
  char* error = takyonDestroy(&path);
  if (error != nullptr) {
    if (out.error.empty()) out.error = error;
    std::free(error);
  }
}

struct ChildResult {
  int free_fds = 0;
  pid_t pid = 0;
  int out_fd = -1;
  std::string output;
};

// Both endpoints of one path, as two threads.
void run_pair(const std::string& label, uint32_t id, uint16_t port, Side& a, Side& b) {
  std::atomic<bool> b_got{false};
  std::thread ta([&] { run_side(label, id, port, true, b_got, a); });
  std::thread tb([&] { run_side(label, id, port, false, b_got, b); });
  ta.join();
  tb.join();
}

// Runs in the forked child: limit, create both endpoints, report on `fd` as "A|B ok|fail <text>".
[[noreturn]] void child_main(const std::string& label, uint32_t id, uint32_t warm_id, uint16_t port,
                             uint16_t warm_port, int free_fds, int fd) {
  if (kSanitized) {
    // UBSan checks a virtual call's object the first time it meets its type, and that check needs
    // a pipe: with no descriptor free it reports a bad vptr that is not there. One path with
    // descriptors to spare first meets every type of the path's life.
    Side a;
    Side b;
    run_pair(label, warm_id, warm_port, a, b);
  }
  const rlim_t limit = limit_leaving(free_fds);
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = limit;
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
    dprintf(fd, "setup setrlimit failed: %s\n", std::strerror(errno));
    _exit(3);
  }
  Side a;
  Side b;
  run_pair(label, id, port, a, b);
  // The UDP port was free when the parent probed it; another process may have bound it since. That
  // race is the test's, not the provider's (whose error says so): try again on another port.
  for (int retry = 0; retry < 3 && label == kUnicast && b.error.find("is in use") != std::string::npos;
       ++retry) {
    a = Side{};
    b = Side{};
    run_pair(label, id, free_udp_port(), a, b);
  }
  auto report = [&](const char* name, const Side& s) {
    std::string text = s.error;
    std::replace(text.begin(), text.end(), '\n', ' ');
    dprintf(fd, "%s %s %s\n", name, s.created && s.data_ok ? "ok" : "fail", text.c_str());
  };
  report("A", a);
  report("B", b);
  close(fd);
  _exit(0);
}

class FdLimit : public ::testing::TestWithParam<const char*> {};

TEST_P(FdLimit, CreateSucceedsOrNamesTheDescriptorShortageNeverCrashes) {
  const std::string label = GetParam();
  std::vector<ChildResult> children;
  for (int free_fds : kFreeFds) {
    const uint32_t id = unique_path_id();
    const uint32_t warm_id = unique_path_id();
    const uint16_t port = label == kUnicast ? free_udp_port() : 0;
    const uint16_t warm_port = label == kUnicast ? free_udp_port() : 0;
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(pipe_fds[0]);
      child_main(label, id, warm_id, port, warm_port, free_fds, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    children.push_back({free_fds, pid, pipe_fds[0], ""});
  }
  const double until = now_s() + kChildLimit;
  const std::regex fd_cause("file descriptor|too many open files|EMFILE", std::regex::icase);
  bool worked_at_most = false;
  for (ChildResult& c : children) {
    char buf[4096];
    while (now_s() < until) {
      pollfd p{c.out_fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = read(c.out_fd, buf, sizeof(buf));
      if (n <= 0) break;  // the child closed its end (exited)
      c.output.append(buf, static_cast<size_t>(n));
    }
    close(c.out_fd);
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(c.pid, &status, WNOHANG)) == 0 && now_s() < until) usleep(10000);
    if (done == 0) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      ADD_FAILURE() << label << " with " << c.free_fds << " free descriptors: the child hung\n" << c.output;
      continue;
    }
    SCOPED_TRACE(label + " with " + std::to_string(c.free_fds) + " free descriptors:\n" + c.output);
    ASSERT_FALSE(WIFSIGNALED(status)) << "the child died of signal " << WTERMSIG(status);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit status " << status;
    const bool a_ok = c.output.find("A ok") != std::string::npos;
    const bool b_ok = c.output.find("B ok") != std::string::npos;
    std::printf("%-20s free %3d: %s", label.c_str(), c.free_fds, a_ok && b_ok ? "works\n" : c.output.c_str());
    if (a_ok && b_ok) {
      if (c.free_fds == kFreeFds[std::size(kFreeFds) - 1]) worked_at_most = true;
      continue;
    }
    // Some endpoint failed: one of the errors must name the shortage.
    EXPECT_TRUE(std::regex_search(c.output, fd_cause)) << "no error names the descriptor shortage";
  }
  EXPECT_TRUE(worked_at_most) << label << " does not work even with " << kFreeFds[std::size(kFreeFds) - 1]
                              << " free descriptors";
  for (uint32_t id : take_issued_path_ids()) remove_shm_entries_for_id(id);
}

std::vector<const char*> fd_limit_providers() {
  std::vector<const char*> out(all_providers().begin(), all_providers().end());
  out.push_back(kUnicast);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllProviders, FdLimit, ::testing::ValuesIn(fd_limit_providers()),
                         provider_name_param_name);

}  // namespace
}  // namespace takyon::test
