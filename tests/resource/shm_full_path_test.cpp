// SPDX-License-Identifier: MIT
// The path API where the shared memory for a path's buffers cannot be had: with a /dev/shm too small
// (a private 1 MiB tmpfs) takyonCreate either fails cleanly, naming /dev/shm or memory and the bytes
// it needed, or (memory not taken from /dev/shm) succeeds and the message arrives intact; with every
// reservation refused (fallocate failing as a failed memory charge would) it fails cleanly. No
// endpoint ever dies of a signal (SIGBUS at the first touch of a page that cannot be backed was the
// failure this guards against).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <regex>
#include <string>

#include "private_shm.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"

namespace takyon::test {
namespace {

constexpr std::uint64_t kBufferBytes = std::uint64_t(4) << 20;  // each buffer: 4x the whole /dev/shm

std::uint32_t unique_path_id() {
  static std::uint32_t counter = 0;
  return static_cast<std::uint32_t>(getpid()) * 16u + 930000000u + counter++;
}

unsigned char pattern_byte(std::uint64_t i) {
  return static_cast<unsigned char>((i * 131u + 7u) & 0xffu);
}

/// One endpoint, in its own process: creates the path; A fills its send buffer and sends it all, B
/// receives and checks every byte. Reports "<side>: ok", "<side>: error: <message>" or a mismatch.
int run_endpoint(bool endpoint_a, const std::string& interconnect, int report_fd) {
  const char side = endpoint_a ? 'A' : 'B';
  TakyonPathAttributes attrs =
      takyonAllocAttributes(endpoint_a, true, 1, 1, kBufferBytes, 5.0, interconnect.c_str());
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  TakyonPath* path = takyonCreate(&attrs);
  if (path == nullptr) {
    report(report_fd, std::string(1, side) +
                          ": error: " + (attrs.error_message ? attrs.error_message : "(none)") + "\n");
    std::free(attrs.error_message);
    takyonFreeAttributes(attrs);
    return 0;
  }
  std::string outcome = "ok";
  bool timed_out = false;
  if (endpoint_a) {
    auto* buf = reinterpret_cast<unsigned char*>(path->attrs.sender_addr_list[0]);
    for (std::uint64_t i = 0; i < kBufferBytes; ++i) buf[i] = pattern_byte(i);
    if (!takyonSend(path, 0, kBufferBytes, 0, 0, &timed_out) || timed_out) {
      outcome = std::string("error: send: ") +
                (path->attrs.error_message ? path->attrs.error_message : "timed out");
    }
  } else {
    std::uint64_t bytes = 0;
    std::uint64_t offset = 0;
    if (!takyonRecv(path, 0, &bytes, &offset, &timed_out) || timed_out) {
      outcome = std::string("error: recv: ") +
                (path->attrs.error_message ? path->attrs.error_message : "timed out");
    } else if (bytes != kBufferBytes || offset != 0) {
      outcome = "received " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset);
    } else {
      const auto* buf = reinterpret_cast<const unsigned char*>(path->attrs.recver_addr_list[0]);
      for (std::uint64_t i = 0; i < kBufferBytes; ++i) {
        if (buf[i] != pattern_byte(i)) {
          outcome = "byte " + std::to_string(i) + " differs";
          break;
        }
      }
    }
  }
  report(report_fd, std::string(1, side) + ": " + outcome + "\n");
  std::free(takyonDestroy(&path));
  takyonFreeAttributes(attrs);
  return 0;
}

/// Both endpoints as processes of their own; exit code 0 unless one died of a signal.
int run_both_endpoints(const std::string& interconnect, int report_fd) {
  pid_t pids[2];
  for (int i = 0; i < 2; ++i) {
    pids[i] = fork();
    if (pids[i] == 0) _exit(run_endpoint(i == 0, interconnect, report_fd));
  }
  int code = 0;
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i]) {
      code = 2;
    } else if (WIFSIGNALED(status)) {
      report(report_fd, std::string(1, i == 0 ? 'A' : 'B') + " killed by signal " +
                            std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")\n");
      code = 1;
    }
  }
  return code;
}

/// Whether an endpoint's error (its line and the indented lines of context under it) says where the
/// memory was missing (/dev/shm, or memory) and how many bytes it needed ("<n> bytes", n no smaller
/// than one buffer).
bool a_failure_names_place_and_bytes(const std::string& report) {
  const std::regex bytes("([0-9]+) bytes");
  for (std::size_t at = report.find("error: "); at != std::string::npos;
       at = report.find("error: ", at + 1)) {
    std::size_t end = at;
    do {
      end = report.find('\n', end + 1);
    } while (end != std::string::npos && end + 1 < report.size() && report[end + 1] == ' ');
    const std::string entry = report.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (entry.find("/dev/shm") == std::string::npos && entry.find("memory") == std::string::npos) continue;
    for (auto it = std::sregex_iterator(entry.begin(), entry.end(), bytes); it != std::sregex_iterator();
         ++it) {
      if (std::strtoull((*it)[1].str().c_str(), nullptr, 10) >= kBufferBytes) return true;
    }
  }
  return false;
}

class ShmFullPath : public ::testing::TestWithParam<const char*> {};

TEST_P(ShmFullPath, CreateFailsCleanlyOrTheBytesArrive) {
  const std::string unavailable = private_shm_unavailable();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  const std::string interconnect = std::string(GetParam()) + " -ID=" + std::to_string(unique_path_id());
  const ChildResult r =
      run_with_private_shm("1m", [&](int report_fd) { return run_both_endpoints(interconnect, report_fd); });
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  std::cout << r.report;  // which way it went
  const bool a_ok = r.report.find("A: ok") != std::string::npos;
  const bool b_ok = r.report.find("B: ok") != std::string::npos;
  if (a_ok && b_ok) return;  // the buffers' memory is not /dev/shm's: the transfer was checked
  EXPECT_TRUE(a_failure_names_place_and_bytes(r.report))
      << "no error names /dev/shm (or memory) and the bytes needed (>= " << kBufferBytes << "):\n"
      << r.report;
}

TEST_P(ShmFullPath, RefusedReservationFailsCreateCleanly) {
  const std::string interconnect = std::string(GetParam()) + " -ID=" + std::to_string(unique_path_id());
  const ChildResult r = run_in_child([&](int report_fd) {
    if (!make_fallocate_fail()) {
      report(report_fd, std::string("seccomp: ") + std::strerror(errno));
      return 3;
    }
    return run_both_endpoints(interconnect, report_fd);
  });
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  std::cout << r.report;
  EXPECT_NE(r.report.find("A: error: "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("B: error: "), std::string::npos) << r.report;
  EXPECT_TRUE(a_failure_names_place_and_bytes(r.report))
      << "no error names memory and the bytes needed (>= " << kBufferBytes << "):\n"
      << r.report;
}

INSTANTIATE_TEST_SUITE_P(InterProcess, ShmFullPath,
                         ::testing::Values("InterProcessMemcpy", "InterProcessPointer"));

}  // namespace
}  // namespace takyon::test
