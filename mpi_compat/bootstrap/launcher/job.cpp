// SPDX-License-Identifier: MIT
// One takyon-run job (see job.hpp).
#include "job.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "../job_id.hpp"
#include "../run_env.hpp"
#include "spawn.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX asks programs to declare it

namespace takyon::mpi::launcher {
namespace {

/// A rank that closed its connection without finalizing gets this long to exit, so the message
/// can name its exit code rather than just the departure.
constexpr auto kLeftGrace = std::chrono::milliseconds(500);

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

/// An MPI_Abort code as a process exit code: the low 8 bits, but never 0 for a non-zero code.
int abort_exit_code(int code) {
  const int low = code & 0xff;
  return (low == 0 && code != 0) ? 1 : low;
}

}  // namespace

Job::Job(Options opts) : opts_(std::move(opts)) {}

int Job::run() {
  const std::string program = resolve_program(opts_.argv[0]);
  std::vector<int> cpus;
  if (opts_.bind_to != BindTo::kNone) cpus = allowed_cpus();
  // mpirun's default: bind when every rank gets a CPU of its own; with more ranks than CPUs, binding
  // would fix two ranks on one CPU for good, where unbound the kernel can still spread them.
  if (opts_.bind_to == BindTo::kAuto && cpus.size() < static_cast<size_t>(opts_.nranks)) cpus.clear();
  secret_ = random_hex(run_env::kSecretBytes);
  job_id_ = "run-" + std::to_string(::getpid()) + "-" + random_hex(6);
  try {
    server_.emplace(opts_.nranks, secret_);
  } catch (const std::runtime_error& e) {
    throw LaunchError(std::string("takyon-run: ") + e.what(), 1);
  }

  // Signals arrive on a descriptor, so the loop handles them between polls; ranks get our
  // original mask back before exec.
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, s);
  sigset_t original;
  if (::sigprocmask(SIG_BLOCK, &handled, &original) != 0) {
    throw LaunchError(std::string("takyon-run: sigprocmask: ") + std::strerror(errno), 1);
  }
  signal_fd_ = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd_ < 0) throw LaunchError(std::string("takyon-run: signalfd: ") + std::strerror(errno), 1);

  // Like mpirun: rank 0 reads our stdin, the others read nothing.
  const int dev_null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<std::string> base_env;
  for (char** e = environ; *e != nullptr; ++e) base_env.emplace_back(*e);
  const std::string size = std::to_string(opts_.nranks);
  const std::string rendezvous = server_->address();

  ranks_.resize(static_cast<size_t>(opts_.nranks));
  const auto start = Clock::now();
  if (opts_.timeout_s > 0) {
    timeout_at_ =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opts_.timeout_s));
  }
  for (int r = 0; r < opts_.nranks && !failing_; ++r) {
    const std::string rank = std::to_string(r);
    RankLaunch launch;
    launch.path = program;
    launch.argv = opts_.argv;
    launch.env = with_variables(base_env, {{run_env::kRank, rank},
                                           {run_env::kSize, size},
                                           {run_env::kLocalRank, rank},
                                           {run_env::kLocalSize, size},
                                           {run_env::kJobId, job_id_},
                                           {run_env::kRendezvous, rendezvous},
                                           {run_env::kSecret, secret_},
                                           {run_env::kOmpiRank, rank},
                                           {run_env::kOmpiSize, size},
                                           {run_env::kOmpiLocalRank, rank},
                                           {run_env::kOmpiLocalSize, size},
                                           {run_env::kLocalRankPlain, rank}});
    if (!cpus.empty()) launch.cpu = cpus[static_cast<size_t>(r) % cpus.size()];
    launch.stdin_fd = r == 0 ? -1 : dev_null;
    launch.sigmask = original;
    try {
      ranks_[static_cast<size_t>(r)].pid = spawn_rank(launch);
      ranks_[static_cast<size_t>(r)].running = true;
      server_->add_rank_process(ranks_[static_cast<size_t>(r)].pid);
    } catch (const LaunchError& e) {
      fail(r, 1, std::string(e.what()).substr(std::strlen("takyon-run: ")) + " (starting rank " + rank + ")",
           -1);
    }
  }
  if (dev_null >= 0) ::close(dev_null);

  std::vector<pollfd> fds;
  while (running_count() > 0) {
    fds.clear();
    fds.push_back({signal_fd_, POLLIN, 0});
    server_->fill_poll(fds);
    int timeout_ms = -1;
    if (const auto wake = next_wakeup()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*wake - Clock::now()).count();
      timeout_ms = left < 0 ? 0 : static_cast<int>(left);
    }
    const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) {
      std::fprintf(stderr, "takyon-run: poll: %s\n", std::strerror(errno));
      fail(-1, 1, "internal error", -1);
      signal_ranks(SIGKILL, -1);
      break;
    }
    auto now = Clock::now();
    if (ready > 0) {
      // The rendezvous first: a rank's last frames (abort, finalize) count before its exit.
      server_->handle_poll(fds.data() + 1, now);
      for (const auto& ev : server_->take_events()) on_server_event(ev);
      if ((fds[0].revents & POLLIN) != 0) {
        signalfd_siginfo si{};
        while (::read(signal_fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
          if (si.ssi_signo == SIGCHLD) continue;  // reaped below
          on_signal(static_cast<int>(si.ssi_signo));
        }
      }
    }
    reap();
    now = Clock::now();
    server_->expire(now);
    check_deadlines(now);
    check_stuck(now);
  }
  ::close(signal_fd_);
  signal_fd_ = -1;
  server_->flush_log();
  remove_rank_segments();
  return exit_code_;
}

