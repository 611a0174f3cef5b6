// SPDX-License-Identifier: MIT
// MPI_Init / MPI_Finalize / MPI_Abort state (see runtime.hpp).
//
// Init: bootstrap -> allgather (host, boot id, pid, inbox key) -> which peers use shm inboxes (same
// host, no forced provider) -> create my inbox -> barrier -> map those peers' inboxes -> barrier ->
// unlink mine (a crash leaves no file behind) -> if any pair needs a Takyon path: allgather (ID base, Ucx
// server address and ports) -> barrier -> create my paths in ascending peer order -> barrier. Every rank
// creates its paths in the order of the pairs (lower rank, higher rank), and takyonCreate waits for its peer,
// so the smallest unfinished pair always has both ends waiting on it: no deadlock.
#include "runtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bootstrap.hpp"
#include "common/knobs.hpp"
#include "cpu_order.hpp"
#include "errors.hpp"
#include "job_id.hpp"
#include "mpi.h"
#include "path/provider.hpp"
#include "pt2pt/cpu_watch.hpp"
#include "shm/heap.hpp"
#include "shm/layout.hpp"
#include "shm/segment.hpp"

namespace takyon::mpi {
namespace detail {
Engine* g_engine = nullptr;
int g_world_size = 0;
int g_world_rank = 0;
}  // namespace detail

namespace {

struct Runtime {
  std::unique_ptr<Bootstrap> boot;
  std::vector<shm::Segment> inboxes;     ///< indexed by rank; [rank] is this rank's own
  std::vector<std::string> inbox_names;  ///< indexed by rank; "" for a rank with no inbox name known
  shm::InboxLayout layout;
  std::unique_ptr<Engine> engine;
  int thread_level = MPI_THREAD_SINGLE;
  pthread_t main_thread{};
  int rank = -1;
  int size = 0;
  bool oversubscribed = false;  ///< node_oversubscribed()
};

Runtime* g_rt = nullptr;
int g_rank_in_init = -1;  ///< This rank's number once the bootstrap knows it, for MPI_Init's own errors.
bool g_finalized = false;
bool g_initialized_ever = false;

std::string host_identity(int rank) {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  std::string host = host_name_for_locality(buf, rank);
  std::string boot_id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::getline(in, boot_id);
  return host + "\n" + boot_id;
}

struct PeerRecord {
  std::string host;
  std::string boot_id;
  int pid = 0;
  std::string inbox_key;  ///< the random part of its inbox's name (mpi_inbox_name)
  cpu_set_t cpus{};       ///< the CPUs that rank may run on
};

/// This rank's CPU set as a list of CPU numbers ("0,1,4"); empty if the kernel does not say.
std::string allowed_cpu_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out += (out.empty() ? "" : ",") + std::to_string(c);
  }
  return out;
}

PeerRecord parse_record(const std::string& s) {
  PeerRecord r;
  std::istringstream in(s);
  std::getline(in, r.host);
  std::getline(in, r.boot_id);
  std::string pid;
  std::getline(in, pid);
  r.pid = std::atoi(pid.c_str());
  std::getline(in, r.inbox_key);
  CPU_ZERO(&r.cpus);
  std::string cpu;
  while (std::getline(in, cpu, ',')) {
    const int c = std::atoi(cpu.c_str());
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &r.cpus);
  }
  return r;
}

ProviderChoice check_provider() {
  try {
    return provider_from_env();
  } catch (const std::invalid_argument& e) {
    fail(MPI_ERR_OTHER, "MPI_Init", e.what());
  }
}

