// SPDX-License-Identifier: MIT
// Helpers of the Ucx provider tests: one endpoint created alone, error-text checks, shell programs
// (python3, socat) run beside a test, and raw sockets that play strangers on a Ucx port.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/path_ops.hpp"

namespace takyon::test::ucx {

/// What takyonCreate() of one endpoint did.
struct CreateResult {
  bool created = false;
  std::string error;   ///< attrs.error_message ("" on success)
  std::string cause;   ///< the error without the interconnect text it quotes (see cause_of)
  double seconds = 0;  ///< how long takyonCreate() took
};

/// Creates one endpoint with `text` (one 1024-byte buffer each way unless told), nobody on the
/// other side; a path that was created is destroyed at once (a forced destroy, 0.2 s bound).
CreateResult create_alone(const std::string& text, bool endpoint_a, double timeout, int nbufs_atob = 1,
                          int nbufs_btoa = 1);

/// `error` with every quote of `interconnect` removed: words a test looks for must come from
/// what the error says, not from the provider string it repeats.
std::string cause_of(const std::string& error, const std::string& interconnect);

/// Runs `command` with /bin/sh, stdout and stderr together; `status` gets the exit status
/// (-1 when it could not run or did not exit normally).
std::string run_command(const std::string& command, int* status = nullptr);

/// Whether `program` is on PATH.
bool have_program(const std::string& program);

/// The abstract Unix socket name "Ucx -ID=<id>" meets on (without the leading NUL).
std::string abstract_name(uint32_t id);

/// A connected or listening socket of a stranger, closed on scope exit.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Connects to 127.0.0.1:`port` (or to the abstract Unix socket `abstract` when not empty),
/// retrying for up to `patience_s` while nobody listens. Invalid Fd on failure.
Fd connect_retry(uint16_t port, const std::string& abstract, double patience_s);
/// Accepts one connection on `listener` within `patience_s`. Invalid Fd on failure.
Fd accept_within(int listener, double patience_s);
/// Writes everything (false when the peer went away).
bool write_all(int fd, const void* data, size_t n);
/// Reads exactly n bytes within `patience_s` (false on EOF, error or timeout).
bool read_exact(int fd, void* data, size_t n, double patience_s);
/// Reads and discards until EOF, an error or `patience_s`.
void drain(int fd, double patience_s);

/// Deterministic noise.
std::vector<unsigned char> random_bytes(size_t n, uint32_t seed = 12345);

/// The Ucx greeting head, as ucx_endpoint.cpp writes it (little-endian, 48 bytes), for strangers
/// that imitate a Takyon endpoint.
struct GreetingHead {
  char magic[8];
  uint32_t side;
  uint32_t polling;
  uint32_t protocol;
  uint32_t nsend;
  uint32_t nrecv;
  uint32_t worker_address_bytes;
  uint64_t control_addr;
  uint64_t body_bytes;
};
static_assert(sizeof(GreetingHead) == 48);
inline constexpr char kGreetingMagic[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'U', '3'};
inline constexpr size_t kVerdictBytes = 256;

}  // namespace takyon::test::ucx
