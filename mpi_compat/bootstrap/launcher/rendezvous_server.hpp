// SPDX-License-Identifier: MIT
// takyon-run's side of the rendezvous: a loopback TCP listener that admits connections showing
// the job's secret, answers allgathers and barriers once every rank has contributed, and reports
// aborts, finalizes and departures to the job (which owns the processes and the exit policy).
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../socket_util.hpp"
#include "../wire.hpp"

namespace takyon::mpi::launcher {

using Clock = std::chrono::steady_clock;

/// What happened on the rendezvous that the job must act on.
struct ServerEvent {
  enum class Kind {
    kJoined,      ///< rank showed the secret
    kAbort,       ///< rank called MPI_Abort(code, text)
    kFinalized,   ///< rank called MPI_Finalize
    kLeft,        ///< rank closed its connection without finalizing
    kMisbehaved,  ///< rank broke the protocol or mismatched a collective (text says how)
  };
  Kind kind;
  int rank;
  int code = 0;
  std::string text;
};

class RendezvousServer {
 public:
  /// Listens on 127.0.0.1 on a port the kernel picks. Throws std::runtime_error.
  RendezvousServer(int nranks, std::string secret);
  [[nodiscard]] uint16_t port() const noexcept { return port_; }

  /// Appends the descriptors to poll (listener first, then connections) ...
  void fill_poll(std::vector<pollfd>& fds) const;
  /// ... and handles what poll reported for them (fds points at the first one fill_poll added).
  void handle_poll(const pollfd* fds, Clock::time_point now);
  /// Closes connections that did not say hello in time.
  void expire(Clock::time_point now);
  [[nodiscard]] std::optional<Clock::time_point> next_deadline() const;
  std::vector<ServerEvent> take_events();

  /// Tells every connected rank that the job is ending (a kJobFailed frame, best effort) and
  /// stops answering collectives.
  void announce_failure(const std::string& text);

  [[nodiscard]] bool collective_in_progress() const noexcept { return coll_active_; }
  [[nodiscard]] uint64_t collective_seq() const noexcept { return coll_seq_; }
  /// Ranks that have not yet contributed to the collective in progress.
  [[nodiscard]] std::vector<int> missing_from_collective() const;

 private:
  struct Conn {
    detail::UniqueFd fd;
    wire::Parser parser{wire::kMaxHelloPayload};
    std::string peer;  ///< "127.0.0.1:port" for log lines
    int rank = -1;     ///< -1 until the hello showed the secret
    Clock::time_point hello_deadline;
    std::deque<std::shared_ptr<const std::string>> out;
    size_t out_offset = 0;
    bool close_after_flush = false;
    bool dead = false;
    bool finalized = false;
  };

  void accept_all(Clock::time_point now);
  void read_from(Conn& c);
  void handle_frame(Conn& c, wire::Frame& frame);
  void handle_hello(Conn& c, const wire::Frame& frame);
  void handle_collective(Conn& c, const wire::Frame& frame);
  void refuse(Conn& c, const std::string& why, bool log);
  void misbehaved(Conn& c, const std::string& why);
  void send(Conn& c, std::shared_ptr<const std::string> bytes);
  void flush(Conn& c);
  void drop(Conn& c);
  void collect_dead();

  int nranks_;
  std::string secret_;
  detail::UniqueFd listener_;
  uint16_t port_ = 0;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> by_rank_;  ///< joined ranks' connections (nullptr: none now)
  std::vector<bool> ever_joined_;
  std::vector<ServerEvent> events_;
  bool failed_ = false;
  std::string failure_text_;

  // The collective in progress: at most one, because a rank waits for each answer.
  bool coll_active_ = false;
  wire::Type coll_type_ = wire::Type::kAllgather;
  uint64_t coll_seq_ = 0;    ///< in progress, or the last one completed
  int coll_first_rank_ = 0;  ///< for mismatch messages
  int coll_count_ = 0;
  std::vector<std::optional<std::string>> coll_blobs_;
};

}  // namespace takyon::mpi::launcher
