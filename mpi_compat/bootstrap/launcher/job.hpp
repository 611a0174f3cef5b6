// SPDX-License-Identifier: MIT
// One takyon-run job: starts the ranks, serves their rendezvous, reaps them, and decides the exit
// code. The failure policy lives here: the first rank that fails, aborts or leaves without
// MPI_Finalize ends the job (the others get SIGTERM, then SIGKILL after a grace period).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"
#include "rendezvous_server.hpp"

namespace takyon::mpi::launcher {

/// How long ranks have between SIGTERM and SIGKILL.
inline constexpr auto kKillGrace = std::chrono::seconds(2);

class Job {
 public:
  explicit Job(Options opts);
  /// Runs the job to the end. Returns takyon-run's exit code. Throws LaunchError before any
  /// rank starts (program not found, no CPUs, ...).
  int run();

 private:
  struct Rank {
    pid_t pid = -1;
    bool running = false;
    bool joined = false;
    bool finalized = false;
    bool left = false;  ///< closed its rendezvous connection without finalizing
    Clock::time_point left_at;
  };

  void start_ranks();
  void on_signal(int sig);
  void reap();
  void on_exit(int rank, int status);
  void on_server_event(const ServerEvent& ev);
  void check_stuck(Clock::time_point now);
  void check_deadlines(Clock::time_point now);
  /// Ends the job: first call wins (its code becomes the exit code).
  void fail(int rank, int code, const std::string& what, int spare_rank);
  void signal_ranks(int sig, int spare_rank);
  [[nodiscard]] std::optional<Clock::time_point> next_wakeup() const;
  [[nodiscard]] int running_count() const;
  void remove_rank_segments() const;

  Options opts_;
  std::string secret_;
  std::string job_id_;
  std::optional<RendezvousServer> server_;
  std::vector<Rank> ranks_;
  int signal_fd_ = -1;
  bool failing_ = false;
  int exit_code_ = 0;
  int user_signals_ = 0;
  std::optional<Clock::time_point> kill_at_;
  std::optional<Clock::time_point> timeout_at_;
  std::optional<Clock::time_point> stuck_check_at_;
};

}  // namespace takyon::mpi::launcher
