// SPDX-License-Identifier: MIT
// The per-call-site choice between a single copy and the bulk pipeline (copy_tuner.hpp).
#include "pt2pt/copy_tuner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <unistd.h>

#include "common/knobs.hpp"
namespace takyon::mpi {
namespace {

int size_class(std::size_t bytes) {
  return 63 - __builtin_clzll(static_cast<unsigned long long>(bytes));
}

CopyTuner::Forced forced_from_env() {
  switch (common::knob_choice(common::KnobId::kCollCopy)) {  // auto|single|pipeline
    case 1:
      return CopyTuner::Forced::kSingle;
    case 2:
      return CopyTuner::Forced::kPipeline;
    default:
      return CopyTuner::Forced::kAuto;
  }
}

}  // namespace

CopyTuner& CopyTuner::instance() {
  static CopyTuner tuner(forced_from_env(), common::knob_flag(common::KnobId::kCollCopyTrace));
  return tuner;
}

std::uint64_t CopyTuner::Arm::median() const {
  const std::size_t n = std::size_t(std::min<std::uint64_t>(count, kWindow));
  std::array<std::uint64_t, kWindow> v = ns;
  for (std::size_t i = 1; i < n; ++i) {  // insertion sort of at most kWindow values
    for (std::size_t j = i; j > 0 && v[j - 1] > v[j]; --j) std::swap(v[j - 1], v[j]);
  }
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int CopyTuner::find(const void* key, int ranks, int size_class) const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.key == key && e.ranks == ranks && e.size_class == size_class) return int(i);
  }
  return -1;
}

CopyTuner::Ticket CopyTuner::begin(const void* key, int ranks, std::size_t bytes, std::size_t total,
                                   bool exchange) {
  Ticket t;
  if (forced_ != Forced::kAuto) {
    t.decided = true;
    t.mode = forced_mode();
    return t;
  }
  if (bytes < kMinBytes) return t;
  t.decided = true;
  const int sc = size_class(total > bytes ? total : bytes);
  int i = find(key, ranks, sc);
  if (i < 0) {
    Entry e;
    e.key = key;
    e.ranks = ranks;
    e.size_class = sc;
    e.exchange = exchange;
    entries_.push_back(e);
    i = int(entries_.size()) - 1;
  }
  Entry& e = entries_[std::size_t(i)];
  const std::uint32_t n = e.calls++;
  const Mode other = e.choice == Mode::kSingle ? Mode::kPipeline : Mode::kSingle;
  if (e.exchange && n < kReexplore) {
    t.mode = Mode::kSingle;
    t.record = n >= std::uint32_t(kWarmup);
  } else if (n < std::uint32_t(kWarmup)) {
    // First touches of the buffers, and the pipeline's chunks cycled through once (cold chunks make
    // its first calls much slower than later ones): nothing learnt.
    t.mode = Mode::kPipeline;
  } else if (n < std::uint32_t(kWarmup + kExplore)) {
    const std::uint32_t k = n - std::uint32_t(kWarmup);
    t.mode = k < std::uint32_t(kExplore / 2) ? Mode::kSingle : Mode::kPipeline;
    t.record = k != 0 && k != std::uint32_t(kExplore / 2);
  } else if (n % kReexplore < std::uint32_t(kReexploreCalls)) {
    t.mode = other;
    t.record = n % kReexplore != 0;
  } else {
    t.mode = e.choice;
    t.record = n % kReexplore != std::uint32_t(kReexploreCalls);  // back from re-exploring
  }
  t.entry = i;
  return t;
}

void CopyTuner::end(const Ticket& t, std::uint64_t ns) {
  if (t.entry < 0 || !t.record) return;
  Entry& e = entries_[std::size_t(t.entry)];
  Arm& a = e.arms[int(t.mode)];
  a.ns[std::size_t(a.count % kWindow)] = ns;
  ++a.count;
  if (e.arms[0].count > 0 && e.arms[1].count > 0 && e.calls >= std::uint32_t(kWarmup + kExplore)) {
    // The pipeline only when clearly faster (kPipelineMargin): the exploration runs early, when the
    // single copy still pays for first touches more than the pipeline (whose chunks are warm), and
    // exchanges (allgather, alltoall) then looked faster piped though their single copy wins later.
    const double single = double(e.arms[0].median());
    const Mode before = e.choice;
    e.choice = double(e.arms[1].median()) < kPipelineMargin * single ? Mode::kPipeline : Mode::kSingle;
    if (trace_ && (e.choice != before || e.calls == std::uint32_t(kWarmup + kExplore))) {
      std::fprintf(stderr,
                   "takyon-mpi: pid %d: %s on %d ranks, %zu bytes and more received: %s "
                   "(median %.1f us piped, %.1f us single)\n",
                   int(getpid()), static_cast<const char*>(e.key), e.ranks, std::size_t(1) << e.size_class,
                   e.choice == Mode::kPipeline ? "the pipeline" : "the single copy",
                   double(e.arms[1].median()) / 1e3, single / 1e3);
    }
  }
}

CopyTuner::Mode CopyTuner::preferred(const void* key, int ranks, std::size_t bytes) const {
  if (forced_ != Forced::kAuto) return forced_mode();
  if (bytes < kMinBytes) return Mode::kSingle;
  int i = find(key, ranks, size_class(bytes));
  return i < 0 ? Mode::kSingle : entries_[std::size_t(i)].choice;
}

}  // namespace takyon::mpi
