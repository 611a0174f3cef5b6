// SPDX-License-Identifier: MIT
// Links over the socket providers' takyon paths and over plain sockets (the baseline).
#include "socket_link.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "clock.hpp"
#include "path_protocol.hpp"

namespace takyon::bench {
namespace {

constexpr int kAcceptTimeoutMs = 20'000;
constexpr int kReceiveBufferBytes = 8 << 20;  // what the UDP providers ask for

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::uint64_t deadline_after(double timeout_s) {
  return static_cast<std::uint64_t>(now_ns()) + static_cast<std::uint64_t>(timeout_s * 1e9);
}

bool passed(std::uint64_t deadline) {
  return static_cast<std::uint64_t>(now_ns()) >= deadline;
}

// Page-aligned, written once (so no page maps the shared zero page), like takyon's own buffers.
class SlotBuffers {
 public:
  SlotBuffers(int count, std::uint64_t bytes, int fill) : bytes_(static_cast<std::size_t>(bytes)) {
    for (int i = 0; i < count; ++i) {
      void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw_errno("mmap for a plain socket buffer");
      std::memset(p, fill + i, bytes_);
      maps_.push_back(static_cast<std::byte*>(p));
    }
  }
  ~SlotBuffers() {
    for (std::byte* p : maps_) munmap(p, bytes_);
  }
  SlotBuffers(const SlotBuffers&) = delete;
  SlotBuffers& operator=(const SlotBuffers&) = delete;
  SlotBuffers(SlotBuffers&&) = delete;
  SlotBuffers& operator=(SlotBuffers&&) = delete;

  [[nodiscard]] std::byte* at(int slot) const { return maps_.at(static_cast<std::size_t>(slot)); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  std::vector<std::byte*> maps_;
  std::size_t bytes_;
};

// ----- the provider's paths --------------------------------------------------------------------

class PathStreamLink final : public Link {
 public:
  PathStreamLink(const std::string& interconnect, bool endpoint_a, bool polling, std::uint64_t buffer_bytes)
      : path_(bench_path_options(interconnect, endpoint_a, polling, buffer_bytes)) {
    fill_send_buffers(path_);
    for (int i = 0; i < path_.send_buffer_count(); ++i) send_.push_back(path_.send_buffer(i).data());
    for (int i = 0; i < path_.recv_buffer_count(); ++i) recv_.push_back(path_.recv_buffer(i).data());
  }
  void send(int slot, std::uint64_t bytes) override { send_message(path_, slot, bytes); }
  std::optional<std::uint64_t> recv(int slot, std::uint64_t /*expected*/, double /*timeout_s*/) override {
    const takyon::Received got = recv_message(path_, slot);
    if (got.offset != 0) {
      throw std::runtime_error("a message arrived at offset " + std::to_string(got.offset));
    }
    return got.bytes;
  }
  std::byte* send_data(int slot) override { return send_[static_cast<std::size_t>(slot)]; }
  const std::byte* recv_data(int slot) override { return recv_[static_cast<std::size_t>(slot)]; }
  [[nodiscard]] bool lossy() const override { return false; }
  void write_window(std::uint64_t bytes, std::uint64_t window) override {
    for (std::uint64_t i = 0; i < window; ++i) path_.write_start(0, bytes, 0, 0);
    while (!path_.is_one_sided_finished()) {
    }
  }
  void close() override { path_.destroy(); }

