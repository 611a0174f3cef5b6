// SPDX-License-Identifier: MIT
// Endpoint B of the socket tests: echo pings, receive windows and acknowledge them, over the
// provider's link or the plain one.
#include <stdexcept>
#include <string>

#include "socket_driver.hpp"

namespace takyon::bench {
namespace {

constexpr char kTaken = 'T';
constexpr char kEndDrain = 'D';
constexpr std::uint64_t kStampedAck = 8;

void expect_size(std::uint64_t got, std::uint64_t bytes, const char* what) {
  if (got != bytes) {
    throw std::runtime_error(std::string("endpoint B: ") + what + " carried " + std::to_string(got) +
                             " bytes, expected " + std::to_string(bytes));
  }
}

// A connectionless receive waits in slices; between them B looks whether A has finished (A gave
// up on a lost datagram) and stops waiting then.
void pingpong(int ctl, Link& link, const Command& command, RunReport& report) {
  const double wait = link.lossy() ? kDatagramSliceS : -1;
  while (report.received < command.count) {
    const std::optional<std::uint64_t> got = link.recv(0, command.bytes, wait);
    if (!got) {
      if (ctl_end_pending(ctl)) {
        report.left_early = 1;
        return;
      }
      continue;
    }
    ++report.received;
    expect_size(*got, command.bytes, "a ping");
    link.send(0, command.bytes);
  }
}

void stream(Link& link, const Command& command, RunReport& report) {
  std::uint64_t next = 0;
  for (std::uint64_t w = 0; w < command.count; ++w) {
    for (std::uint64_t m = 0; m < command.window; ++m) {
      const auto slot = static_cast<int>(next++ % kWindowBuffers);
      expect_size(*link.recv(slot, command.bytes, -1), command.bytes, "a stream message");
      ++report.received;
    }
    link.send(0, 0);
  }
}

// Connectionless: B acknowledges window n when it has all of it, or, holding part of it, after a
// slice of silence (the rest was lost; A waits for this ack). A message of a window B has
// acknowledged already is late; one of a later window means A gave up on the windows between.
void lossy_stream(int ctl, Link& link, const Command& command, RunReport& report) {
  std::uint64_t expected = 0;  // the window being received
  std::uint64_t in_window = 0;
  std::uint64_t next = 0;
  auto acknowledge = [&] {
    stamp(link.send_data(0), kStampedAck, expected);
    link.send(0, kStampedAck);
    ++expected;
    in_window = 0;
  };
  while (expected < command.count) {
    const auto slot = static_cast<int>(next % kWindowBuffers);
    const std::optional<std::uint64_t> got = link.recv(slot, command.bytes, kDatagramSliceS);
    if (!got) {
      if (in_window > 0) {
        ++report.gap_acks;
        acknowledge();
      } else if (ctl_end_pending(ctl)) {
        report.left_early = 1;
        return;
      }
      continue;
    }
    ++next;
    ++report.received;
    expect_size(*got, command.bytes, "a stream message");
    const std::uint64_t number = read_stamp(link.recv_data(slot), command.bytes, expected);
    if (number < expected) {
      ++report.late;
      continue;
    }
    if (number > expected) {
      expected = number;
      in_window = 0;
    }
    if (++in_window == command.window) acknowledge();
  }
}

}  // namespace

void run_socket_peer(int ctl, Link& provider, Link& plain, CachelinePingPong* line) {
  for (;;) {
    Command command;
    ctl_read(ctl, &command, sizeof(command));
    if (command.magic != Command::kMagic) throw std::runtime_error("endpoint B: bad command magic");
    if (command.op == Command::Op::kQuit) return;
    if (command.op == Command::Op::kCachelineFloor) {
      if (line == nullptr) throw std::runtime_error("endpoint B: a cache-line floor without a shared line");
      ctl_write(ctl, &kTaken, 1);
      line->echo();  // until A stops it; no end-of-run report
      continue;
    }
    const bool is_plain =
        command.op == Command::Op::kPlainLatency || command.op == Command::Op::kPlainBandwidth;
    Link& link = is_plain ? plain : provider;
    ctl_write(ctl, &kTaken, 1);
    RunReport report;
    switch (command.op) {
      case Command::Op::kLatency:
      case Command::Op::kPlainLatency:
        pingpong(ctl, link, command, report);
        break;
      case Command::Op::kWriteBandwidth:
        // Inside a call while A writes (a provider that carries the writes needs it), until A's note.
        expect_size(*link.recv(0, 0, -1), 0, "the end of the writes");
        report.received = 1;
        break;
      case Command::Op::kBandwidth:
      case Command::Op::kPlainBandwidth:
        if (link.lossy()) {
          lossy_stream(ctl, link, command, report);
        } else {
          stream(link, command, report);
        }
        break;
      default:
        throw std::runtime_error("endpoint B: unknown command");
    }
    report.drain = report.late > 0 || report.gap_acks > 0 || report.left_early != 0 ? 1 : 0;
    char marker = 0;
    ctl_read(ctl, &marker, 1);
    ctl_write(ctl, &report, sizeof(report));
    if ((marker == kEndDrain || report.drain != 0) && link.lossy()) drain_link(link);
  }
}

}  // namespace takyon::bench
