// SPDX-License-Identifier: MIT
// Endpoint B of the path tests: echo pings, receive windows and acknowledge them.
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

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
