// SPDX-License-Identifier: MIT
// The knob registry (see knobs.hpp): the table, and reading a knob from the environment.
#include "common/knobs.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace takyon::common {
namespace {

using L = KnobLayer;
using K = KnobKind;
constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = kKiB * 1024;
constexpr std::int64_t kGiB = kMiB * 1024;

constexpr Knob flag(const char* name, L layer, const char* def, const char* what, const char* why,
                    bool for_tests = false) {
  return {name, layer, K::kFlag, def, nullptr, 0, 1, what, why, for_tests};
}
constexpr Knob integer(const char* name, L layer, const char* def, std::int64_t min, std::int64_t max,
                       const char* what, const char* why) {
  return {name, layer, K::kInteger, def, nullptr, min, max, what, why, false};
}
constexpr Knob bytes(const char* name, L layer, const char* def, std::int64_t min, std::int64_t max,
                     const char* what, const char* why) {
  return {name, layer, K::kBytes, def, nullptr, min, max, what, why, false};
}
constexpr Knob choice(const char* name, L layer, const char* def, const char* choices, const char* what,
                      const char* why, bool for_tests = false) {
  return {name, layer, K::kChoice, def, choices, 0, 0, what, why, for_tests};
}
constexpr Knob text(const char* name, L layer, const char* what, const char* why, bool for_tests = false) {
  return {name, layer, K::kText, "", nullptr, 0, 0, what, why, for_tests};
}

// The algorithms TAKYON_MPI_COLL_<COLLECTIVE> accepts: "auto", the collective's rows of
// common/coll_algorithms.def in their order, then "shm" where it has a flat form.
std::string coll_choices(std::string_view collective) {
  std::string out = "auto";
  bool flat = false;
#define TAKYON_COLL_ALGORITHM(COLL, coll, name) \
  if (collective == #COLL) out += "|" #name;
#define TAKYON_COLL_FLAT(COLL) \
  if (collective == #COLL) flat = true;
#include "common/coll_algorithms.def"
#undef TAKYON_COLL_ALGORITHM
#undef TAKYON_COLL_FLAT
  if (flat) out += "|shm";
  return out;
}
#define TAKYON_COLL_CHOICES(COLL)                           \
  const char* coll_choices_##COLL() {                       \
    static const std::string choices = coll_choices(#COLL); \
    return choices.c_str();                                 \
  }
TAKYON_COLL_CHOICES(BARRIER)
TAKYON_COLL_CHOICES(BCAST)
TAKYON_COLL_CHOICES(REDUCE)
TAKYON_COLL_CHOICES(ALLREDUCE)
TAKYON_COLL_CHOICES(GATHER)
TAKYON_COLL_CHOICES(SCATTER)
TAKYON_COLL_CHOICES(ALLGATHER)
TAKYON_COLL_CHOICES(ALLTOALL)
TAKYON_COLL_CHOICES(REDUCE_SCATTER)
#undef TAKYON_COLL_CHOICES

/// TAKYON_MPI_COLL_<COLLECTIVE>: forces one of the collective's algorithms (common/coll_algorithms.def).
constexpr Knob forced(const char* name, const char* (*choices)(), const char* what) {
  return {name,
          L::kMpiCollectives,
          K::kChoice,
          "auto",
          nullptr,
          0,
          0,
          what,
          "auto picks by size and rank count (the thresholds below); forcing one is for tests and tuning",
          false,
          choices};
}

// Why the collective thresholds are what they are: they were chosen on a small shared-memory node,
// where a round that waits for a peer costs a trip through the scheduler when ranks share cores, and
// are defaults to move on other machines, not laws.
constexpr const char* kMeasuredOnSmallNode =
    "the faster algorithm on either side of it on a small shared-memory node (2 cores, up to 5 ranks); "
    "re-measure with takyon-bench-mpi and mpi_coll on yours";

constexpr std::array<Knob, static_cast<std::size_t>(KnobId::kCount)> kKnobs = {{
    // ---- paths
    text("TAKYON_DISCOVERY_GROUP", L::kPaths,
         "IPv4 multicast group a Socket client asks for a server's port in (-ID without -port); default "
         "239.255.84.89",
         "an administratively scoped group (239/8) that stays inside the site"),
    integer("TAKYON_DISCOVERY_PORT", L::kPaths, "23089", 1, 65535, "UDP port of that discovery group",
            "an unassigned port; change it when two installations share a network"),
    // ---- MPI: channels and point-to-point
    text("TAKYON_MPI_PROVIDER", L::kMpi,
         "the channel between every pair of ranks: shm (unset: shared memory on one host, Ucx between "
         "hosts) or a Takyon provider that can carry a channel (takyon-info lists them)",
         "shared memory inboxes are the fastest channel between ranks of one host"),
    text("TAKYON_MPI_UCX_IP", L::kMpi,
         "IPv4 address a rank's Ucx server binds for peers on other hosts (unset: the first "
         "non-loopback address, else 127.0.0.1)",
         "the first non-loopback address is the one other hosts can usually reach"),
    flag("TAKYON_MPI_SHARED_HEAP", L::kMpi, "1",
         "large allocations of an MPI program come from a shared heap peers map, so a large message "
         "is one copy straight from the sender's buffer (0: glibc's allocations, CMA single copies)",
         "one copy through mapped memory beats a system call per message; off under a limit on the "
         "address space (ulimit -v), which the heap's reservation would eat"),
    choice("TAKYON_MPI_CMA", L::kMpi, "1", "1|0|readonly|split",
           "cross-memory attach (process_vm_readv/writev) for single copies of large messages: 1 "
           "on, 0 off (every large message takes the pipeline); readonly and split are test hooks (the "
           "split's fallback, and splitting with more ranks than cores)",
           "a single copy moves each byte once where the pipeline moves it twice"),
    bytes("TAKYON_MPI_CMA_MAX", L::kMpi, "1M", 4 * kKiB, kGiB,
          "largest message moved by one CMA single copy; larger ones take the pipeline",
          "above it the pipeline's overlap of the two copies wins over one long system call"),
    bytes("TAKYON_MPI_CMA_SPLIT_MIN", L::kMpi, "128K", 4 * kKiB, kGiB,
          "smallest single copy that sender and receiver split between them (each copies half)",
          "below it the extra hand-shake costs more than the halved copy saves"),
    choice("TAKYON_MPI_RMA", L::kMpi, "auto", "auto|am",
           "how windows run their operations: auto (on the target's memory mapped by the origin where "
           "every rank maps every rank's, else as messages the target runs), am (always as messages)",
           "operations on mapped memory need nothing from the target; am tests the message protocol", true),
    bytes("TAKYON_MPI_PREFAULT_MAX", L::kMpi, "16M", 0, 64 * kGiB,
          "inboxes up to this size have their pages mapped and touched in MPI_Init",
          "first touches then cost MPI_Init instead of the first messages, without making a large "
          "job's start slow"),
    integer("TAKYON_MPI_SPIN_US", L::kMpi, "30", 0, 10000000,
            "microseconds a blocked rank polls before it starts to sched_yield between polls",
            "long enough to catch a peer's answer on a core of its own, short enough not to hold a "
            "core a peer needs"),
    integer("TAKYON_MPI_WATCH_US", L::kMpi, "2", 0, 10000000,
            "microseconds of waiting after which a rank checks, every 64 polls, that no same-host peer "
            "waits for its CPU",
            "longer than a message's one-way trip, so fast waits pay nothing"),
    integer("TAKYON_MPI_YIELD_MS", L::kMpi, "50", 0, 3600000,
            "milliseconds of sched_yield polling before a blocked rank sleeps between polls",
            "a rank waiting that long is waiting for work, not a message in flight"),
    integer("TAKYON_MPI_SLEEP_US", L::kMpi, "20", 1, 1000000,
            "microseconds a long-blocked rank sleeps between polls",
            "short enough that a late message is noticed quickly, long enough to leave the CPU"),
    integer("TAKYON_MPI_LIVENESS_MS", L::kMpi, "5", 1, 60000,
            "milliseconds between a blocked rank's checks that the peers it waits for are alive",
            "a dead peer is reported within a few milliseconds at little cost"),
    flag("TAKYON_MPI_SPREAD", L::kMpi, "1",
         "MPI_Init moves each unbound rank to its home CPU (where --bind-to core would put it), and a "
         "waiting rank that finds a peer on its CPU moves home (0: placement is the kernel's)",
         "the kernel leaves ranks where the last wake-up put them, two of them on one CPU for whole "
         "runs"),
    flag("TAKYON_MPI_SPREAD_TRACE", L::kMpi, "0", "each placed rank prints the CPU it was placed on",
         "quiet by default", true),
    text("TAKYON_MPI_FAKE_HOST", L::kMpi,
         "this rank reports another host (a name, or 'rank': one host per rank), so its peers are "
         "reached through paths",
         "unset: the real host", true),
    text("TAKYON_PMIX_LIBRARY", L::kMpi,
         "the libpmix to load under mpirun and srun (unset: libpmix.so.2, then PMIx's build-time "
         "folder)",
         "the system's library is the launcher's"),
    // ---- MPI: collectives
    choice("TAKYON_MPI_COLL_COPY", L::kMpiCollectives, "auto", "auto|single|pipeline",
           "how the large receives of blocking collectives copy: learn which is faster (auto), the "
           "single copy, or the pipeline",
           "which wins depends on the machine and on where the ranks run"),
    flag("TAKYON_MPI_COLL_COPY_TRACE", L::kMpiCollectives, "0",
         "each rank prints what the copy choice learnt, per collective and size class", "quiet by default",
         true),
    forced("TAKYON_MPI_COLL_BARRIER", &coll_choices_BARRIER, "MPI_Barrier's algorithm"),
    forced("TAKYON_MPI_COLL_BCAST", &coll_choices_BCAST, "MPI_Bcast's algorithm"),
    forced("TAKYON_MPI_COLL_REDUCE", &coll_choices_REDUCE,
           "MPI_Reduce's algorithm (non-commutative ops are always ordered)"),
    forced("TAKYON_MPI_COLL_ALLREDUCE", &coll_choices_ALLREDUCE,
           "MPI_Allreduce's algorithm (non-commutative ops always recursive doubling)"),
    forced("TAKYON_MPI_COLL_GATHER", &coll_choices_GATHER, "MPI_Gather's algorithm"),
    forced("TAKYON_MPI_COLL_SCATTER", &coll_choices_SCATTER, "MPI_Scatter's algorithm"),
    forced("TAKYON_MPI_COLL_ALLGATHER", &coll_choices_ALLGATHER, "MPI_Allgather's algorithm"),
    forced("TAKYON_MPI_COLL_ALLTOALL", &coll_choices_ALLTOALL, "MPI_Alltoall's algorithm"),
    forced("TAKYON_MPI_COLL_REDUCE_SCATTER", &coll_choices_REDUCE_SCATTER,
           "MPI_Reduce_scatter(_block)'s algorithm (a non-commutative op takes the flat form or allreduce)"),
    integer("TAKYON_MPI_COLL_LINEAR_MAX_RANKS", L::kMpiCollectives, "4", 0, 1 << 20,
            "up to this many ranks, small bcasts and reduces, gathers, allgathers and alltoalls run in "
            "one round with every transfer at once (linear) instead of trees, rings or pairwise steps",
            kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_BCAST_SCATTER_ALLGATHER_MIN", L::kMpiCollectives, "64K", 0, 64 * kGiB,
          "MPI_Bcast: scatter + allgather from this many bytes (and the ranks below), binomial tree below",
          "the tree sends the whole message log2 p times, scatter + allgather about twice it in more rounds"),
    integer("TAKYON_MPI_COLL_BCAST_SCATTER_ALLGATHER_MIN_RANKS", L::kMpiCollectives, "5", 0, 1 << 20,
            "MPI_Bcast: scatter + allgather only from this many ranks", kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_BCAST_LINEAR_MAX", L::kMpiCollectives, "512K", 0, 64 * kGiB,
          "MPI_Bcast: linear up to this many bytes on up to LINEAR_MAX_RANKS ranks",
          "the tree's forwarding rank may not be running when ranks share cores"),
    bytes("TAKYON_MPI_COLL_REDUCE_LINEAR_MAX", L::kMpiCollectives, "64K", 0, 64 * kGiB,
          "MPI_Reduce: linear (every rank sends to the root) up to this many bytes on up to "
          "LINEAR_MAX_RANKS ranks",
          kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_ALLREDUCE_LARGE_MIN", L::kMpiCollectives, "16K", 0, 64 * kGiB,
          "MPI_Allreduce: recursive doubling below this many bytes; Rabenseifner (a power of two ranks) "
          "or the ring above",
          "below it the rounds' latency dominates, above it the bytes each rank moves"),
    bytes("TAKYON_MPI_COLL_ALLREDUCE_REDUCE_BCAST_MIN", L::kMpiCollectives, "32K", 0, 64 * kGiB,
          "MPI_Allreduce: reduce + bcast from this many bytes on 3 to LINEAR_MAX_RANKS ranks",
          kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_ALLREDUCE_REDUCE_BCAST_MAX", L::kMpiCollectives, "64K", 0, 64 * kGiB,
          "MPI_Allreduce: reduce + bcast up to this many bytes", kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_ALLGATHER_RING_MIN", L::kMpiCollectives, "64K", 0, 64 * kGiB,
          "MPI_Allgather: recursive doubling (Bruck off powers of two) while the gathered total is below "
          "this, the ring (linear on few ranks) above",
          "below it the rounds' latency dominates, above it the bytes each rank moves"),
    bytes("TAKYON_MPI_COLL_ALLTOALL_BRUCK_MAX_BLOCK", L::kMpiCollectives, "256", 0, 64 * kGiB,
          "MPI_Alltoall: Bruck for blocks up to this size (from BRUCK_MIN_RANKS ranks)",
          "Bruck's log2 p rounds move each block several times: worth it for small blocks only"),
    integer("TAKYON_MPI_COLL_ALLTOALL_BRUCK_MIN_RANKS", L::kMpiCollectives, "4", 0, 1 << 20,
            "MPI_Alltoall: Bruck only from this many ranks", kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_ROOTED_BINOMIAL_MAX_BLOCK", L::kMpiCollectives, "4K", 0, 64 * kGiB,
          "MPI_Gather/MPI_Scatter: a binomial tree for blocks up to this size (from BINOMIAL_MIN_RANKS "
          "ranks), linear above",
          "the tree saves the root messages at the cost of forwarding blocks"),
    integer("TAKYON_MPI_COLL_ROOTED_BINOMIAL_MIN_RANKS", L::kMpiCollectives, "5", 0, 1 << 20,
            "MPI_Scatter: the binomial tree only from this many ranks (MPI_Gather: above "
            "LINEAR_MAX_RANKS)",
            kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_REDUCE_SCATTER_RING_MIN", L::kMpiCollectives, "64K", 0, 64 * kGiB,
          "MPI_Reduce_scatter beyond the flat form: an allreduce below this many bytes in all, the ring "
          "reduce-scatter above (two ranks: the ring at any size)",
          "the ring moves half an allreduce's bytes in p-1 steps"),
    integer("TAKYON_MPI_COLL_FLAT_MAX_RANKS", L::kMpiCollectives, "16", 0, 1 << 20,
            "the flat shared-memory collectives (every rank publishes, every rank reads) up to this many "
            "ranks",
            "flat reductions read every rank's vector on every rank: p^2 cache lines"),
    bytes("TAKYON_MPI_COLL_FLAT_MAX", L::kMpiCollectives, "4K", 0, 4 * kKiB,
          "flat collectives up to this many bytes published per rank (at most the inbox's 4 KiB)",
          kMeasuredOnSmallNode),
    bytes("TAKYON_MPI_COLL_FLAT_MAX_TWO_RANKS", L::kMpiCollectives, "16K", 0, 256 * kKiB,
          "on two ranks, flat collectives up to this many bytes published per rank (reduce and "
          "reduce-scatter: FLAT_MAX); above 4 KiB only in the lowest context slots, whose flat buffers "
          "hold 256 KiB",
          "publishing beats a message each way up to about 16 KiB, except for reductions, where each "
          "rank reads both whole vectors"),
    bytes("TAKYON_MPI_COLL_FLAT_MAX_OVERSUBSCRIBED", L::kMpiCollectives, "64K", 0, 256 * kKiB,
          "with more ranks than cores (and more than 2), flat collectives up to this many bytes",
          "a publishing rank leaves at once and a reader copies when it gets a core, where a rendezvous "
          "needs both ends running"),
    bytes("TAKYON_MPI_COLL_FLAT_MAX_OVERSUBSCRIBED_BLOCK", L::kMpiCollectives, "32K", 0, 256 * kKiB,
          "oversubscribed flat scatter and alltoall only up to this many bytes per block",
          "above it reading each block once from the sender's buffer wins"),
    // ---- takyon-run
    text("MPIEXEC_TIMEOUT", L::kLauncher,
         "seconds after which takyon-run ends the job (exit code 124), as mpirun and mpiexec read it; "
         "--timeout wins",
         "unset: no limit"),
    // ---- takyon-bench
    text("TAKYON_BENCH_UCX_PERFTEST", L::kBench,
         "the ucx_perftest that --vs-ucx-perftest runs (unset: PATH's)", "the one installed with UCX"),
}};

// Every entry must sit at its KnobId: a cheap guard against a row added in the wrong place.
constexpr bool names_in_order() {
  return std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kDiscoveryGroup)].name) ==
             "TAKYON_DISCOVERY_GROUP" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kMpiProvider)].name) ==
             "TAKYON_MPI_PROVIDER" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kPmixLibrary)].name) ==
             "TAKYON_PMIX_LIBRARY" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kCollCopy)].name) ==
             "TAKYON_MPI_COLL_COPY" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kCollReduceScatter)].name) ==
             "TAKYON_MPI_COLL_REDUCE_SCATTER" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kCollLinearMaxRanks)].name) ==
             "TAKYON_MPI_COLL_LINEAR_MAX_RANKS" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kCollFlatMaxOversubscribedBlock)].name) ==
             "TAKYON_MPI_COLL_FLAT_MAX_OVERSUBSCRIBED_BLOCK" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kMpiexecTimeout)].name) ==
             "MPIEXEC_TIMEOUT" &&
         std::string_view(kKnobs[static_cast<std::size_t>(KnobId::kBenchUcxPerftest)].name) ==
             "TAKYON_BENCH_UCX_PERFTEST";
}
static_assert(names_in_order(), "kKnobs must list the knobs in KnobId order");

