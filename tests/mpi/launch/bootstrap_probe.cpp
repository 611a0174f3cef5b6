// SPDX-License-Identifier: MIT
// A rank for the launch tests: links takyon_mpi_bootstrap directly (no libtakyon_mpi) and does one
// thing per mode, checking what it sees and exiting with a code the tests look for.
//   check [--expect-size N] [--expect-launcher L] [--rounds K]   env, job info, allgather, barrier
//   exit R CODE | signal R SIG      rank R exits CODE / raises SIG, the others exit 0 (no bootstrap)
//   fail-one R sleep|barrier|stubborn   after bootstrap rank R exits 1; the others sleep, wait in a
//                                   barrier, or ignore SIGTERM and sleep
//   abort R CODE                    rank R calls abort(CODE); the others wait in a barrier
//   term-marker DIR                 writes its pid to DIR/ready.<rank>, then on SIGTERM DIR/term.<rank>
//   hold DIR                        rank 0 writes DIR/rendezvous; all wait for DIR/go, then check
//   late-join DIR                   as hold, but the ranks join only after DIR/go, and print how
//                                   long joining took (the flood tests)
//   affinity core|none|auto         checks sched_getaffinity against takyon-run's CPUs
//   no-finalize R                   rank R exits 0 without finalize, the others sleep
//   skip-init R                     rank R exits 0 without bootstrap, the others allgather
//   timing [--print]                bootstrap, one 8-byte allgather, finalize (for launch timing);
//                                   --print: how long make_bootstrap and the allgather took
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap.hpp"
#include "job_id.hpp"

namespace {

using takyon::mpi::Bootstrap;
using takyon::mpi::BootstrapError;

int g_rank_for_messages = -1;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "probe rank %d: FAIL: %s\n", g_rank_for_messages, what.c_str());
  std::exit(9);
}