/// Creates this rank's paths (needs_path[r]) in ascending peer order and hands them to the engine.
void create_paths(Bootstrap& boot, Engine& engine, const ProviderChoice& choice,
                  const std::vector<bool>& needs_path, int rank, int size) {
  PathRendezvous mine;
  // From the job id, not random: takyon-run removes the shm segments of paths a killed job left.
  mine.id_base = mpi_path_id_base(boot.job().job_id);
  mine.ports.assign(std::size_t(size), 0);
  if (choice.forced.empty()) {
    mine.ip = local_ucx_ip();
    for (int r = rank + 1; r < size; ++r) {
      if (needs_path[std::size_t(r)]) mine.ports[std::size_t(r)] = free_tcp_port(mine.ip);
    }
  }
  std::vector<std::string> all = boot.allgather(encode(mine));
  std::vector<PathRendezvous> peers;
  peers.reserve(all.size());
  for (const std::string& s : all) peers.push_back(decode(s));
  const std::uint32_t base = peers[0].id_base;
  boot.barrier();
  for (int r = 0; r < size; ++r) {
    if (!needs_path[std::size_t(r)]) continue;
    const std::string provider = choice.forced.empty() ? "Ucx" : choice.forced;
    PathConfig cfg = path_geometry(provider, size);
    cfg.endpoint_a = rank < r;
    cfg.peer = r;
    if (!choice.forced.empty()) {
      cfg.interconnect = forced_interconnect(provider, pair_path_id(base, rank, r, size), cfg.endpoint_a);
    } else if (rank < r) {  // the lower rank serves
      cfg.interconnect =
          "Ucx -server -IP=" + mine.ip + " -port=" + std::to_string(mine.ports[std::size_t(r)]) + " -reuse";
    } else {
      const PathRendezvous& server = peers[std::size_t(r)];
      if (server.ip.empty() || server.ports.size() != std::size_t(size) ||
          server.ports[std::size_t(rank)] == 0) {
        throw std::runtime_error("rank " + std::to_string(r) + " published no Ucx server port for rank " +
                                 std::to_string(rank));
      }
      cfg.interconnect =
          "Ucx -client -IP=" + server.ip + " -port=" + std::to_string(server.ports[std::size_t(rank)]);
    }
    engine.attach_path(r, std::make_unique<PathChannel>(cfg));
  }
  boot.barrier();
}

/// Removes the names of every rank's inbox (mappings stay valid). Any rank that gets past the
/// second init barrier, or aborts, does this, so a job killed around MPI_Init leaves no file.
/// (takyon-run removes what a job killed earlier left: remove_mpi_inboxes.)
void unlink_all_inboxes(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (!name.empty()) shm_unlink(name.c_str());
  }
}

/// "12582912 bytes free": what /dev/shm has left, for the message of an inbox that did not fit.
std::string shm_free_text() {
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) return "its free space unknown";
  return std::to_string(std::uint64_t(fs.f_bavail) * fs.f_frsize) + " bytes free";
}

/// Creates this rank's inbox; a full /dev/shm is an error that says so and how much was needed.
shm::Segment create_inbox(const std::string& name, int rank, std::size_t bytes) {
  try {
    return shm::Segment::create(name, bytes);
  } catch (const shm::SegmentError& e) {
    if (!e.out_of_space())
      fail(MPI_ERR_OTHER, "MPI_Init", "rank " + std::to_string(rank) + "'s inbox: " + e.what());
    fail(MPI_ERR_NO_MEM, "MPI_Init",
         "not enough space in /dev/shm for rank " + std::to_string(rank) + "'s inbox (" +
             std::to_string(bytes) + " bytes; /dev/shm has " + shm_free_text() + "): " + e.sys().text());
  }
}

