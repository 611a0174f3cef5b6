// SPDX-License-Identifier: MIT
// The takyon-run client: joins the launcher's rendezvous (an abstract Unix socket) with the job's
// secret, then runs allgather/barrier/abort/finalize as request/answer frames (see wire.hpp). A
// closed connection means the launcher is gone; a kJobFailed frame means a peer died or aborted.
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "job_id.hpp"
#include "run_env.hpp"
#include "socket_util.hpp"
#include "sources.hpp"
#include "wire.hpp"

namespace takyon::mpi::detail {
namespace {

using Clock = std::chrono::steady_clock;

/// The launcher answers a hello at once; this only guards against a stopped launcher.
constexpr auto kHelloTimeout = std::chrono::seconds(60);
/// MPI_Abort waits this long for the launcher to take note before the rank exits anyway.
constexpr auto kAbortAckTimeout = std::chrono::seconds(2);

std::string env_text(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) {
    throw BootstrapError(std::string("takyon-run environment: ") + name +
                         " is not set (TAKYON_RUN_RANK is, so this should have been started by takyon-run)");
  }
  return v;
}

int env_int(const char* name, int lo, int hi) {
  const std::string text = env_text(name);
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    throw BootstrapError(std::string("takyon-run environment: ") + name + "='" + text +
                         "' is not a number in " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return value;
}

class RunClientBootstrap final : public Bootstrap {
 public:
  RunClientBootstrap() : parser_(wire::kMaxTextBytes + 64) {
    job_.launcher = "takyon-run";
    job_.size = env_int(run_env::kSize, 1, 1 << 20);
    job_.rank = env_int(run_env::kRank, 0, job_.size - 1);
    job_.local_size = env_int(run_env::kLocalSize, 1, job_.size);
    job_.local_rank = env_int(run_env::kLocalRank, 0, job_.local_size - 1);
    job_.job_id = env_text(run_env::kJobId);
    if (!is_valid_job_id(job_.job_id)) {
      throw BootstrapError("takyon-run environment: " + std::string(run_env::kJobId) + "='" + job_.job_id +
                           "' is not 1-32 characters of [A-Za-z0-9_-]");
    }
    secret_ = env_text(run_env::kSecret);
    address_ = env_text(run_env::kRendezvous);
    // The largest answer: every rank's blob with its length, plus the sequence number and count.
    const size_t max_answer = 16 + static_cast<size_t>(job_.size) * (4 + wire::kMaxBlobBytes);
    parser_.set_max_payload(max_answer > wire::kMaxTextBytes + 64 ? max_answer : wire::kMaxTextBytes + 64);
    connect_and_join();
  }

  [[nodiscard]] const JobInfo& job() const override { return job_; }

  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > wire::kMaxBlobBytes) {
      throw BootstrapError("takyon-run allgather: " + std::to_string(mine.size()) + " bytes, more than the " +
                           std::to_string(wire::kMaxBlobBytes) + " allowed");
    }
    check_usable("allgather");
    const uint64_t seq = ++seq_;
    send_frame(wire::Type::kAllgather, wire::Writer().u64(seq).raw(mine).take(), "allgather");
    const wire::Frame answer = expect(wire::Type::kAllgatherDone, "allgather");
    try {
      wire::Reader in(answer.payload);
      const uint64_t got_seq = in.u64();
      const uint32_t n = in.u32();
      if (got_seq != seq || n != static_cast<uint32_t>(job_.size)) {
        throw wire::WireError("answer for collective #" + std::to_string(got_seq) + " with " +
                              std::to_string(n) + " blobs, expected #" + std::to_string(seq) + " with " +
                              std::to_string(job_.size));
      }
      std::vector<std::string> all;
      all.reserve(n);
      for (uint32_t i = 0; i < n; ++i) all.emplace_back(in.bytes());
      in.expect_end();
      return all;
    } catch (const wire::WireError& e) {
      broken("allgather: bad answer from the launcher: " + std::string(e.what()));
    }
  }

  void barrier() override {
    check_usable("barrier");
    const uint64_t seq = ++seq_;
    send_frame(wire::Type::kBarrier, wire::Writer().u64(seq).take(), "barrier");
    const wire::Frame answer = expect(wire::Type::kBarrierDone, "barrier");
    try {
      wire::Reader in(answer.payload);
      const uint64_t got_seq = in.u64();
      in.expect_end();
      if (got_seq != seq) throw wire::WireError("answer for collective #" + std::to_string(got_seq));
    } catch (const wire::WireError& e) {
      broken("barrier: bad answer from the launcher: " + std::string(e.what()));
    }
  }

  void abort(int code, const std::string& why) noexcept override {
    if (!fd_.valid()) return;
    try {
      std::string text = why.substr(0, wire::kMaxTextBytes);
      if (send_all(fd_.get(), wire::encode(wire::Type::kAbort, wire::Writer().i32(code).raw(text).take())) !=
          0) {
        return;
      }
      // Wait for the launcher to take note, so the job's exit code is this abort's, not the exit's.
      const auto deadline = Clock::now() + kAbortAckTimeout;
      while (true) {
        const auto frame = read_frame(deadline);
        if (!frame || frame->type == wire::Type::kAbortAck) break;
      }
    } catch (...) {  // the rank exits next anyway
    }
    fd_.reset();
  }

  void finalize() override {
    if (finalized_) return;
    check_usable("finalize");
    send_frame(wire::Type::kFinalize, {}, "finalize");
    expect(wire::Type::kFinalizeAck, "finalize");
    finalized_ = true;
    fd_.reset();
  }

 private:
  [[noreturn]] void broken(const std::string& what) {
    broken_ = "takyon-run rendezvous " + address_ + " (rank " + std::to_string(job_.rank) + "): " + what;
    fd_.reset();
    throw BootstrapError(broken_);
  }

