// SPDX-License-Identifier: MIT
// Endpoint A of the socket tests: timed ping-pong and windowed streams over a Link.
#include "socket_driver.hpp"

#include <stdexcept>
#include <string>

#include "clock.hpp"

namespace takyon::bench {
namespace {

constexpr char kTaken = 'T';
constexpr char kEndClean = 'E';
constexpr char kEndDrain = 'D';
// The acknowledgement of a window: 0 bytes, or 8 carrying the window's number over UDP.
constexpr std::uint64_t kStampedAck = 8;

void expect_size(std::uint64_t got, std::uint64_t bytes, const char* what) {
  if (got != bytes) {
    throw std::runtime_error(std::string("endpoint A: ") + what + " carried " + std::to_string(got) +
                             " bytes, expected " + std::to_string(bytes));
  }
}

}  // namespace

void drain_link(Link& link) {
  while (link.recv(0, 0, kDatagramSliceS)) {
  }
}

void SocketDriver::begin(const Command& command) const {
  ctl_write(ctl_, &command, sizeof(command));
  char taken = 0;
  ctl_read(ctl_, &taken, 1);
  if (taken != kTaken) throw std::runtime_error("endpoint A: bad answer to a command on the control channel");
}

RunReport SocketDriver::end(Link& link, bool drain) const {
  const char marker = drain ? kEndDrain : kEndClean;
  ctl_write(ctl_, &marker, 1);
  RunReport report;
  ctl_read(ctl_, &report, sizeof(report));
  if ((drain || report.drain != 0) && link.lossy()) drain_link(link);
  return report;
}

Workload SocketDriver::latency(bool plain, std::uint64_t bytes) {
  Workload w;
  w.messages_per_time = 2;
  w.messages_per_iter = 1;
  w.batch = true;
  w.run = [this, plain, bytes](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    Link& link = plain ? plain_ : provider_;
    const double wait = link.lossy() ? kPongWaitS : -1;
    const Command::Op op = plain ? Command::Op::kPlainLatency : Command::Op::kLatency;
    begin({Command::kMagic, op, bytes, samples * per_sample + 1, 0});
    std::uint64_t done = 0;
    auto round_trip = [&] {
      link.send(0, bytes);
      const std::optional<std::uint64_t> got = link.recv(0, bytes, wait);
      if (!got) {
        throw std::runtime_error("endpoint A: no pong within " + std::to_string(kPongWaitS) + " s after " +
                                 std::to_string(done) + " round trips of " + std::to_string(bytes) +
                                 " bytes: a datagram with nothing else in flight was lost");
      }
      expect_size(*got, bytes, "a pong");
      ++done;
    };
    round_trip();
    std::int64_t start = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample; ++i) round_trip();
      const std::int64_t stop = now_ns();
      out.push_back(static_cast<double>(stop - start));
      start = stop;
    }
    (void)end(link, false);
  };
  return w;
}

Workload SocketDriver::bandwidth(bool plain, std::uint64_t bytes, std::uint64_t window) {
  Workload w;
  w.messages_per_time = static_cast<double>(window);
  w.messages_per_iter = window;
  w.batch = true;
  w.run = [this, plain, bytes, window](std::uint64_t samples, std::uint64_t per_sample,
                                       std::vector<double>& out) {
    Link& link = plain ? plain_ : provider_;
    const bool lossy = link.lossy();
    const std::uint64_t windows = samples * per_sample + 1;
    const Command::Op op = plain ? Command::Op::kPlainBandwidth : Command::Op::kBandwidth;
    begin({Command::kMagic, op, bytes, windows, window});
    std::uint64_t next = 0;
    std::uint64_t number = 0;
    std::uint64_t stalls = 0;
    std::uint64_t stale_acks = 0;
    auto wait_ack = [&] {
      if (!lossy) {
        expect_size(*link.recv(0, 0, -1), 0, "an acknowledgement");
        return;
      }
      const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(kAckWaitS * 1e9);
      for (;;) {
        const double left = static_cast<double>(deadline - now_ns()) / 1e9;
        const std::optional<std::uint64_t> got = link.recv(0, kStampedAck, left > 0 ? left : 0);
        if (!got) {
          ++stalls;  // the ack, or B's whole window, was lost: go on with the next one
          return;
        }
        if (*got == kStampedAck && read_stamp(link.recv_data(0), kStampedAck, number) == number) return;
        ++stale_acks;  // of a window given up on earlier
      }
    };
    auto one_window = [&] {
      for (std::uint64_t m = 0; m < window; ++m) {
        const auto slot = static_cast<int>(next++ % kWindowBuffers);
        if (lossy) stamp(link.send_data(slot), bytes, number);
        link.send(slot, bytes);
      }
      wait_ack();
      ++number;
    };
    one_window();
    std::int64_t start = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample; ++i) one_window();
      const std::int64_t stop = now_ns();
      out.push_back(static_cast<double>(stop - start));
      start = stop;
    }
    const RunReport report = end(link, stalls > 0 || stale_acks > 0);
    StreamStats& stats = stream_[plain ? 1 : 0];
    stats.sent += windows * window;
    stats.lost += static_cast<std::int64_t>(windows * window) - static_cast<std::int64_t>(report.received);
    stats.late += report.late;
    stats.stalls += stalls;
  };
  return w;
}

Workload SocketDriver::write_bandwidth(std::uint64_t bytes, std::uint64_t window) {
  Workload w;
  w.messages_per_time = static_cast<double>(window);
  w.messages_per_iter = window;
  w.batch = true;
  w.run = [this, bytes, window](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    Link& link = provider_;
    begin({Command::kMagic, Command::Op::kWriteBandwidth, bytes, 1, window});
    link.write_window(bytes, window);  // warm-up
    std::int64_t start = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample; ++i) link.write_window(bytes, window);
      const std::int64_t stop = now_ns();
      out.push_back(static_cast<double>(stop - start));
      start = stop;
    }
    link.send(0, 0);  // B waits in a receive for this, carrying the writes out where it must
    (void)end(link, false);
  };
  return w;
}

Workload SocketDriver::cacheline_floor(CachelinePingPong& line) const {
  Workload w;
  w.messages_per_time = 2;
  w.messages_per_iter = 1;
  w.batch = true;
  w.run = [this, &line](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    begin({Command::kMagic, Command::Op::kCachelineFloor, 0, 0, 0});
    std::vector<double> untimed;
    line.run(1, 1, untimed);  // B may still be on its way into echo()
    line.run(samples, per_sample, out);
    line.stop();
  };
  return w;
}

void SocketDriver::quit() const {
  const Command command{Command::kMagic, Command::Op::kQuit, 0, 0, 0};
  ctl_write(ctl_, &command, sizeof(command));
}

}  // namespace takyon::bench
