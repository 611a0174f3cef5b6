// SPDX-License-Identifier: MIT
// Timed ping-pong and windowed streaming on endpoint A.
#include "path_driver.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

#include "clock.hpp"

namespace takyon::bench {

std::uint64_t window_messages(std::uint64_t bytes) {
  constexpr std::uint64_t kWindowBytes = std::uint64_t{16} << 20;
  constexpr std::uint64_t kMaxWindow = 64;
  const std::uint64_t fit = kWindowBytes / std::max<std::uint64_t>(bytes, 1);
  return std::clamp<std::uint64_t>(fit, kWindowBuffers, kMaxWindow);
}

namespace {

// A ping-pong workload: `start` (the command and whatever set-up it needs), one untimed round, then
// the timed samples of `per_sample` rounds each; per-message = RTT/2.
Workload ping_pong(std::function<void(std::uint64_t rounds)> start, std::function<void()> round) {
  Workload w;
  w.messages_per_time = 2;
  w.messages_per_iter = 1;
  w.batch = true;
  w.run = [start = std::move(start), round = std::move(round)](
              std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    start(samples * per_sample + 1);
    round();
    std::int64_t begin = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample; ++i) round();
      const std::int64_t end = now_ns();
      out.push_back(static_cast<double>(end - begin));
      begin = end;
    }
  };
  return w;
}

}  // namespace

void PathDriver::send_command(const Command& command) {
  // Pointer providers: A's send buffer 0 is B's receive buffer 0; B is done with whatever was
  // there (every run ends with B's last reply), so writing it now is safe.
  std::memcpy(path_.send_buffer(0).data(), &command, sizeof(command));
  send_message(path_, 0, sizeof(command));
  // B reads the command out of its buffer after its recv() returned, while the contract already
  // lets this side overwrite it: wait for B's zero-byte "taken" before sending data there.
  const takyon::Received taken = recv_message(path_, 0);
  if (taken.bytes != 0) throw std::runtime_error("endpoint A: expected B's zero-byte command reply");
}

Workload PathDriver::cacheline_floor() {
  Workload w;
  w.messages_per_time = 2;
  w.messages_per_iter = 1;
  w.batch = true;
  w.run = [this](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    send_command({Command::kMagic, Command::Op::kCachelineFloor, 0, 0, 0});
    std::vector<double> untimed;
    line_.run(1, 1, untimed);  // B may still be on its way into echo()
    line_.run(samples, per_sample, out);
    line_.stop();
  };
  return w;
}

Workload PathDriver::latency(std::uint64_t bytes) {
  return ping_pong(
      [this, bytes](std::uint64_t rounds) {
        send_command({Command::kMagic, Command::Op::kLatency, bytes, rounds, 0});
      },
      [this, bytes] {
        send_message(path_, 0, bytes);
        (void)recv_message(path_, 0);
      });
}

Workload PathDriver::bandwidth(std::uint64_t bytes, std::uint64_t window) {
  Workload w;
  w.messages_per_time = static_cast<double>(window);
  w.messages_per_iter = window;
  w.batch = true;  // windows of tiny messages last well under the 2 us a sample should
  w.run = [this, bytes, window](std::uint64_t samples, std::uint64_t per_sample, std::vector<double>& out) {
    takyon::Path& path = path_;
    const std::uint64_t windows = samples * per_sample + 1;
    send_command({Command::kMagic, Command::Op::kBandwidth, bytes, windows, window});
    std::uint64_t next = 0;
    auto one_window = [&] {
      for (std::uint64_t m = 0; m < window; ++m) {
        send_message(path, static_cast<int>(next++ % kWindowBuffers), bytes);
      }
      (void)recv_message(path, 0);
    };
    one_window();
    std::int64_t start = now_ns();
    for (std::uint64_t s = 0; s < samples; ++s) {
      for (std::uint64_t i = 0; i < per_sample; ++i) one_window();
      const std::int64_t end = now_ns();
      out.push_back(static_cast<double>(end - start));
      start = end;
    }
  };
  return w;
}

Workload PathDriver::write_latency(std::uint64_t bytes) {
  auto round = std::make_shared<std::uint64_t>(0);
  return ping_pong(
      [this, bytes, round](std::uint64_t rounds) {
        // Rounds count from 1 in every run: both sides clear the word the last run left, and B says
        // when it has.
        *round = 0;
        std::memset(path_.recv_buffer(0).data(), 0, path_.recv_buffer(0).size());
        send_command({Command::kMagic, Command::Op::kWriteLatency, bytes, rounds, 0});
        (void)recv_message(path_, 0);
      },
      [this, bytes, round] {
        write_round(path_, bytes, ++*round);
        wait_round(path_, bytes, *round);
      });
}

Workload PathDriver::piggyback_latency(std::uint64_t bytes) {
  auto round = std::make_shared<std::uint32_t>(0);
  return ping_pong(
      [this, bytes, round](std::uint64_t rounds) {
        *round = 0;
        send_command({Command::kMagic, Command::Op::kPiggybackLatency, bytes, rounds, 0});
      },
      [this, bytes, round] {
        const std::uint32_t value = ++*round;
        if (!path_.write_piggyback(0, bytes, 0, 0, value))
          throw std::runtime_error("write_piggyback timed out");
        if (recv_message(path_, 0).piggyback != value)
          throw std::runtime_error("endpoint A: a piggyback value came back changed");
      });
}

void PathDriver::quit() {
  send_command({Command::kMagic, Command::Op::kQuit, 0, 0, 0});
}

}  // namespace takyon::bench
