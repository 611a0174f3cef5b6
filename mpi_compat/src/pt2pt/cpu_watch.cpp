// SPDX-License-Identifier: MIT
// CPU sharing between same-host ranks (see cpu_watch.hpp).
#include "pt2pt/cpu_watch.hpp"

#include <sched.h>

#include <utility>

namespace takyon::mpi {
namespace {

struct Watch {
  std::atomic<std::int32_t>* mine = nullptr;  ///< nullptr: not watching
  std::vector<std::atomic<std::int32_t>*> peers;
  int home = -1;
  int last = -1;         ///< the CPU last written to *mine
  std::size_t next = 0;  ///< the peer the next check looks at (one a check: O(1) however many ranks)
};

Watch& watch() {
  static Watch w;
  return w;
}

void note(Watch& w, int cpu) {
  if (cpu != w.last) {
    w.mine->store(cpu, std::memory_order_relaxed);
    w.last = cpu;
  }
}

/// Pins this rank to its home CPU for a moment (the kernel moves it there before the call returns),
/// then gives it its whole CPU set back; false if the kernel refused either.
bool move_home(Watch& w) {
  cpu_set_t all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof all, &all) != 0 || !CPU_ISSET(w.home, &all)) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(w.home, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return false;
  const bool restored = sched_setaffinity(0, sizeof all, &all) == 0;
  if (!restored) w.home = -1;  // pinned at home for good: no more moves
  return true;
}

}  // namespace

void CpuWatch::start(std::atomic<std::int32_t>* mine, std::vector<std::atomic<std::int32_t>*> peers,
                     int home) {
  Watch& w = watch();
  w = Watch{};
  if (mine == nullptr || peers.empty()) return;
  w.mine = mine;
  w.peers = std::move(peers);
  w.home = home;
  note(w, sched_getcpu());
}

void CpuWatch::stop() {
  watch() = Watch{};
}

bool CpuWatch::crowded() {
  Watch& w = watch();
  if (w.mine == nullptr) return false;
  const int cpu = sched_getcpu();
  if (cpu < 0) return false;
  note(w, cpu);
  std::atomic<std::int32_t>* peer = w.peers[w.next];
  w.next = w.next + 1 == w.peers.size() ? 0 : w.next + 1;
  if (peer->load(std::memory_order_relaxed) != cpu) return false;
  if (w.home >= 0 && cpu != w.home && move_home(w)) {
    note(w, sched_getcpu());
    return false;  // the peer has the CPU we left
  }
  return true;
}

}  // namespace takyon::mpi
