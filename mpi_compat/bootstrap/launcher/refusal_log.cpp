// SPDX-License-Identifier: MIT
// takyon-run's rate-limited log of refused rendezvous connections (see refusal_log.hpp).
#include "refusal_log.hpp"

#include <cstdio>

namespace takyon::mpi::launcher {
namespace {

struct KindText {
  const char* verb;     ///< "refused" before any byte was read, "closed" after
  const char* summary;  ///< the cause in a sum line
};

constexpr std::array<KindText, kRefusalKinds> kTexts = {{
    {"refused", "connected as another user than takyon-run's"},
    {"refused", "wrong secret or not the rendezvous protocol"},
    {"closed", "no hello in time"},
    {"closed", "too many connections waiting to show the secret"},
    {"refused", "takyon-run is out of file descriptors or memory"},
}};

}  // namespace

void RefusalLog::note(Refusal kind, const std::string& peer, const std::string& why, Clock::time_point now) {
  const auto k = static_cast<size_t>(kind);
  Window& w = windows_[k];
  if (w.started && now - *w.started >= kInterval) print_sum(k, now);
  if (w.started) {
    ++w.suppressed;
    return;
  }
  w.started = now;
  w.suppressed = 0;
  std::fprintf(stderr, "takyon-run: %s a rendezvous connection from %s: %s\n", kTexts[k].verb, peer.c_str(),
               why.c_str());
}

void RefusalLog::print_sum(size_t k, Clock::time_point now) {
  Window& w = windows_[k];
  if (w.suppressed == 0) {
    w.started.reset();  // a quiet interval: the next refusal prints in full again
    return;
  }
  const double seconds = std::chrono::duration<double>(now - *w.started).count();
  std::fprintf(stderr, "takyon-run: %s %ld more rendezvous connection%s in the last %.1f s: %s\n",
               kTexts[k].verb, w.suppressed, w.suppressed == 1 ? "" : "s", seconds, kTexts[k].summary);
  w.started = now;
  w.suppressed = 0;
}

void RefusalLog::flush(Clock::time_point now) {
  for (size_t k = 0; k < kRefusalKinds; ++k) {
    if (windows_[k].started && now - *windows_[k].started >= kInterval) print_sum(k, now);
  }
}

void RefusalLog::flush_all() {
  const auto now = Clock::now();
  for (size_t k = 0; k < kRefusalKinds; ++k) {
    if (windows_[k].started) print_sum(k, now);
  }
}

std::optional<RefusalLog::Clock::time_point> RefusalLog::next_deadline() const {
  std::optional<Clock::time_point> next;
  for (const auto& w : windows_) {
    if (w.started && (!next || *w.started + kInterval < *next)) next = *w.started + kInterval;
  }
  return next;
}

}  // namespace takyon::mpi::launcher