// libtakyon_mpi's ranks unlink their inboxes (/dev/shm/takyon-mpi-<job>-<rank>-<random key>) once
// every rank has mapped them; a job killed before that point would leave them behind. All ranks are
// gone now, so the names are unused: remove exactly this job's (remove_mpi_inboxes). The paths'
// shared memory has no name (memfd), so a killed job leaves nothing of it.
void Job::remove_rank_segments() const {
  remove_mpi_inboxes(job_id_);
}

int Job::running_count() const {
  int n = 0;
  for (const auto& r : ranks_) n += r.running ? 1 : 0;
  return n;
}

std::optional<Clock::time_point> Job::next_wakeup() const {
  std::optional<Clock::time_point> wake;
  auto consider = [&](const std::optional<Clock::time_point>& t) {
    if (t && (!wake || *t < *wake)) wake = t;
  };
  consider(kill_at_);
  consider(timeout_at_);
  consider(stuck_check_at_);
  consider(server_->next_deadline());
  return wake;
}

void Job::reap() {
  while (true) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      if (ranks_[r].pid == pid && ranks_[r].running) {
        ranks_[r].running = false;
        server_->remove_rank_process(pid);
        on_exit(static_cast<int>(r), status);
        break;
      }
    }
  }
}

void Job::on_exit(int rank, int status) {
  Rank& r = ranks_[static_cast<size_t>(rank)];
  const std::string who = "rank " + std::to_string(rank) + " (pid " + std::to_string(r.pid) + ")";
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    fail(rank, 128 + sig,
         who + " was killed by " + signal_name(sig) + " (" + sigdescr_np(sig) + "), exit code " +
             std::to_string(128 + sig),
         -1);
    return;
  }
  const int code = WEXITSTATUS(status);
  if (code != 0) {
    fail(rank, code, who + " exited with code " + std::to_string(code), -1);
  } else if (r.joined && !r.finalized) {
    fail(rank, 1, who + " exited with code 0 without calling MPI_Finalize", -1);
  }
  // A rank that exited 0 without ever joining is fine unless the others wait for it in a
  // collective: check_stuck() sees to that.
}

void Job::on_server_event(const ServerEvent& ev) {
  Rank& r = ranks_[static_cast<size_t>(ev.rank)];
  const std::string who = "rank " + std::to_string(ev.rank);
  switch (ev.kind) {
    case ServerEvent::Kind::kJoined:
      r.joined = true;
      break;
    case ServerEvent::Kind::kFinalized:
      r.finalized = true;
      break;
    case ServerEvent::Kind::kAbort:
      fail(ev.rank, abort_exit_code(ev.code),
           who + " called MPI_Abort with error code " + std::to_string(ev.code) +
               (ev.text.empty() ? std::string() : ": " + ev.text),
           ev.rank);
      break;
    case ServerEvent::Kind::kLeft:
      r.left = true;
      r.left_at = Clock::now();
      break;
    case ServerEvent::Kind::kMisbehaved:
      fail(ev.rank, 1, who + " " + ev.text, -1);
      break;
  }
}