const char* env_value(const Knob& k) {
  const char* v = std::getenv(k.name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::string quote(std::string_view s) {
  return "'" + std::string(s) + "'";
}

/// The value as a number for kInteger/kBytes, or why not.
bool parse_integer(const Knob& k, std::string_view text, std::int64_t& out, std::string& problem) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  std::int64_t scale = 1;
  std::string_view rest(ptr, static_cast<std::size_t>(end - ptr));
  if (k.kind == K::kBytes && !rest.empty()) {
    if (rest == "K" || rest == "KiB" || rest == "k") scale = kKiB;
    if (rest == "M" || rest == "MiB" || rest == "m") scale = kMiB;
    if (rest == "G" || rest == "GiB" || rest == "g") scale = kGiB;
    if (scale > 1) rest = {};
  }
  if (ec != std::errc() || !rest.empty() || text.empty()) {
    problem = std::string(k.name) + "=" + quote(text) + " is not " +
              (k.kind == K::kBytes ? "a size in bytes (a number, optionally K, M or G)" : "a whole number");
    return false;
  }
  if (value > k.max / scale || value < k.min / scale || value * scale < k.min || value * scale > k.max) {
    problem = std::string(k.name) + "=" + quote(text) + " is out of range (" + std::to_string(k.min) +
              " to " + std::to_string(k.max) + ")";
    return false;
  }
  out = value * scale;
  return true;
}

int choice_index(const Knob& k, std::string_view text) {
  std::string_view rest = knob_choices(k);
  for (int i = 0;; ++i) {
    const std::size_t bar = rest.find('|');
    if (rest.substr(0, bar) == text) return i;
    if (bar == std::string_view::npos) return -1;
    rest.remove_prefix(bar + 1);
  }
}

std::string problem_of(const Knob& k, std::string_view text) {
  std::string problem;
  switch (k.kind) {
    case K::kFlag:
      if (text != "0" && text != "1") problem = std::string(k.name) + "=" + quote(text) + " is not 0 or 1";
      break;
    case K::kInteger:
    case K::kBytes: {
      std::int64_t ignored = 0;
      (void)parse_integer(k, text, ignored, problem);
      break;
    }
    case K::kChoice:
      if (choice_index(k, text) < 0) {
        std::string accepted = knob_choices(k);
        for (char& c : accepted) c = c == '|' ? ',' : c;
        problem = std::string(k.name) + "=" + quote(text) + " is not one of " + accepted;
      }
      break;
    case K::kText:
      break;
  }
  return problem;
}

}  // namespace