  void check_usable(const char* op) {
    if (!broken_.empty()) throw BootstrapError(broken_);
    if (finalized_) broken(std::string(op) + " after finalize");
  }

  void connect_and_join() {
    sockaddr_un sa{};
    const socklen_t len = abstract_unix_address(address_, sa);
    if (len == 0) {
      throw BootstrapError("takyon-run environment: " + std::string(run_env::kRendezvous) + "='" + address_ +
                           "' is not an abstract Unix socket name (@name)");
    }
    fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd_.valid()) broken("socket: " + errno_text(errno));
    // A full backlog makes connect wait; a stopped launcher must not make it wait forever.
    set_send_timeout(kHelloTimeout);
    const auto give_up = Clock::now() + kHelloTimeout;
    while (::connect(fd_.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
      const int err = errno;
      if (err == EINTR && Clock::now() < give_up) {
        // A Unix socket stays unconnected: try again, within what is left of the limit (a signal
        // arriving more often than the timeout must not stretch it).
        const auto left = std::chrono::ceil<std::chrono::seconds>(give_up - Clock::now());
        set_send_timeout(std::max(left, std::chrono::seconds(1)));
        continue;
      }
      if (err == EINTR) {
        broken("connect: takyon-run accepted no connection within " + std::to_string(kHelloTimeout.count()) +
               " s");
      }
      if (err == EAGAIN) {
        broken("connect: takyon-run accepted no connection within " + std::to_string(kHelloTimeout.count()) +
               " s");
      }
      broken("connect: " + errno_text(err) + (err == ECONNREFUSED ? " (is takyon-run still running?)" : ""));
    }
    set_send_timeout(std::chrono::seconds(0));
    // The name is abstract: anyone could have bound it (after a takyon-run died, say). The hello
    // carries the job's secret, so it goes only to a process of this user.
    ucred cred{};
    socklen_t cred_len = sizeof(cred);
    if (::getsockopt(fd_.get(), SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) {
      broken("SO_PEERCRED on the rendezvous: " + errno_text(errno));
    }
    if (cred.uid != ::geteuid()) {
      broken("the process listening there belongs to uid " + std::to_string(cred.uid) +
             ", not to this user (uid " + std::to_string(::geteuid()) +
             "): it is not this job's takyon-run; the job's secret is not sent");
    }
    // The hello goes right after connect: takyon-run reads it as it accepts, and gives a connection
    // from outside the ranks' process trees only a short while to send it.
    send_frame(wire::Type::kHello,
               wire::Writer()
                   .u32(wire::kProtocolVersion)
                   .i32(job_.rank)
                   .i32(static_cast<int32_t>(getpid()))
                   .bytes(secret_)
                   .take(),
               "hello");
    const auto frame = read_frame(Clock::now() + kHelloTimeout);
    if (!frame) broken("no answer to hello within " + std::to_string(kHelloTimeout.count()) + " s");
    if (frame->type == wire::Type::kRefused) broken("refused: " + frame->payload);
    if (frame->type == wire::Type::kJobFailed) broken("the job is ending: " + frame->payload);
    if (frame->type != wire::Type::kWelcome) {
      broken(std::string("expected welcome, got ") + wire::type_name(frame->type));
    }
  }

  void set_send_timeout(std::chrono::seconds limit) {
    timeval tv{static_cast<time_t>(limit.count()), 0};
    (void)::setsockopt(fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }

  void send_frame(wire::Type type, std::string_view payload, const char* op) {
    const int err = send_all(fd_.get(), wire::encode(type, payload));
    if (err != 0) {
      broken(std::string(op) + ": send: " + errno_text(err) +
             (err == EPIPE || err == ECONNRESET ? " (the launcher is gone)" : ""));
    }
  }

  /// The next frame, or nothing if the deadline passed. Throws BootstrapError when the launcher
  /// closed the connection or sent garbage.
  std::optional<wire::Frame> read_frame(std::optional<Clock::time_point> deadline) {
    char buf[64 * 1024];
    while (true) {
      try {
        if (auto frame = parser_.next()) return frame;
      } catch (const wire::WireError& e) {
        broken(std::string("bad frame from the launcher: ") + e.what());
      }
      int timeout_ms = -1;
      if (deadline) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
        if (left <= 0) return std::nullopt;
        timeout_ms = static_cast<int>(left);
      }
      pollfd p{fd_.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0) {
        if (errno == EINTR) continue;
        broken("poll: " + errno_text(errno));
      }
      if (ready == 0) continue;  // the deadline check above returns
      const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        broken("recv: " + errno_text(errno) + " (the launcher is gone)");
      }
      if (n == 0) broken("the launcher closed the connection (takyon-run exited or was killed)");
      parser_.append(buf, static_cast<size_t>(n));
    }
  }

  /// Waits (without limit: the launcher reports dead peers) for the answer of type `want`.
  wire::Frame expect(wire::Type want, const char* op) {
    auto frame = read_frame(std::nullopt);
    if (frame->type == want) return std::move(*frame);
    if (frame->type == wire::Type::kJobFailed)
      broken(std::string(op) + ": the job is ending: " + frame->payload);
    broken(std::string(op) + ": expected " + wire::type_name(want) + ", got " + wire::type_name(frame->type));
  }

  JobInfo job_;
  std::string secret_;
  std::string address_;
  UniqueFd fd_;
  wire::Parser parser_;
  uint64_t seq_ = 0;
  bool finalized_ = false;
  std::string broken_;
};

}  // namespace

std::unique_ptr<Bootstrap> make_run_client_bootstrap() {
  return std::make_unique<RunClientBootstrap>();
}

}  // namespace takyon::mpi::detail
