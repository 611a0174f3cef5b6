// SPDX-License-Identifier: MIT
// takyon-run's side of the rendezvous: an abstract Unix socket that admits connections showing
// the job's secret, answers allgathers and barriers once every rank has contributed, and reports
// aborts, finalizes and departures to the job (which owns the processes and the exit policy).
// Strangers cannot stall it: other users are turned away at once (SO_PEERCRED), connections of the
// same user that have not shown the secret are capped in number, per process and in total (the
// oldest goes first) and given a short deadline, and running out of file descriptors neither spins
// nor blocks the ranks' own connections.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../socket_util.hpp"
#include "../wire.hpp"
#include "refusal_log.hpp"

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
  /// Listens on an abstract Unix socket with a random name. Throws std::runtime_error.
  RendezvousServer(int nranks, std::string secret);
  /// "@<name>", for TAKYON_RUN_RENDEZVOUS.
  [[nodiscard]] const std::string& address() const noexcept { return address_; }
  /// A rank's process: its connections, and those of its descendants, are the job's own (never
  /// evicted, the long hello deadline). Call before the poll loop starts.
  void add_rank_process(pid_t pid) { rank_pids_.insert(pid); }
  /// Once reaped, a rank's pid may be reused by any process: it is no longer the job's.
  void remove_rank_process(pid_t pid) { rank_pids_.erase(pid); }

  /// Appends the descriptors to poll (listener first, then connections) ...
  void fill_poll(std::vector<pollfd>& fds) const;
  /// ... and handles what poll reported for them (fds points at the first one fill_poll added).
  void handle_poll(const pollfd* fds, Clock::time_point now);
  /// Closes connections that did not say hello in time, prints due refusal sums.
  void expire(Clock::time_point now);
  /// Prints the refusal sums still pending (at the end of the job).
  void flush_log() { log_.flush_all(); }
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
    std::string peer;  ///< "pid N" for log lines
    pid_t pid = 0;
    bool own = false;      ///< from a rank's process tree: not capped, never evicted
    bool waiting = false;  ///< in waiting_
    int rank = -1;         ///< -1 until the hello showed the secret
    Clock::time_point hello_deadline;
    std::deque<std::shared_ptr<const std::string>> out;
    size_t out_offset = 0;
    bool close_after_flush = false;
    bool dead = false;
    bool finalized = false;
  };

  void accept_some(Clock::time_point now);
  void admit(int fd, Clock::time_point now);
  [[nodiscard]] bool is_own(pid_t pid) const;
  void start_waiting(Conn& c, Clock::time_point now);
  void stop_waiting(Conn& c);
  /// Closes the oldest waiting connection (of `only_pid`, if given); false if there is none.
  bool evict_oldest(std::optional<pid_t> only_pid, const std::string& why, Clock::time_point now);
  bool refuse_with_spare_fd(Clock::time_point now);
  void read_from(Conn& c);
  void handle_frame(Conn& c, wire::Frame& frame);
  void handle_hello(Conn& c, const wire::Frame& frame);
  void handle_collective(Conn& c, const wire::Frame& frame);
  /// Refuses a peer that showed the secret (logged) or any peer while the job ends (not logged).
  void refuse(Conn& c, const std::string& why, bool log);
  /// Refuses a peer that did not show the secret (logged through log_).
  void refuse_stranger(Conn& c, const std::string& why);
  void misbehaved(Conn& c, const std::string& why);
  void send(Conn& c, std::shared_ptr<const std::string> bytes);
  void flush(Conn& c);
  void drop(Conn& c);
  void collect_dead();

  int nranks_;
  std::string secret_;
  detail::UniqueFd listener_;
  std::string address_;
  uid_t uid_;
  pid_t self_;
  std::vector<std::unique_ptr<Conn>> conns_;
  /// Connections from outside the ranks' process trees still to show the secret, oldest first.
  std::vector<Conn*> waiting_;
  std::unordered_map<pid_t, int> waiting_per_pid_;
  size_t max_waiting_;
  std::unordered_set<pid_t> rank_pids_;
  /// Held so that, out of descriptors, takyon-run can still accept (and refuse) one connection.
  detail::UniqueFd spare_fd_;
  std::optional<Clock::time_point> listener_paused_until_;
  RefusalLog log_;
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
