// SPDX-License-Identifier: MIT
// Endpoint B of the path tests: echo pings, receive windows and acknowledge them.
#include <atomic>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock.hpp"
#include "path_protocol.hpp"

namespace takyon::bench {
namespace {

void expect_bytes(const takyon::Received& got, std::uint64_t bytes, const char* what) {
  if (got.bytes != bytes) {
    throw std::runtime_error(std::string("endpoint B: ") + what + " carried " + std::to_string(got.bytes) +
                             " bytes, expected " + std::to_string(bytes));
  }
}

// Once recv() returns, the sender may overwrite the buffer: copy the command out, then tell A
// (zero bytes B->A) that the buffer may be reused.
Command read_command(takyon::Path& path) {
  const takyon::Received got = recv_message(path, 0);
  expect_bytes(got, sizeof(Command), "command");
  Command command;
  std::memcpy(&command, path.recv_buffer(0).data() + got.offset, sizeof(command));
  send_message(path, 0, 0);
  if (command.magic != Command::kMagic) throw std::runtime_error("endpoint B: bad command magic");
  return command;
}

}  // namespace

takyon::PathOptions bench_path_options(const std::string& interconnect, bool endpoint_a, bool polling,
                                       std::uint64_t buffer_bytes) {
  takyon::PathOptions options;
  options.provider = interconnect;
  options.endpoint_a = endpoint_a;
  options.polling = polling;
  options.send_completion = takyon::Completion::kBlocking;
  const std::vector<std::uint64_t> window(kWindowBuffers, buffer_bytes);
  const std::vector<std::uint64_t> single(1, buffer_bytes);
  options.send_bytes = endpoint_a ? window : single;
  options.recv_bytes = endpoint_a ? single : window;
  options.timeouts.create = 20.0;
  options.timeouts.destroy = 10.0;
  return options;
}

takyon::Received recv_message(takyon::Path& path, int buffer) {
  std::optional<takyon::Received> got = path.recv(buffer);
  if (!got) throw std::runtime_error("recv timed out on buffer " + std::to_string(buffer));
  return *got;
}

void send_message(takyon::Path& path, int buffer, std::uint64_t bytes) {
  if (!path.send(buffer, bytes))
    throw std::runtime_error("send timed out on buffer " + std::to_string(buffer));
}

namespace {
std::uint64_t round_word(std::uint64_t bytes) {
  return (bytes - 8) & ~std::uint64_t{7};
}
}  // namespace

void write_round(takyon::Path& path, std::uint64_t bytes, std::uint64_t round) {
  std::memcpy(path.send_buffer(0).data() + round_word(bytes), &round, sizeof(round));
  path.write(0, bytes, 0, 0);
}

void wait_round(takyon::Path& path, std::uint64_t bytes, std::uint64_t round) {
  auto* word = reinterpret_cast<std::uint64_t*>(path.recv_buffer(0).data() + round_word(bytes));
  const std::atomic_ref<std::uint64_t> seen(*word);
  // Memory tells nothing of a peer that failed: give up after kOneSidedStallNs without the round.
  constexpr std::int64_t kOneSidedStallNs = 20'000'000'000;
  std::int64_t give_up = 0;
  for (std::uint32_t spins = 1; seen.load(std::memory_order_acquire) != round; ++spins) {
    cpu_relax();
    if ((spins & 0xFFFFu) != 0) continue;
    const std::int64_t now = now_ns();
    if (give_up == 0) give_up = now + kOneSidedStallNs;
    if (now > give_up) {
      throw std::runtime_error("one-sided ping-pong: round " + std::to_string(round) +
                               " did not arrive within 20 s (the peer failed?)");
    }
  }
}

void fill_send_buffers(takyon::Path& path) {
  for (int i = 0; i < path.send_buffer_count(); ++i) {
    const std::span<std::byte> buffer = path.send_buffer(i);
    std::memset(buffer.data(), 0x5a + i, buffer.size());
  }
}

void run_path_peer(const takyon::PathOptions& options, CachelinePingPong& line) {
  takyon::Path path(options);
  fill_send_buffers(path);
  for (;;) {
    const Command command = read_command(path);
    switch (command.op) {
      case Command::Op::kLatency:
        for (std::uint64_t i = 0; i < command.count; ++i) {
          expect_bytes(recv_message(path, 0), command.bytes, "ping");
          send_message(path, 0, command.bytes);
        }
        break;
      case Command::Op::kBandwidth: {
        std::uint64_t next = 0;
        for (std::uint64_t w = 0; w < command.count; ++w) {
          for (std::uint64_t m = 0; m < command.window; ++m) {
            const auto buffer = static_cast<int>(next++ % kWindowBuffers);
            expect_bytes(recv_message(path, buffer), command.bytes, "bandwidth message");
          }
          send_message(path, 0, 0);
        }
        break;
      }
      case Command::Op::kWriteLatency:
        // Rounds count from 1 in every run: clear the word the last run left.
        std::memset(path.recv_buffer(0).data(), 0, path.recv_buffer(0).size());
        send_message(path, 0, 0);  // cleared: A may start
        for (std::uint64_t round = 1; round <= command.count; ++round) {
          wait_round(path, command.bytes, round);
          write_round(path, command.bytes, round);
        }
        break;
      case Command::Op::kPiggybackLatency:
        for (std::uint64_t i = 1; i <= command.count; ++i) {
          const takyon::Received got = recv_message(path, 0);
          expect_bytes(got, command.bytes, "piggyback write");
          if (got.piggyback != static_cast<std::uint32_t>(i))
            throw std::runtime_error("endpoint B: piggyback value " + std::to_string(got.piggyback) +
                                     ", expected " + std::to_string(i));
          if (!path.write_piggyback(0, command.bytes, 0, 0, got.piggyback))
            throw std::runtime_error("endpoint B: write_piggyback timed out");
        }
        break;
      case Command::Op::kCachelineFloor:
        line.echo();
        break;
      case Command::Op::kQuit:
        path.destroy();
        return;
      default:
        throw std::runtime_error("endpoint B: unknown command");
    }
  }
}

}  // namespace takyon::bench
