// SPDX-License-Identifier: MIT
// An attacker for the launch tests: opens many idle connections to takyon-run's rendezvous (an
// abstract Unix socket "@name", or "a.b.c.d:port") and holds them, sending nothing.
//
//   rendezvous_flood <address> <count> [churn]
//
// Prints "flood: connected N, failed M" once every connect returned, then holds the connections
// until killed. With "churn" a connection the launcher closes is opened again at once, so the
// pressure lasts as long as the process does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Target {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_UNIX;
};

bool parse_target(const std::string& text, Target& t) {
  if (!text.empty() && text[0] == '@') {
    auto* un = reinterpret_cast<sockaddr_un*>(&t.addr);
    un->sun_family = AF_UNIX;
    if (text.size() > sizeof un->sun_path) return false;
    std::memcpy(un->sun_path + 1, text.data() + 1, text.size() - 1);  // sun_path[0] stays '\0': abstract
    t.len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + text.size());
    t.family = AF_UNIX;
    return true;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  auto* in = reinterpret_cast<sockaddr_in*>(&t.addr);
  in->sin_family = AF_INET;
  in->sin_port = htons(static_cast<uint16_t>(std::atoi(text.c_str() + colon + 1)));
  if (inet_pton(AF_INET, text.substr(0, colon).c_str(), &in->sin_addr) != 1) return false;
  t.len = sizeof(sockaddr_in);
  t.family = AF_INET;
  return true;
}

/// A blocking connect that gives up after 2 s (a full TCP backlog drops SYNs; a full Unix one
/// blocks the caller).
int open_one(const Target& t) {
  const int fd = ::socket(t.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{2, 0};
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&t.addr), t.len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: rendezvous_flood <@name|a.b.c.d:port> <count> [churn]\n");
    return 2;
  }
  Target target;
  if (!parse_target(argv[1], target)) {
    std::fprintf(stderr, "flood: bad address '%s'\n", argv[1]);
    return 2;
  }
  const int count = std::atoi(argv[2]);
  const bool churn = argc > 3 && std::strcmp(argv[3], "churn") == 0;
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &lim);
  }

  std::vector<pollfd> fds;
  fds.reserve(static_cast<size_t>(count));
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    const int fd = open_one(target);
    if (fd < 0) {
      ++failed;
      continue;
    }
    fds.push_back({fd, POLLIN, 0});
  }
  std::printf("flood: connected %zu, failed %d\n", fds.size(), failed);
  std::fflush(stdout);

  // Hold: notice what the launcher closes; with churn, open a replacement.
  while (true) {
    if (fds.empty()) {
      if (!churn) {
        ::pause();
        continue;
      }
      const int fd = open_one(target);
      if (fd >= 0) fds.push_back({fd, POLLIN, 0});
      continue;
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (auto& p : fds) {
      if (p.revents == 0) continue;
      char buf[256];
      if (::recv(p.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) continue;  // a refusal frame; EOF comes next
      ::close(p.fd);
      p.fd = churn ? open_one(target) : -1;
    }
    std::erase_if(fds, [](const pollfd& p) { return p.fd < 0; });
  }
}