/// An unbound rank (a CPU set of more than one CPU) among others on this host: moves it to its home
/// CPU, the local_rank-th of its set in cpus_cores_first order (where --bind-to core would pin it;
/// round-robin when the host has more ranks than CPUs), and gives the set back whole, so the kernel
/// may still move it. Where the bootstrap's last wake-up left the ranks tends to stick: the load
/// balancer moves a task that is always running (cache-hot) only after repeated failed attempts, so
/// two ranks on one CPU of two, or three of four, could last a whole benchmark run (barriers then
/// take much longer in a good share of short runs; placing each rank home makes that rare). Returns
/// the home CPU, -1 for a bound rank or where placement is left to the kernel: TAKYON_MPI_SPREAD=0.
/// TAKYON_MPI_SPREAD_TRACE=1 prints where each rank went.
int place_unbound(const JobInfo& job) {
  if (!common::knob_flag(common::KnobId::kMpiSpread)) return -1;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return -1;
  const std::vector<int> order = cpus_cores_first(mask);
  if (order.size() < 2 || job.local_size < 2) return -1;
  const int home = order[std::size_t(job.local_rank) % order.size()];
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(home, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return -1;  // a placement hint: nothing to report
  const int now_on = sched_getcpu();                           // pinned: the CPU the kernel moved us to
  if (sched_setaffinity(0, sizeof mask, &mask) != 0) {
    fail(MPI_ERR_OTHER, "MPI_Init",
         std::string("cannot restore this rank's CPU mask: ") + std::strerror(errno));
  }
  if (common::knob_flag(common::KnobId::kMpiSpreadTrace)) {
    std::fprintf(stderr, "takyon-mpi: rank %d (local rank %d of %d, %zu CPUs allowed): placed on CPU %d\n",
                 job.rank, job.local_rank, job.local_size, order.size(), now_on);
  }
  return home;
}

/// Every knob libtakyon_mpi reads is checked here, at MPI_Init: a value it cannot take is an error that
/// names the variable now, not a surprise at the first call that reads it. The exception: a forced
/// collective algorithm (TAKYON_MPI_COLL_<COLLECTIVE>) naming none is an error of that collective only.
/// Then the waits' timing.
void check_knobs() {
  using common::KnobId;
  for (int i = 0; i < int(KnobId::kCount); ++i) {
    const auto id = KnobId(i);
    const common::KnobLayer layer = common::knob(id).layer;
    if (layer != common::KnobLayer::kMpi && layer != common::KnobLayer::kMpiCollectives) continue;
    if (id >= KnobId::kCollBarrier && id <= KnobId::kCollReduceScatter) continue;
    if (const std::string problem = common::knob_problem(id); !problem.empty())
      fail(MPI_ERR_ARG, "MPI_Init", problem);
  }
  auto ns = [](KnobId id, std::uint64_t unit) { return std::uint64_t(common::knob_integer(id)) * unit; };
  Backoff::configure({ns(KnobId::kMpiSpinUs, 1000), ns(KnobId::kMpiWatchUs, 1000),
                      ns(KnobId::kMpiYieldMs, 1000000), ns(KnobId::kMpiSleepUs, 1000),
                      ns(KnobId::kMpiLivenessMs, 1000000)});
}

/// Starts the CpuWatch over this rank's same-host peers (those with an inbox mapped).
void watch_cpus(Runtime& rt, int home) {
  if (rt.inboxes.empty() || rt.inboxes[std::size_t(rt.rank)].data() == nullptr) return;
  auto note_of = [&](int r) {
    return &static_cast<shm::InboxHeader*>(rt.inboxes[std::size_t(r)].data())->cpu;
  };
  std::vector<std::atomic<std::int32_t>*> peers;
  for (int r = 0; r < rt.size; ++r) {
    if (r != rt.rank && rt.inboxes[std::size_t(r)].data() != nullptr) peers.push_back(note_of(r));
  }
  CpuWatch::start(note_of(rt.rank), std::move(peers), home);
}

}  // namespace

