// SPDX-License-Identifier: MIT
// The one registry of Takyon's run-time knobs: every environment variable the libraries, the launcher
// and the tools read, and every threshold that is a choice rather than a fact, with its default, what it
// does and why that default. Code reads a knob only through this registry; takyon-info prints it, and
// docs/tuning.md is generated from it (a test keeps the page current).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace takyon::common {

enum class KnobKind : std::uint8_t {
  kFlag,     ///< 0 or 1
  kInteger,  ///< a whole number in [min, max]
  kBytes,    ///< a size in bytes in [min, max]; K, M, G (binary) suffixes
  kChoice,   ///< one of the '|'-separated words of `choices`
  kText,     ///< any text (an address, a path)
};

enum class KnobLayer : std::uint8_t { kPaths, kMpi, kMpiCollectives, kLauncher, kBench };

struct Knob {
  const char* name;  ///< the environment variable
  KnobLayer layer;
  KnobKind kind;
  const char* default_value;  ///< as the variable would spell it ("" for kText: unset)
  const char* choices;        ///< kChoice: "a|b|c"; otherwise nullptr
  std::int64_t min;           ///< kInteger, kBytes
  std::int64_t max;
  const char* what;                       ///< what it changes
  const char* why;                        ///< why the default is what it is
  bool for_tests;                         ///< a test hook, not a tuning knob
  const char* (*choices_fn)() = nullptr;  ///< kChoice: builds `choices` where a table holds them
};

/// Every knob, in the order takyon-info and docs/tuning.md list them.
enum class KnobId : int {
  // libtakyon: paths
  kDiscoveryGroup,
  kDiscoveryPort,
  // libtakyon_mpi: channels, point-to-point, waiting, placement
  kMpiProvider,
  kMpiUcxIp,
  kMpiSharedHeap,
  kMpiCma,
  kMpiCmaMax,
  kMpiCmaSplitMin,
  kMpiRma,
  kMpiPrefaultMax,
  kMpiSpinUs,
  kMpiWatchUs,
  kMpiYieldMs,
  kMpiSleepUs,
  kMpiLivenessMs,
  kMpiSpread,
  kMpiSpreadTrace,
  kMpiFakeHost,
  kPmixLibrary,
  // libtakyon_mpi: collectives
  kCollCopy,
  kCollCopyTrace,
  kCollBarrier,
  kCollBcast,
  kCollReduce,
  kCollAllreduce,
  kCollGather,
  kCollScatter,
  kCollAllgather,
  kCollAlltoall,
  kCollReduceScatter,
  kCollLinearMaxRanks,
  kCollBcastScatterAllgatherMin,
  kCollBcastScatterAllgatherMinRanks,
  kCollBcastLinearMax,
  kCollReduceLinearMax,
  kCollAllreduceLargeMin,
  kCollAllreduceReduceBcastMin,
  kCollAllreduceReduceBcastMax,
  kCollAllgatherRingMin,
  kCollAlltoallBruckMaxBlock,
  kCollAlltoallBruckMinRanks,
  kCollRootedBinomialMaxBlock,
  kCollRootedBinomialMinRanks,
  kCollReduceScatterRingMin,
  kCollFlatMaxRanks,
  kCollFlatMax,
  kCollFlatMaxTwoRanks,
  kCollFlatMaxOversubscribed,
  kCollFlatMaxOversubscribedBlock,
  // takyon-run
  kMpiexecTimeout,
  // takyon-bench
  kBenchUcxPerftest,
  kCount
};

/// A knob set to a value it cannot take; what() names the variable, the value and what it accepts.
class KnobError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Every knob, indexed by KnobId.
[[nodiscard]] std::span<const Knob> knobs() noexcept;
[[nodiscard]] const Knob& knob(KnobId id) noexcept;
[[nodiscard]] const char* layer_name(KnobLayer layer) noexcept;
/// kChoice: the '|'-separated words the knob accepts (its own list, or the one its table builds).
[[nodiscard]] const char* knob_choices(const Knob& k);

/// Whether the environment sets the knob (to anything but the empty string).
[[nodiscard]] bool knob_is_set(KnobId id);
/// The knob's text: the environment's value when set, else the default.
[[nodiscard]] std::string knob_text(KnobId id);
/// kFlag: the value. Throws KnobError.
[[nodiscard]] bool knob_flag(KnobId id);
/// kInteger, kBytes: the value, within [min, max]. Throws KnobError.
[[nodiscard]] std::int64_t knob_integer(KnobId id);
/// kChoice: the index of the value among the choices. Throws KnobError.
[[nodiscard]] int knob_choice(KnobId id);
/// Checks the knob's current value without using it; "" when valid, else why not.
[[nodiscard]] std::string knob_problem(KnobId id);

}  // namespace takyon::common
