// SPDX-License-Identifier: MIT
// How the large receives of a blocking collective move their data, learnt per call site: a single
// copy (CMA: the receiver reads the sender's memory, or the split, where the sender writes the
// tail; engine.hpp) or the bulk pipeline (the sender copies into shared chunks, the receiver out of
// them). Which is faster depends on the machine more than on the message: where two cores share a
// fast cache path the split clearly beats the pipeline (a 1 MiB bcast, for one); where the two
// ranks' CPUs are far apart the pipeline wins most two-rank collectives at 1 MiB (lines a peer
// wrote into this rank's buffer are read back from the peer's cache). So each (collective,
// communicator size, size class) times its calls: after kWarmup calls through the pipeline (page
// faults and first touches of the buffers and of the pipeline's chunks, which make its first calls
// much slower), kExplore calls try the two ways in two runs of kExplore / 2 (not alternating: each
// way leaves the buffers' lines in other caches, which the first call of the other way pays; the
// first call of a run is not counted); from then on the single copy is used unless the pipeline's
// median (of its last kWindow counted times) is kPipelineMargin of the single copy's or less, and
// every kReexplore calls kReexploreCalls calls try the other way again. An exchange (a round that
// receives from a peer it also sends to, and no reduction) starts with the single copy, warm-up
// included, and tries the pipeline first at call kReexplore: the single copy wins exchanges on both
// kinds of machine, and exploring early is what a short run pays for most (in a run of a few tens
// of 1 MiB alltoalls, the exploring calls are markedly slower than the single copy once its pages
// are warm). Each rank decides for its own receives (the receiver chooses the protocol), so ranks
// need not agree.
// TAKYON_MPI_COLL_COPY=single|pipeline fixes the choice (tests, comparisons). Single-threaded: the
// MPI thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace takyon::mpi {

class CopyTuner {
 public:
  enum class Mode : std::uint8_t { kSingle = 0, kPipeline = 1 };
  enum class Forced : std::uint8_t { kAuto, kSingle, kPipeline };
  static constexpr int kWarmup = 4;   ///< first calls: the pipeline, not counted (cold buffers, chunks)
  static constexpr int kExplore = 8;  ///< next calls: half one way, then half the other
  static constexpr int kWindow = 4;   ///< times kept per way
  static constexpr std::uint32_t kReexplore = 64;
  static constexpr int kReexploreCalls = 3;  ///< calls the other way every kReexplore calls
  /// The pipeline is chosen when its median time is below this fraction of the single copy's.
  static constexpr double kPipelineMargin = 0.9;
  /// Collectives whose largest receive is smaller are not tuned (the engine's default).
  static constexpr std::size_t kMinBytes = 64 * 1024;

  struct Ticket {
    int entry = -1;        ///< -1: not timed
    bool decided = false;  ///< false: not tuned (small), the caller's default applies
    bool record = false;   ///< the time counts (not the first call of a run of one way)
    Mode mode = Mode::kSingle;
  };

  /// `trace`: print each choice to stderr (TAKYON_MPI_COLL_COPY_TRACE). Keys must then be C strings.
  explicit CopyTuner(Forced forced = Forced::kAuto, bool trace = false) : forced_(forced), trace_(trace) {}
  /// The process's tuner (TAKYON_MPI_COLL_COPY read at the first call).
  static CopyTuner& instance();

  /// The way for a call of collective `key` (any stable pointer, e.g. the function name) on `ranks`
  /// ranks whose largest receive is `bytes` and whose receives add up to `total` (the size class; 0:
  /// `bytes`): tuned when `bytes` is kMinBytes or more. `exchange`: the call is an exchange (above).
  Ticket begin(const void* key, int ranks, std::size_t bytes, std::size_t total = 0, bool exchange = false);
  /// The call of `t` took `ns`.
  void end(const Ticket& t, std::uint64_t ns);
  /// The way now preferred for that key (tests); kSingle before anything was learnt.
  [[nodiscard]] Mode preferred(const void* key, int ranks, std::size_t bytes) const;

 private:
  struct Arm {
    std::array<std::uint64_t, kWindow> ns{};
    std::uint64_t count = 0;  ///< times recorded (ns[count % kWindow] is the next slot)
    [[nodiscard]] std::uint64_t median() const;
  };
  struct Entry {
    const void* key = nullptr;
    int ranks = 0;
    int size_class = 0;
    bool exchange = false;  ///< the single copy until call kReexplore
    std::uint32_t calls = 0;
    Mode choice = Mode::kSingle;
    Arm arms[2];
  };
  [[nodiscard]] int find(const void* key, int ranks, int size_class) const;
  [[nodiscard]] Mode forced_mode() const {
    return forced_ == Forced::kPipeline ? Mode::kPipeline : Mode::kSingle;
  }

  Forced forced_;
  bool trace_;
  std::vector<Entry> entries_;
};

}  // namespace takyon::mpi