 private:
  takyon::Path path_;
  std::vector<std::byte*> send_;
  std::vector<std::byte*> recv_;
};

takyon::PathOptions one_way_options(const std::string& interconnect, bool endpoint_a, bool polling, int nsend,
                                    int nrecv, std::uint64_t buffer_bytes) {
  takyon::PathOptions options;
  options.provider = interconnect;
  options.endpoint_a = endpoint_a;
  options.polling = polling;
  options.send_completion = takyon::Completion::kBlocking;
  options.send_bytes.assign(static_cast<std::size_t>(nsend), buffer_bytes);
  options.recv_bytes.assign(static_cast<std::size_t>(nrecv), buffer_bytes);
  options.timeouts.create = 20.0;
  options.timeouts.destroy = 10.0;
  // A start timeout is not an error: the tests wait in slices and look at the control channel.
  options.timeouts.recv_start = kDatagramSliceS;
  return options;
}

// Two one-way paths: this side's sender and this side's receiver. Endpoint A of the A->B path
// sends (kWindowBuffers buffers), endpoint B of the B->A path sends (1 buffer).
class PathDatagramLink final : public Link {
 public:
  PathDatagramLink(const SocketProviderStrings& s, bool endpoint_a, bool polling, std::uint64_t buffer_bytes)
      : in_(one_way_options(endpoint_a ? s.b_to_a_recv : s.a_to_b_recv, endpoint_a, polling, 0,
                            endpoint_a ? 1 : kWindowBuffers, buffer_bytes)),
        out_(one_way_options(endpoint_a ? s.a_to_b_send : s.b_to_a_send, endpoint_a, polling,
                             endpoint_a ? kWindowBuffers : 1, 0, buffer_bytes)) {
    fill_send_buffers(out_);
    for (int i = 0; i < out_.send_buffer_count(); ++i) send_.push_back(out_.send_buffer(i).data());
    for (int i = 0; i < in_.recv_buffer_count(); ++i) recv_.push_back(in_.recv_buffer(i).data());
  }
  void send(int slot, std::uint64_t bytes) override { send_message(out_, slot, bytes); }
  std::optional<std::uint64_t> recv(int slot, std::uint64_t /*expected*/, double timeout_s) override {
    const std::uint64_t deadline = deadline_after(timeout_s);
    for (;;) {
      const std::optional<takyon::Received> got = in_.recv(slot);
      if (got) return got->bytes;
      if (passed(deadline)) return std::nullopt;
    }
  }
  std::byte* send_data(int slot) override { return send_[static_cast<std::size_t>(slot)]; }
  const std::byte* recv_data(int slot) override { return recv_[static_cast<std::size_t>(slot)]; }
  [[nodiscard]] bool lossy() const override { return true; }
  void close() override {
    out_.destroy();
    in_.destroy();
  }

 private:
  takyon::Path in_;
  takyon::Path out_;
  std::vector<std::byte*> send_;
  std::vector<std::byte*> recv_;
};

// ----- the plain baseline ----------------------------------------------------------------------

// A connected stream socket, blocking: one send() and one recv(MSG_WAITALL) per message (more
// only if the kernel splits it). A stream cannot carry an empty message, so 0 bytes travel as 1.
class PlainStreamLink final : public Link {
 public:
  PlainStreamLink(int fd, int nsend, int nrecv, std::uint64_t buffer_bytes)
      : fd_(fd), send_(nsend, buffer_bytes, 0x5a), recv_(nrecv, buffer_bytes, 0) {}
  ~PlainStreamLink() override { close_fd(fd_); }
  PlainStreamLink(const PlainStreamLink&) = delete;
  PlainStreamLink& operator=(const PlainStreamLink&) = delete;
  PlainStreamLink(PlainStreamLink&&) = delete;
  PlainStreamLink& operator=(PlainStreamLink&&) = delete;

