// SPDX-License-Identifier: MIT
// takyonTime / takyonSleep.
#include <time.h>

#include <atomic>
#include <cerrno>

#include "takyon/takyon_extensions.h"

namespace {

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

extern "C" {

double takyonTime(void) {
  static const double first = monotonic_seconds();  // thread-safe static init: the first call
  return monotonic_seconds() - first;
}

void takyonSleep(double seconds) {
  if (!(seconds > 0)) return;
  timespec request{};
  request.tv_sec = static_cast<time_t>(seconds);
  request.tv_nsec = static_cast<long>((seconds - static_cast<double>(request.tv_sec)) * 1e9);
  while (nanosleep(&request, &request) != 0 && errno == EINTR) {
  }
}

}  // extern "C"