int runtime_init(int required) {
  if (g_rt != nullptr || g_finalized) {
    fail(MPI_ERR_OTHER, "MPI_Init", g_finalized ? "called after MPI_Finalize" : "called twice");
  }
  check_knobs();
  const ProviderChoice choice = check_provider();
  auto rt = std::make_unique<Runtime>();
  try {
    rt->boot = make_bootstrap();
  } catch (const BootstrapError& e) {
    fail(MPI_ERR_OTHER, "MPI_Init", std::string("bootstrap failed: ") + e.what());
  }
  const JobInfo& job = rt->boot->job();
  rt->rank = job.rank;
  g_rank_in_init = job.rank;
  rt->size = job.size;
  try {
    std::string me = host_identity(job.rank) + "\n" + std::to_string(getpid()) + "\n" +
                     random_hex(kInboxKeyBytes) + "\n" + allowed_cpu_list();
    std::vector<std::string> all = rt->boot->allgather(me);
    std::vector<PeerRecord> records;
    records.reserve(all.size());
    for (const std::string& s : all) records.push_back(parse_record(s));
    rt->inbox_names.resize(std::size_t(job.size));
    for (int r = 0; r < job.size; ++r) {
      const std::string& key = records[std::size_t(r)].inbox_key;
      if (!is_inbox_key(key)) {
        fail(MPI_ERR_INTERN, "MPI_Init", "rank " + std::to_string(r) + " published no valid inbox key");
      }
      rt->inbox_names[std::size_t(r)] = mpi_inbox_name(job.job_id, r, key);
    }
    const PeerRecord& mine = records[std::size_t(job.rank)];
    std::vector<int> pids(std::size_t(job.size));
    std::vector<bool> uses_shm(std::size_t(job.size), false);
    std::vector<bool> needs_path(std::size_t(job.size), false);
    bool any_shm = false;
    bool job_has_paths = !choice.forced.empty() && job.size > 1;
    // More ranks on this host than CPUs to run them on, from the records alone (the ranks of this
    // host, the union of their CPU sets: ranks bound one to a core have a CPU each, ranks all started
    // under `taskset -c 0` share one), so every rank sharing inboxes with this one agrees: the flat
    // collectives' choices depend on it (a launcher's idea of the node or a container's CPU view
    // could differ from rank to rank).
    int host_ranks = 0;
    cpu_set_t host_set;
    CPU_ZERO(&host_set);
    for (int r = 0; r < job.size; ++r) {
      const PeerRecord& p = records[std::size_t(r)];
      bool same_host = p.host == mine.host && p.boot_id == mine.boot_id;
      if (same_host) {
        ++host_ranks;
        CPU_OR(&host_set, &host_set, &p.cpus);
      }
      pids[std::size_t(r)] = same_host ? p.pid : 0;
      if (p.host != records[0].host || p.boot_id != records[0].boot_id)
        job_has_paths = true;  // same on every rank
      if (r == job.rank) continue;
      uses_shm[std::size_t(r)] = same_host && choice.forced.empty();
      needs_path[std::size_t(r)] = !uses_shm[std::size_t(r)];
      any_shm = any_shm || uses_shm[std::size_t(r)];
    }
    const int host_cpus = CPU_COUNT(&host_set);
    rt->oversubscribed = host_cpus > 0 && host_ranks > host_cpus;

    shm::InboxLayout layout = shm::InboxLayout::for_ranks(std::uint32_t(job.size));
    rt->layout = layout;
    rt->inboxes.resize(std::size_t(job.size));
    shm::Segment& own = rt->inboxes[std::size_t(job.rank)];
    if (any_shm) {
      own = create_inbox(rt->inbox_names[std::size_t(job.rank)], job.rank, layout.total_bytes());
      auto* header = static_cast<shm::InboxHeader*>(own.data());
      header->nranks = layout.nranks;
      header->ncells = layout.ncells;
      header->cell_bytes = layout.cell_bytes;
      header->nchunks = layout.nchunks;
      header->chunk_bytes = layout.chunk_bytes;
      header->owner_pid = getpid();
      header->cpu.store(-1, std::memory_order_relaxed);
      const shm::SharedHeap::Info heap = shm::SharedHeap::instance().activate();
      header->heap_fd = heap.fd;
      header->heap_base = heap.base;
      header->heap_bytes = heap.bytes;
      header->magic = shm::kInboxMagic;  // peers read it after the bootstrap barrier below
    }
    if (job.size > 1) rt->boot->barrier();
    std::vector<void*> bases(std::size_t(job.size), nullptr);
    for (int r = 0; r < job.size; ++r) {
      if (r != job.rank && !uses_shm[std::size_t(r)]) continue;  // a path, or no inbox of my own
      if (r == job.rank && !any_shm) continue;
      if (r != job.rank) {
        try {
          rt->inboxes[std::size_t(r)] = shm::Segment::open(rt->inbox_names[std::size_t(r)]);
        } catch (const shm::SegmentError& e) {
          fail(MPI_ERR_OTHER, "MPI_Init", "rank " + std::to_string(r) + "'s inbox: " + e.what());
        }
        const auto* h = static_cast<const shm::InboxHeader*>(rt->inboxes[std::size_t(r)].data());
        if (rt->inboxes[std::size_t(r)].size() != layout.total_bytes() || h->magic != shm::kInboxMagic) {
          fail(MPI_ERR_INTERN, "MPI_Init",
               "rank " + std::to_string(r) + "'s inbox " + rt->inboxes[std::size_t(r)].name() +
                   " has an unexpected layout");
        }
      }
      bases[std::size_t(r)] = rt->inboxes[std::size_t(r)].data();
    }
    if (job.size > 1) rt->boot->barrier();
    if (any_shm) own.unlink();
    unlink_all_inboxes(rt->inbox_names);
    rt->engine = std::make_unique<Engine>(job.rank, job.size, layout, std::move(bases), std::move(pids));
    if (job_has_paths) create_paths(*rt->boot, *rt->engine, choice, needs_path, job.rank, job.size);
  } catch (const BootstrapError& e) {
    fail(MPI_ERR_OTHER, "MPI_Init", std::string("bootstrap (") + job.launcher + "): " + e.what());
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const MpiError*>(&e) != nullptr) throw;
    fail(MPI_ERR_OTHER, "MPI_Init", e.what());
  }
  // Waiting yields at once when this host has more ranks than CPUs, by the records or by the
  // launcher's count (which also counts ranks that only look like another host's, as under
  // TAKYON_MPI_FAKE_HOST); that is this rank's own business, unlike node_oversubscribed().
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  Backoff::set_oversubscribed(rt->oversubscribed || (cpus > 0 && job.local_size > cpus));
  const int home = place_unbound(job);
  if (!rt->oversubscribed) watch_cpus(*rt, home);
  rt->thread_level = required > MPI_THREAD_FUNNELED ? MPI_THREAD_FUNNELED : required;
  if (rt->thread_level < MPI_THREAD_SINGLE) rt->thread_level = MPI_THREAD_SINGLE;
  rt->main_thread = pthread_self();
  detail::g_engine = rt->engine.get();
  detail::g_world_size = rt->engine->size();
  detail::g_world_rank = rt->engine->rank();
  g_rt = rt.release();
  g_initialized_ever = true;
  return g_rt->thread_level;
}