  void send(int slot, std::uint64_t bytes) override {
    const std::byte* p = send_.at(slot);
    std::size_t left = std::max<std::size_t>(static_cast<std::size_t>(bytes), 1);
    while (left > 0) {
      const ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw_errno("plain socket send");
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  std::optional<std::uint64_t> recv(int slot, std::uint64_t expected, double /*timeout_s*/) override {
    std::byte* p = recv_.at(slot);
    std::size_t left = std::max<std::size_t>(static_cast<std::size_t>(expected), 1);
    while (left > 0) {
      const ssize_t n = ::recv(fd_, p, left, MSG_WAITALL);
      if (n == 0) throw std::runtime_error("plain socket: the other process closed the connection");
      if (n < 0) {
        if (errno == EINTR) continue;
        throw_errno("plain socket recv");
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    return expected;
  }
  std::byte* send_data(int slot) override { return send_.at(slot); }
  const std::byte* recv_data(int slot) override { return recv_.at(slot); }
  [[nodiscard]] bool lossy() const override { return false; }

 private:
  int fd_;
  SlotBuffers send_;
  SlotBuffers recv_;
};

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// An unconnected UDP socket, blocking: one sendto() per message, one recv() per datagram; the
// receive timeout (SO_RCVTIMEO) is the slice a connectionless link waits in.
class PlainDatagramLink final : public Link {
 public:
  PlainDatagramLink(int fd, std::uint16_t peer_port, int nsend, int nrecv, std::uint64_t buffer_bytes)
      : fd_(fd),
        peer_(loopback(peer_port)),
        send_(nsend, buffer_bytes, 0x5a),
        recv_(nrecv, buffer_bytes, 0) {}
  ~PlainDatagramLink() override { close_fd(fd_); }
  PlainDatagramLink(const PlainDatagramLink&) = delete;
  PlainDatagramLink& operator=(const PlainDatagramLink&) = delete;
  PlainDatagramLink(PlainDatagramLink&&) = delete;
  PlainDatagramLink& operator=(PlainDatagramLink&&) = delete;

  void send(int slot, std::uint64_t bytes) override {
    for (;;) {
      const ssize_t n = ::sendto(fd_, send_.at(slot), static_cast<std::size_t>(bytes), 0,
                                 reinterpret_cast<const sockaddr*>(&peer_), sizeof(peer_));
      if (n >= 0) return;
      if (errno != EINTR) throw_errno("plain UDP sendto");
    }
  }
  std::optional<std::uint64_t> recv(int slot, std::uint64_t /*expected*/, double timeout_s) override {
    const std::uint64_t deadline = deadline_after(timeout_s);
    for (;;) {
      const ssize_t n = ::recv(fd_, recv_.at(slot), recv_.bytes(), MSG_TRUNC);
      if (n >= 0) {
        if (static_cast<std::size_t>(n) > recv_.bytes()) {
          throw std::runtime_error("plain UDP: a datagram of " + std::to_string(n) + " bytes was truncated");
        }
        return static_cast<std::uint64_t>(n);
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) throw_errno("plain UDP recv");
      if (passed(deadline)) return std::nullopt;
    }
  }
  std::byte* send_data(int slot) override { return send_.at(slot); }
  const std::byte* recv_data(int slot) override { return recv_.at(slot); }
  [[nodiscard]] bool lossy() const override { return true; }

 private:
  int fd_;
  sockaddr_in peer_;
  SlotBuffers send_;
  SlotBuffers recv_;
};

void set_int_option(int fd, int level, int name, int value, const char* what) {
  if (setsockopt(fd, level, name, &value, sizeof(value)) != 0) throw_errno(what);
}

// Binds to 127.0.0.1:0 and returns the port.
std::uint16_t bind_loopback(int fd) {
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) throw_errno("bind 127.0.0.1:0");
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) throw_errno("getsockname");
  return ntohs(addr.sin_port);
}

// Hands `fd` to a new link, closing it if the link cannot be made.
template <class L, class... Args>
std::unique_ptr<Link> adopt(int fd, Args... args) {
  try {
    return std::make_unique<L>(fd, args...);
  } catch (...) {
    ::close(fd);
    throw;
  }
}

int udp_socket() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_errno("socket(SOCK_DGRAM)");
  return fd;
}

}  // namespace

void Link::write_window(std::uint64_t /*bytes*/, std::uint64_t /*window*/) {
  throw std::runtime_error("this link has no one-sided writes");
}

std::unique_ptr<Link> open_provider_link(SocketKind kind, const SocketProviderStrings& strings,
                                         bool endpoint_a, bool polling, std::uint64_t buffer_bytes) {
  if (is_datagram(kind)) {
    return std::make_unique<PathDatagramLink>(strings, endpoint_a, polling, buffer_bytes);
  }
  return std::make_unique<PathStreamLink>(endpoint_a ? strings.a : strings.b, endpoint_a, polling,
                                          buffer_bytes);
}

std::unique_ptr<Link> open_path_link(const std::string& interconnect, bool endpoint_a, bool polling,
                                     std::uint64_t buffer_bytes) {
  return std::make_unique<PathStreamLink>(interconnect, endpoint_a, polling, buffer_bytes);
}

PlainSockets::PlainSockets(SocketKind kind) : kind_(kind) {
  try {
    switch (kind) {
      case SocketKind::kUnix: {
        std::array<int, 2> pair{};
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()) != 0)
          throw_errno("socketpair(AF_UNIX)");
        fd_a_ = pair[0];
        fd_b_ = pair[1];
        break;
      }
      case SocketKind::kTcp:
        fd_a_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_a_ < 0) throw_errno("socket(SOCK_STREAM)");
        port_a_ = bind_loopback(fd_a_);
        if (listen(fd_a_, 1) != 0) throw_errno("listen");
        break;
      case SocketKind::kUnicast:
      case SocketKind::kMulticast: {
        fd_a_ = udp_socket();
        fd_b_ = udp_socket();
        port_a_ = bind_loopback(fd_a_);
        port_b_ = bind_loopback(fd_b_);
        const timeval slice{0, static_cast<suseconds_t>(kDatagramSliceS * 1e6)};
        for (int fd : {fd_a_, fd_b_}) {
          set_int_option(fd, SOL_SOCKET, SO_RCVBUF, kReceiveBufferBytes, "SO_RCVBUF");
          if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &slice, sizeof(slice)) != 0) throw_errno("SO_RCVTIMEO");
        }
        break;
      }
    }
  } catch (...) {
    close_fd(fd_a_);
    close_fd(fd_b_);
    throw;
  }
}