void Job::check_stuck(Clock::time_point now) {
  stuck_check_at_.reset();
  if (failing_ || !server_->collective_in_progress()) return;
  const std::string coll = "collective #" + std::to_string(server_->collective_seq());
  for (int rank : server_->missing_from_collective()) {
    const Rank& r = ranks_[static_cast<size_t>(rank)];
    const std::string who = "rank " + std::to_string(rank) + " (pid " + std::to_string(r.pid) + ")";
    if (!r.running) {
      fail(rank, 1, who + " exited with code 0 while the other ranks wait for it in " + coll, -1);
      return;
    }
    if (r.finalized) {
      fail(rank, 1, who + " called MPI_Finalize while the other ranks wait for it in " + coll, -1);
      return;
    }
    if (r.left) {
      if (now - r.left_at >= kLeftGrace) {
        fail(rank, 1,
             who +
                 " closed its rendezvous connection without MPI_Finalize while the other ranks wait "
                 "for it in " +
                 coll,
             -1);
        return;
      }
      if (!stuck_check_at_ || r.left_at + kLeftGrace < *stuck_check_at_)
        stuck_check_at_ = r.left_at + kLeftGrace;
    }
  }
}

void Job::check_deadlines(Clock::time_point now) {
  if (timeout_at_ && now >= *timeout_at_) {
    timeout_at_.reset();
    char what[128];
    std::snprintf(what, sizeof what, "the job ran longer than %s %g s", opts_.timeout_from, opts_.timeout_s);
    fail(-1, 124, what, -1);
  }
  if (kill_at_ && now >= *kill_at_) {
    kill_at_.reset();
    std::string stuck;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      if (ranks_[r].running) stuck += " " + std::to_string(r);
    }
    if (!stuck.empty()) {
      std::fprintf(stderr, "takyon-run: rank(s)%s still running %d s after SIGTERM; sending SIGKILL\n",
                   stuck.c_str(), static_cast<int>(kKillGrace.count()));
      signal_ranks(SIGKILL, -1);
    }
  }
}

void Job::on_signal(int sig) {
  ++user_signals_;
  if (user_signals_ > 1) {
    std::fprintf(stderr, "takyon-run: got %s again; killing the ranks\n", signal_name(sig).c_str());
    signal_ranks(SIGKILL, -1);
    return;
  }
  if (!failing_) {
    failing_ = true;
    exit_code_ = 128 + sig;
    std::fprintf(stderr, "takyon-run: got %s; passing it to the ranks\n", signal_name(sig).c_str());
    server_->announce_failure("takyon-run got " + signal_name(sig));
  }
  signal_ranks(sig, -1);
  if (!kill_at_) kill_at_ = Clock::now() + kKillGrace;
}

void Job::fail(int rank, int code, const std::string& what, int spare_rank) {
  if (failing_) return;
  failing_ = true;
  exit_code_ = code;
  (void)rank;
  int others = 0;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    others += (ranks_[r].running && static_cast<int>(r) != spare_rank) ? 1 : 0;
  }
  if (others > 0) {
    std::fprintf(stderr, "takyon-run: %s; stopping the %d other running rank%s\n", what.c_str(), others,
                 others == 1 ? "" : "s");
  } else {
    std::fprintf(stderr, "takyon-run: %s\n", what.c_str());
  }
  server_->announce_failure(what);
  signal_ranks(SIGTERM, spare_rank);
  kill_at_ = Clock::now() + kKillGrace;
}

void Job::signal_ranks(int sig, int spare_rank) {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r].running && static_cast<int>(r) != spare_rank) (void)::kill(ranks_[r].pid, sig);
  }
}

}  // namespace takyon::mpi::launcher