std::span<const Knob> knobs() noexcept {
  return kKnobs;
}

const Knob& knob(KnobId id) noexcept {
  return kKnobs[static_cast<std::size_t>(id)];
}

const char* knob_choices(const Knob& k) {
  return k.choices_fn != nullptr ? k.choices_fn() : k.choices;
}

const char* layer_name(KnobLayer layer) noexcept {
  switch (layer) {
    case L::kPaths:
      return "paths (libtakyon)";
    case L::kMpi:
      return "MPI (libtakyon_mpi)";
    case L::kMpiCollectives:
      return "MPI collectives (libtakyon_mpi)";
    case L::kLauncher:
      return "takyon-run";
    case L::kBench:
      return "benchmarks";
  }
  return "?";
}

bool knob_is_set(KnobId id) {
  return env_value(knob(id)) != nullptr;
}

std::string knob_text(KnobId id) {
  const Knob& k = knob(id);
  const char* v = env_value(k);
  return v != nullptr ? v : k.default_value;
}

std::string knob_problem(KnobId id) {
  return problem_of(knob(id), knob_text(id));
}

bool knob_flag(KnobId id) {
  const std::string v = knob_text(id);
  if (const std::string problem = problem_of(knob(id), v); !problem.empty()) throw KnobError(problem);
  return v == "1";
}

std::int64_t knob_integer(KnobId id) {
  const Knob& k = knob(id);
  std::int64_t value = 0;
  std::string problem;
  if (!parse_integer(k, knob_text(id), value, problem)) throw KnobError(problem);
  return value;
}

int knob_choice(KnobId id) {
  const std::string v = knob_text(id);
  const int index = choice_index(knob(id), v);
  if (index < 0) throw KnobError(problem_of(knob(id), v));
  return index;
}

}  // namespace takyon::common