void expect(bool ok, const std::string& what) {
  if (!ok) die(what);
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

[[noreturn]] void sleep_forever() {
  while (true) ::pause();
}

std::unique_ptr<Bootstrap> boot() {
  try {
    auto b = takyon::mpi::make_bootstrap();
    g_rank_for_messages = b->job().rank;
    return b;
  } catch (const BootstrapError& e) {
    die(std::string("make_bootstrap: ") + e.what());
  }
}

/// Rank r's blob in round k: a length and pattern no other (rank, round) shares.
std::string blob(int r, int k, bool big) {
  const size_t len = big ? 64 * 1024 : static_cast<size_t>((r * 7919 + k * 131) % 300);
  std::string s(len, '\0');
  for (size_t i = 0; i < len; ++i)
    s[i] = static_cast<char>((static_cast<size_t>(r) * 31 + static_cast<size_t>(k) * 7 + i) & 0xff);
  return s;
}

void check_environment(const takyon::mpi::JobInfo& job) {
  expect(job.size >= 1 && job.rank >= 0 && job.rank < job.size, "rank/size out of range");
  expect(job.local_size >= 1 && job.local_size <= job.size, "local size out of range");
  expect(job.local_rank >= 0 && job.local_rank < job.local_size, "local rank out of range");
  expect(takyon::mpi::is_valid_job_id(job.job_id), "job id '" + job.job_id + "' breaks the rule");
  if (job.launcher == "takyon-run") {
    expect(env_int("TAKYON_RUN_RANK", -1) == job.rank, "TAKYON_RUN_RANK differs from the job's rank");
    expect(env_int("TAKYON_RUN_SIZE", -1) == job.size, "TAKYON_RUN_SIZE differs");
    expect(env_int("TAKYON_RUN_LOCAL_RANK", -1) == job.local_rank, "TAKYON_RUN_LOCAL_RANK differs");
    expect(env_int("TAKYON_RUN_LOCAL_SIZE", -1) == job.local_size, "TAKYON_RUN_LOCAL_SIZE differs");
    expect(env_int("OMPI_COMM_WORLD_RANK", -1) == job.rank, "OMPI_COMM_WORLD_RANK differs");
    expect(env_int("OMPI_COMM_WORLD_SIZE", -1) == job.size, "OMPI_COMM_WORLD_SIZE differs");
    expect(env_int("LOCAL_RANK", -1) == job.local_rank, "LOCAL_RANK differs");
    expect(std::getenv("TAKYON_RUN_JOB_ID") != nullptr && job.job_id == std::getenv("TAKYON_RUN_JOB_ID"),
           "TAKYON_RUN_JOB_ID differs");
    const char* secret = std::getenv("TAKYON_RUN_SECRET");
    expect(secret != nullptr && std::strlen(secret) >= 32, "TAKYON_RUN_SECRET shorter than 128 bits");
  }
  // Open MPI's mpirun and takyon-run both say the local rank here; srun does not.
  if (std::getenv("OMPI_COMM_WORLD_LOCAL_RANK") != nullptr) {
    expect(env_int("OMPI_COMM_WORLD_LOCAL_RANK", -1) == job.local_rank, "OMPI_COMM_WORLD_LOCAL_RANK differs");
    expect(env_int("OMPI_COMM_WORLD_LOCAL_SIZE", -1) == job.local_size, "OMPI_COMM_WORLD_LOCAL_SIZE differs");
  }
  if (std::getenv("SLURM_LOCALID") != nullptr) {
    expect(env_int("SLURM_LOCALID", -1) == job.local_rank, "SLURM_LOCALID differs");
  }
}

int run_check(Bootstrap& b, int expect_size, const std::string& expect_launcher, int rounds) {
  const auto& job = b.job();
  check_environment(job);
  if (expect_size > 0)
    expect(job.size == expect_size,
           "size " + std::to_string(job.size) + ", expected " + std::to_string(expect_size));
  if (!expect_launcher.empty())
    expect(job.launcher == expect_launcher,
           "launcher '" + job.launcher + "', expected '" + expect_launcher + "'");
  try {
    // Everyone agrees on the job id and on who is local where.
    const std::string me =
        job.job_id + "/" + std::to_string(job.local_rank) + "/" + std::to_string(job.local_size);
    const auto ids = b.allgather(me);
    expect(ids.size() == static_cast<size_t>(job.size),
           "allgather returned " + std::to_string(ids.size()) + " blobs");
    for (const auto& id : ids) {
      expect(id.substr(0, id.find('/')) == job.job_id,
             "rank job ids differ: '" + id + "' vs '" + job.job_id + "'");
    }
    for (int k = 0; k < rounds; ++k) {
      const bool big = k == 1;
      const auto all = b.allgather(blob(job.rank, k, big));
      expect(all.size() == static_cast<size_t>(job.size),
             "round " + std::to_string(k) + ": wrong blob count");
      for (int r = 0; r < job.size; ++r) {
        expect(all[static_cast<size_t>(r)] == blob(r, k, big),
               "round " + std::to_string(k) + ": rank " + std::to_string(r) + "'s blob is wrong");
      }
      b.barrier();
    }
    b.finalize();
  } catch (const BootstrapError& e) {
    die(e.what());
  }
  std::printf("probe: rank %d of %d ok (local %d of %d, launcher %s, job %s)\n", job.rank, job.size,
              job.local_rank, job.local_size, job.launcher.c_str(), job.job_id.c_str());
  return 0;
}

std::vector<int> cpus_of(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  expect(::sched_getaffinity(pid, sizeof set, &set) == 0, "sched_getaffinity failed");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

/// "package/core" of a CPU from sysfs; the CPU's own number where sysfs says nothing.
std::string core_of(int cpu) {
  auto read = [&](const char* file) {
    const std::string path = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + file;
    FILE* f = std::fopen(path.c_str(), "re");
    int v = -1;
    if (f != nullptr) {
      if (std::fscanf(f, "%d", &v) != 1) v = -1;
      std::fclose(f);
    }
    return v;
  };
  const int core = read("core_id");
  return core < 0 ? "cpu" + std::to_string(cpu)
                  : std::to_string(read("physical_package_id")) + "/" + std::to_string(core);
}

bool file_exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

void write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen((path + ".tmp").c_str(), "w");
  expect(f != nullptr, "cannot write " + path);
  std::fputs(text.c_str(), f);
  std::fclose(f);
  expect(std::rename((path + ".tmp").c_str(), path.c_str()) == 0, "cannot rename to " + path);
}

const char* g_term_path = nullptr;

extern "C" void on_sigterm(int) {
  const int fd = ::open(g_term_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) ::close(fd);
  ::_exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) die("usage: bootstrap_probe MODE [args]");
  const std::string mode = argv[1];
  const int env_rank = env_int("TAKYON_RUN_RANK", env_int("PMIX_RANK", 0));
  auto arg_int = [&](int i) {
    if (i >= argc) die("mode " + mode + " needs more arguments");
    return std::atoi(argv[i]);
  };

  if (mode == "exit") {
    return env_rank == arg_int(2) ? arg_int(3) : 0;
  }
  // leave-segments RANK CODE: creates the shared-memory segment libtakyon_mpi's inbox would have
  // (this rank's), prints its name, and exits: rank RANK with CODE after 0.3 s, the others with 0.
  if (mode == "leave-segments") {
    const char* job_id = std::getenv("TAKYON_RUN_JOB_ID");
    if (job_id == nullptr) die("leave-segments needs TAKYON_RUN_JOB_ID");
    const std::vector<std::string> names{
        takyon::mpi::mpi_inbox_name(job_id, env_rank, takyon::mpi::random_hex(takyon::mpi::kInboxKeyBytes))};
    for (const std::string& name : names) {
      const int fd = ::shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
      if (fd < 0) die("shm_open " + name);
      ::close(fd);
      std::printf("segment /dev/shm%s\n", name.c_str());
    }
    if (env_rank != arg_int(2)) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return arg_int(3);
  }
  if (mode == "signal") {
    if (env_rank == arg_int(2)) ::raise(arg_int(3));
    return 0;
  }
  if (mode == "skip-init") {
    if (env_rank == arg_int(2)) return 0;
    auto b = boot();
    try {
      (void)b->allgather("x");
    } catch (const BootstrapError& e) {
      std::fprintf(stderr, "probe rank %d: allgather failed as it should: %s\n", b->job().rank, e.what());
      return 5;
    }
    die("allgather completed although a rank never joined");
  }

  if (mode == "late-join") {
    // The flood tests: rank 0 writes DIR/rendezvous, all wait for DIR/go, then join (timed) and check.
    if (argc < 3) die("late-join needs a directory");
    const std::string dir = argv[2];
    if (env_rank == 0) write_file(dir + "/rendezvous", std::getenv("TAKYON_RUN_RENDEZVOUS"));
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!file_exists(dir + "/go")) {
      expect(std::chrono::steady_clock::now() < until, "no go file within 120 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const auto start = std::chrono::steady_clock::now();
    auto joined = boot();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const int rc = run_check(*joined, 0, "takyon-run", 3);
    std::printf("probe: rank %d init %.1f ms (bootstrap)\n", env_rank, ms);
    return rc;
  }

  const auto boot_start = std::chrono::steady_clock::now();
  auto b = boot();
  const auto boot_end = std::chrono::steady_clock::now();
  const int rank = b->job().rank;
  try {
    if (mode == "check") {
      int expect_size = 0;
      int rounds = 3;
      std::string launcher;
      for (int i = 2; i + 1 < argc; i += 2) {
        const std::string opt = argv[i];
        if (opt == "--expect-size") {
          expect_size = std::atoi(argv[i + 1]);
        } else if (opt == "--expect-launcher") {
          launcher = argv[i + 1];
        } else if (opt == "--rounds") {
          rounds = std::atoi(argv[i + 1]);
        } else {
          die("unknown check option " + opt);
        }
      }
      return run_check(*b, expect_size, launcher, rounds);
    }
    if (mode == "timing") {
      (void)b->allgather("8 bytes!");
      const auto gathered = std::chrono::steady_clock::now();
      b->finalize();
      if (argc > 2 && std::string(argv[2]) == "--print") {
        using us = std::chrono::microseconds;
        std::printf("probe: rank %d %s make_bootstrap %lld us, first allgather %lld us\n", rank,
                    b->job().launcher.c_str(),
                    static_cast<long long>(std::chrono::duration_cast<us>(boot_end - boot_start).count()),
                    static_cast<long long>(std::chrono::duration_cast<us>(gathered - boot_end).count()));
      }
      return 0;
    }
    if (mode == "fail-one") {
      const std::string how = argc > 3 ? argv[3] : "sleep";
      if (how == "stubborn") ::signal(SIGTERM, SIG_IGN);
      b->barrier();  // everyone is set up before anyone fails
      if (rank == arg_int(2)) return 1;
      if (how == "barrier") {
        b->barrier();
        die("barrier completed although a rank failed");
      }
      sleep_forever();
    }
    if (mode == "abort") {
      if (rank == arg_int(2)) {
        b->abort(arg_int(3), "the probe aborts on purpose");
        return arg_int(3);
      }
      b->barrier();
      die("barrier completed although a rank aborted");
    }
    if (mode == "no-finalize") {
      b->barrier();
      if (rank == arg_int(2)) return 0;
      sleep_forever();
    }
    if (mode == "term-marker") {
      if (argc < 3) die("term-marker needs a directory");
      static std::string term_path = std::string(argv[2]) + "/term." + std::to_string(rank);
      g_term_path = term_path.c_str();
      struct sigaction sa {};
      sa.sa_handler = on_sigterm;
      ::sigaction(SIGTERM, &sa, nullptr);
      b->barrier();
      write_file(std::string(argv[2]) + "/ready." + std::to_string(rank), std::to_string(::getpid()));
      sleep_forever();
    }
    if (mode == "hold") {
      if (argc < 3) die("hold needs a directory");
      const std::string dir = argv[2];
      if (rank == 0) write_file(dir + "/rendezvous", std::getenv("TAKYON_RUN_RENDEZVOUS"));
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (!file_exists(dir + "/go")) {
        expect(std::chrono::steady_clock::now() < until, "no go file within 60 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      return run_check(*b, 0, "takyon-run", 3);
    }
    if (mode == "affinity") {
      // affinity core|none|auto: how takyon-run placed this rank. core: on one CPU, and the ranks on
      // distinct CPUs, on distinct cores while there are cores enough; none: the launcher's CPU set;
      // auto: core when the ranks fit on the launcher's CPUs, else none.
      if (argc < 3) die("affinity needs core, none or auto");
      const std::vector<int> mine = cpus_of(0);
      const std::vector<int> launcher = cpus_of(::getppid());
      std::string want = argv[2];
      if (want == "auto") want = b->job().size <= static_cast<int>(launcher.size()) ? "core" : "none";
      if (want == "core") {
        expect(mine.size() == 1, "bound to " + std::to_string(mine.size()) + " CPUs, expected 1");
      } else {
        expect(mine == launcher, "unbound rank's CPU set differs from the launcher's");
      }
      const std::vector<std::string> all = b->allgather(std::to_string(mine[0]) + " " + core_of(mine[0]));
      if (want == "core") {
        std::vector<std::string> cores;
        for (int c : launcher) {
          if (std::find(cores.begin(), cores.end(), core_of(c)) == cores.end()) cores.push_back(core_of(c));
        }
        const bool fit = static_cast<size_t>(b->job().size) <= launcher.size();
        const bool fit_cores = static_cast<size_t>(b->job().size) <= cores.size();
        for (size_t i = 0; i < all.size(); ++i) {
          for (size_t j = i + 1; j < all.size(); ++j) {
            const size_t si = all[i].find(' ');
            const size_t sj = all[j].find(' ');
            const std::string pair = "ranks " + std::to_string(i) + " and " + std::to_string(j);
            expect(!fit || all[i].substr(0, si) != all[j].substr(0, sj),
                   pair + " share CPU " + all[i].substr(0, si) + " though the ranks fit");
            expect(!fit_cores || all[i].substr(si) != all[j].substr(sj),
                   pair + " share a core (" + all[i] + ", " + all[j] + ") though there is a core for each");
          }
        }
      }
      b->finalize();
      std::printf("probe: rank %d on %zu CPU(s), first %d\n", rank, mine.size(), mine[0]);
      return 0;
    }
  } catch (const BootstrapError& e) {
    std::fprintf(stderr, "probe rank %d: %s\n", rank, e.what());
    return 5;
  }
  die("unknown mode " + mode);
}
