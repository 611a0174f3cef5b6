// SPDX-License-Identifier: MIT
// The other local user in the security tests: a small program run as uid 65534 that binds, listens
// on or connects to a victim's abstract Unix socket name, or pre-creates /dev/shm names, and
// reports on stdout what it saw. It uses no Takyon code: it is what an attacker could write.
//
//   takyon_impostor listen <name> <seconds>   accept every connection, offer bytes, count what arrives
//   takyon_impostor hold <name> <seconds>     bind and listen, never accept
//   takyon_impostor connect <name> <seconds>  connect as soon as the name is there, send bytes, report
//   takyon_impostor squat <file>...           create each /dev/shm file, mode 0666
// Each mode prints "ready" once in place, then one result line.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

socklen_t abstract_address(const std::string& name, sockaddr_un& addr) {
  addr = {};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), std::min(name.size(), sizeof(addr.sun_path) - 1));
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

void ready() {
  std::printf("ready\n");
  std::fflush(stdout);
}

// Reads from fd until EOF or `seconds`; returns the bytes read, sets closed when the peer closed.
long drain(int fd, double seconds, bool& closed) {
  long total = 0;
  const double end = now_s() + seconds;
  closed = false;
  while (now_s() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) {
      closed = true;
      break;
    }
    total += n;
  }
  return total;
}

int listen_on(const std::string& name) {
  sockaddr_un addr{};
  const socklen_t len = abstract_address(name, addr);
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, 16) != 0) {
    std::printf("error bind/listen: %s\n", std::strerror(errno));
    std::exit(2);
  }
  return fd;
}

int run_listen(const std::string& name, double seconds) {
  const int listener = listen_on(name);
  ready();
  long accepted = 0;
  long received = 0;
  const double end = now_s() + seconds;
  while (now_s() < end) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    ++accepted;
    const char offer[] = "an impostor's bytes, as a Takyon peer would send them";
    (void)send(fd, offer, sizeof(offer), MSG_NOSIGNAL);
    bool closed = false;
    received += drain(fd, 1.0, closed);
    close(fd);
  }
  std::printf("accepted=%ld received=%ld\n", accepted, received);
  return 0;
}

int run_hold(const std::string& name, double seconds) {
  const int listener = listen_on(name);
  ready();
  usleep(static_cast<useconds_t>(seconds * 1e6));
  close(listener);
  std::printf("held\n");
  return 0;
}

int run_connect(const std::string& name, double seconds) {
  sockaddr_un addr{};
  const socklen_t len = abstract_address(name, addr);
  ready();
  const double end = now_s() + seconds;
  while (now_s() < end) {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      close(fd);
      usleep(2000);
      continue;
    }
    char junk[64];
    std::memset(junk, 0x5a, sizeof(junk));
    (void)send(fd, junk, sizeof(junk), MSG_NOSIGNAL);
    bool closed = false;
    const long received = drain(fd, 2.0, closed);
    close(fd);
    std::printf("connected=1 closed_by_peer=%d received=%ld\n", closed ? 1 : 0, received);
    return 0;
  }
  std::printf("connected=0\n");
  return 0;
}

int run_squat(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const int fd = open(argv[i], O_RDWR | O_CREAT | O_EXCL, 0666);
    if (fd < 0 || fchmod(fd, 0666) != 0 || ftruncate(fd, 4096) != 0) {
      std::printf("error %s: %s\n", argv[i], std::strerror(errno));
      return 2;
    }
    close(fd);
  }
  ready();
  std::printf("squatted=%d\n", argc - 2);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "squat") return run_squat(argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s listen|hold|connect <name> <seconds> | squat <file>...\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[3]);
  if (mode == "listen") return run_listen(argv[2], seconds);
  if (mode == "hold") return run_hold(argv[2], seconds);
  if (mode == "connect") return run_connect(argv[2], seconds);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