PlainSockets::~PlainSockets() {
  close_fd(fd_a_);
  close_fd(fd_b_);
}

std::unique_ptr<Link> PlainSockets::open(bool endpoint_a, std::uint64_t buffer_bytes) {
  const int nsend = endpoint_a ? kWindowBuffers : 1;
  const int nrecv = endpoint_a ? 1 : kWindowBuffers;
  const std::uint64_t bytes = std::max<std::uint64_t>(buffer_bytes, 8);
  int mine = -1;
  switch (kind_) {
    case SocketKind::kUnix:
      close_fd(endpoint_a ? fd_b_ : fd_a_);
      std::swap(mine, endpoint_a ? fd_a_ : fd_b_);
      return adopt<PlainStreamLink>(mine, nsend, nrecv, bytes);
    case SocketKind::kTcp:
      if (endpoint_a) {
        pollfd p{fd_a_, POLLIN, 0};
        const int ready = poll(&p, 1, kAcceptTimeoutMs);
        if (ready <= 0) {
          if (ready == 0) {
            throw std::runtime_error("plain TCP: the other process did not connect within 20 s");
          }
          throw_errno("poll on the plain TCP listener");
        }
        mine = accept4(fd_a_, nullptr, nullptr, SOCK_CLOEXEC);
        if (mine < 0) throw_errno("accept on the plain TCP listener");
        close_fd(fd_a_);
      } else {
        close_fd(fd_a_);
        mine = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (mine < 0) throw_errno("socket(SOCK_STREAM)");
        const sockaddr_in to = loopback(port_a_);
        if (connect(mine, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) != 0) {
          const int err = errno;
          ::close(mine);
          throw std::system_error(err, std::generic_category(), "plain TCP connect to 127.0.0.1");
        }
      }
      try {
        set_int_option(mine, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
      } catch (...) {
        ::close(mine);
        throw;
      }
      return adopt<PlainStreamLink>(mine, nsend, nrecv, bytes);
    case SocketKind::kUnicast:
    case SocketKind::kMulticast:
      break;
  }
  close_fd(endpoint_a ? fd_b_ : fd_a_);
  std::swap(mine, endpoint_a ? fd_a_ : fd_b_);
  return adopt<PlainDatagramLink>(mine, endpoint_a ? port_b_ : port_a_, nsend, nrecv, bytes);
}

}  // namespace takyon::bench
