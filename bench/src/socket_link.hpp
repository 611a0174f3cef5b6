// SPDX-License-Identifier: MIT
// What the socket tests run over, on one side: the provider's path(s) or a plain socket written
// directly on the system calls. Both run the very same test code, so the only difference between
// a provider's figure and its baseline is what a Link does underneath.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "socket_providers.hpp"

namespace takyon::bench {

/// Receive slices of connectionless links: a receiver that waited this long without a message
/// looks at the control channel (and B calls a partly received window lost).
inline constexpr double kDatagramSliceS = 0.005;

/// One process's end of a two-process link. Slots are the path's buffers: endpoint A sends from
/// kWindowBuffers slots and receives into 1, endpoint B the reverse; every slot holds the largest
/// message of the run.
class Link {
 public:
  Link() = default;
  virtual ~Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  Link(Link&&) = delete;
  Link& operator=(Link&&) = delete;

  /// Sends `bytes` from send slot `slot` (blocking until the data is the kernel's).
  virtual void send(int slot, std::uint64_t bytes) = 0;
  /// The next message, received into slot `slot`; returns its size. A stream link reads exactly
  /// `expected` bytes. A connectionless link gives up after about `timeout_s` (nullopt); a
  /// connected one waits for ever (a peer that went away is an exception).
  virtual std::optional<std::uint64_t> recv(int slot, std::uint64_t expected, double timeout_s) = 0;
  [[nodiscard]] virtual std::byte* send_data(int slot) = 0;
  [[nodiscard]] virtual const std::byte* recv_data(int slot) = 0;
  /// Connectionless (UDP): messages may be lost, so the tests use sequence numbers and timeouts.
  [[nodiscard]] virtual bool lossy() const = 0;
  /// Started one-sided writes of `bytes` from send slot 0 into the peer's receive slot 0, `window`
  /// times, then the finish test until they are complete at the peer. Only a takyon path whose
  /// provider has one-sided operations does this; the others throw.
  virtual void write_window(std::uint64_t bytes, std::uint64_t window);
  /// Graceful end (destroys the takyon paths); the destructor is the forced one.
  virtual void close() {}
};

/// The provider's side of a run: one connected takyon path (InterProcessSocket, Socket) or two
/// one-way paths (Unicast, Multicast: A->B and B->A). Creates them (blocking until the peer's
/// side exists, bounded by the create timeout); throws takyon::Error on failure.
std::unique_ptr<Link> open_provider_link(SocketKind kind, const SocketProviderStrings& strings,
                                         bool endpoint_a, bool polling, std::uint64_t buffer_bytes);

/// One connected takyon path with the bench's layout (bench_path_options) as a Link: the Ucx
/// providers' side of a run. Throws takyon::Error on failure.
std::unique_ptr<Link> open_path_link(const std::string& interconnect, bool endpoint_a, bool polling,
                                     std::uint64_t buffer_bytes);

/// The plain baseline's sockets, made before the fork so both processes inherit what they need:
/// an AF_UNIX stream socket pair (InterProcessSocket), a TCP listener on 127.0.0.1 that B
/// connects to after the fork (Socket), two UDP sockets bound to 127.0.0.1 (Unicast, Multicast;
/// 8 MiB receive buffers asked for, as the provider does).
class PlainSockets {
 public:
  explicit PlainSockets(SocketKind kind);
  ~PlainSockets();
  PlainSockets(const PlainSockets&) = delete;
  PlainSockets& operator=(const PlainSockets&) = delete;
  PlainSockets(PlainSockets&&) = delete;
  PlainSockets& operator=(PlainSockets&&) = delete;

  /// In the process playing `endpoint_a`, after the fork: closes the other side's descriptors
  /// and returns this side's link (A accepts B's TCP connection here; bounded by 20 s).
  std::unique_ptr<Link> open(bool endpoint_a, std::uint64_t buffer_bytes);

 private:
  SocketKind kind_;
  int fd_a_ = -1;             // Unix: A's end; TCP: the listener; UDP: A's socket
  int fd_b_ = -1;             // Unix: B's end; UDP: B's socket
  std::uint16_t port_a_ = 0;  // TCP: the listener's port; UDP: A's port
  std::uint16_t port_b_ = 0;  // UDP: B's port
};

}  // namespace takyon::bench