void runtime_finalize() {
  if (g_rt == nullptr)
    fail(MPI_ERR_OTHER, "MPI_Finalize", g_finalized ? "called twice" : "called before MPI_Init");
  std::unique_ptr<Runtime> rt(g_rt);
  // Let control messages queued for peers (kCts, kAck) go out while the peers still read them.
  std::uint64_t until = monotonic_ns() + 100'000'000ULL;
  while (rt->engine->has_pending_output() && monotonic_ns() < until) rt->engine->progress();
  rt->engine->mark_finalized();
  CpuWatch::stop();
  try {
    rt->boot->barrier();
    rt->engine->destroy_paths();  // every rank in ascending peer order, after the last message
    rt->boot->finalize();
  } catch (const BootstrapError& e) {
    g_rt = nullptr;
    detail::g_engine = nullptr;
    g_finalized = true;
    fail(MPI_ERR_OTHER, "MPI_Finalize", std::string("bootstrap: ") + e.what());
  }
  g_rt = nullptr;
  detail::g_engine = nullptr;
  g_finalized = true;
}

void abort_job(int code, const std::string& why) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (g_rt != nullptr) {
    CpuWatch::stop();
    unlink_all_inboxes(g_rt->inbox_names);
    g_rt->boot->abort(code, why);
  }
  _exit(code);
}

bool node_oversubscribed() {
  return g_rt != nullptr && g_rt->oversubscribed;
}

void* inbox_of(int world_rank) {
  if (g_rt == nullptr || world_rank < 0 || world_rank >= g_rt->size) return nullptr;
  return g_rt->inboxes[std::size_t(world_rank)].data();
}
const shm::InboxLayout& inbox_layout() {
  return g_rt->layout;
}

bool runtime_active() {
  return g_rt != nullptr;
}
bool runtime_finalized() {
  return g_finalized;
}
bool runtime_initialized_ever() {
  return g_initialized_ever;
}
int thread_level() {
  return g_rt != nullptr ? g_rt->thread_level : MPI_THREAD_SINGLE;
}
bool is_thread_main() {
  return g_rt != nullptr && pthread_equal(pthread_self(), g_rt->main_thread) != 0;
}
int world_rank_or_minus1() {
  return g_rt != nullptr ? g_rt->rank : g_rank_in_init;
}

}  // namespace takyon::mpi
