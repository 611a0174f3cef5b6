// SPDX-License-Identifier: MIT
// Helpers of the Ucx provider tests.
#include "ucx/ucx_test_util.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "support/path_attrs.hpp"
#include "support/path_ops.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test::ucx {

CreateResult create_alone(const std::string& text, bool endpoint_a, double timeout, int nbufs_atob,
                          int nbufs_btoa) {
  Attrs attrs("Ucx", 1, endpoint_a, true, nbufs_atob, nbufs_btoa, 1024, timeout);
  attrs.set_interconnect(text);
  attrs.attrs.path_destroy_timeout = 0.2;
  CreateResult out;
  const Stopwatch watch;
  TakyonPath* path = takyonCreate(attrs.get());
  out.seconds = watch.seconds();
  out.created = path != nullptr;
  out.error = take_string(attrs.attrs.error_message);
  out.cause = cause_of(out.error, text);
  if (path != nullptr) std::free(takyonDestroy(&path));
  return out;
}

std::string cause_of(const std::string& error, const std::string& interconnect) {
  std::string out = error;
  if (interconnect.empty()) return out;
  for (size_t at = out.find(interconnect); at != std::string::npos; at = out.find(interconnect, at)) {
    out.replace(at, interconnect.size(), "<interconnect>");
  }
  return out;
}

std::string run_command(const std::string& command, int* status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    if (status != nullptr) *status = -1;
    return "popen failed: " + std::string(std::strerror(errno));
  }
  char chunk[4096];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0) output.append(chunk, n);
  const int raw = pclose(pipe);
  if (status != nullptr) *status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  return output;
}

bool have_program(const std::string& program) {
  int status = -1;
  (void)run_command("command -v " + program + " >/dev/null 2>&1", &status);
  return status == 0;
}

std::string abstract_name(uint32_t id) {
  return "takyon-" + std::to_string(getuid()) + "-Ucx-" + std::to_string(id);
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Fd connect_retry(uint16_t port, const std::string& abstract, double patience_s) {
  const Stopwatch watch;
  while (watch.seconds() < patience_s) {
    if (abstract.empty()) {
      Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      to.sin_port = htons(port);
      if (connect(fd.get(), reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0) return fd;
    } else {
      Fd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      sockaddr_un to{};
      to.sun_family = AF_UNIX;
      std::memcpy(to.sun_path + 1, abstract.data(), abstract.size());
      const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract.size());
      if (connect(fd.get(), reinterpret_cast<sockaddr*>(&to), len) == 0) return fd;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Fd();
}

Fd accept_within(int listener, double patience_s) {
  pollfd p{listener, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(patience_s * 1000)) != 1) return Fd();
  return Fd(accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool read_exact(int fd, void* data, size_t n, double patience_s) {
  auto* p = static_cast<char*>(data);
  const Stopwatch watch;
  while (n > 0) {
    const double left = patience_s - watch.seconds();
    pollfd pf{fd, POLLIN, 0};
    if (left <= 0 || poll(&pf, 1, static_cast<int>(left * 1000) + 1) != 1) return false;
    const ssize_t k = recv(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

void drain(int fd, double patience_s) {
  const Stopwatch watch;
  char sink[4096];
  for (;;) {
    const double left = patience_s - watch.seconds();
    pollfd pf{fd, POLLIN, 0};
    if (left <= 0 || poll(&pf, 1, static_cast<int>(left * 1000) + 1) != 1) return;
    if (recv(fd, sink, sizeof(sink), 0) <= 0) return;
  }
}

std::vector<unsigned char> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> out(n);
  for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

}  // namespace takyon::test::ucx
