// SPDX-License-Identifier: MIT
// takyon-run's log of the rendezvous connections it turns away: the first of each kind in a second
// is named with its peer and cause, the rest are counted and summed up in one line when that second
// is over, so that a flood costs a few lines of stderr, not one per attempt.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>

namespace takyon::mpi::launcher {

/// Why a connection was turned away before it showed the secret.
enum class Refusal {
  kOtherUser,    ///< connected as another user than takyon-run's
  kBadHello,     ///< wrong secret, not a hello, or not the protocol at all
  kNoHello,      ///< no hello within the deadline
  kEvicted,      ///< too many connections waiting to show the secret: the oldest goes
  kNoResources,  ///< takyon-run is out of file descriptors (or memory)
};
inline constexpr size_t kRefusalKinds = 5;

class RefusalLog {
 public:
  using Clock = std::chrono::steady_clock;
  /// How often each kind may print.
  static constexpr auto kInterval = std::chrono::seconds(1);

  /// Notes one refusal: printed at once ("takyon-run: <verb> a rendezvous connection from <peer>:
  /// <why>") when it is the first of its kind this interval, otherwise counted.
  void note(Refusal kind, const std::string& peer, const std::string& why, Clock::time_point now);
  /// Prints the sums of the intervals that are over.
  void flush(Clock::time_point now);
  /// Prints every sum still pending (the job is over).
  void flush_all();
  /// When the next sum is due.
  [[nodiscard]] std::optional<Clock::time_point> next_deadline() const;

 private:
  struct Window {
    std::optional<Clock::time_point> started;  ///< an interval is open
    long suppressed = 0;                       ///< refusals counted but not printed in it
  };
  void print_sum(size_t kind, Clock::time_point now);
  std::array<Window, kRefusalKinds> windows_{};
};

}  // namespace takyon::mpi::launcher
