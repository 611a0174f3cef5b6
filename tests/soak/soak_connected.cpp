// SPDX-License-Identifier: MIT
// Soak of a reliable connected provider: windows of messages A to B, each answered by B, all checked.
//
// Message seq goes into buffer (seq - first) % nbufs of its segment's path. A sends it only after it
// has checked B's answer to message seq - nbufs, which B sends only after checking that message, and
// B answers in the same buffer index of the other direction. So a buffer is written again only after
// its previous message was checked, and the check can never race the next write: a byte that differs
// is the transport's fault.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "soak/soak.hpp"
#include "soak/soak_channel.hpp"
#include "takyon/takyon.h"

namespace takyon::soak {
namespace {

constexpr double kWait = 30.0;               // create, finish and destroy bounds; a longer stall is a failure
constexpr uint64_t kStreamInFlight = 65536;  // stream providers: bytes a window may hold per direction
constexpr uint64_t kProgressEvery = 1000000;  // messages between progress lines

// One endpoint's random choices for a segment.
struct Choice {
  uint8_t polling = 0;
  uint8_t nonblocking_send = 0;  // TAKYON_USE_IS_SEND_FINISHED
  uint8_t send_try_once = 0;     // send_start_timeout 0: retry while it times out
  uint8_t recv_try_once = 0;     // recv_start_timeout 0: retry while it times out
  uint8_t app_send = 0;          // the send buffers are this program's memory
  uint8_t app_recv = 0;
};

// What A tells B before each segment (stop != 0: no more segments).
struct Plan {
  uint64_t stop = 0;
  uint64_t index = 0;
  uint64_t first = 0;
  uint64_t count = 0;
  uint64_t shape_seed = 0;
  uint64_t bytes_atob = 0;
  uint64_t bytes_btoa = 0;
  uint32_t nbufs = 1;
  Choice a;
  Choice b;
};

// What B tells A after each segment.
struct Report {
  uint64_t ok = 0;
  uint64_t bytes = 0;
  Text why;
};

uint64_t log_pick(std::mt19937_64& rng, uint64_t lo, uint64_t hi) {
  if (hi <= lo) return lo;
  std::uniform_real_distribution<double> d(std::log2(static_cast<double>(lo)),
                                           std::log2(static_cast<double>(hi) + 1.0));
  const auto v = static_cast<uint64_t>(std::exp2(d(rng)));
  return v < lo ? lo : (v > hi ? hi : v);
}

Choice pick_choice(std::mt19937_64& rng, const TakyonProviderInfo& info) {
  const auto coin = [&rng] { return static_cast<uint8_t>(rng() & 1u); };
  Choice c;
  c.polling = coin();
  c.nonblocking_send = coin();
  c.send_try_once = static_cast<uint8_t>(rng() % 4 == 0);
  c.recv_try_once = static_cast<uint8_t>(rng() % 4 == 0);
  c.app_send = static_cast<uint8_t>(info.app_send_buffers && coin());
  c.app_recv = static_cast<uint8_t>(info.app_recv_buffers && coin());
  return c;
}

// One endpoint of one segment's path.
class SegmentEndpoint {
 public:
  SegmentEndpoint(const TakyonProviderInfo& info, const Options& options, const Plan& plan, bool is_a)
      : info_(info), options_(options), plan_(plan), is_a_(is_a), me_(is_a ? plan.a : plan.b) {}
  SegmentEndpoint(const SegmentEndpoint&) = delete;
  SegmentEndpoint& operator=(const SegmentEndpoint&) = delete;
  ~SegmentEndpoint() {
    if (path_ != nullptr) {
      char* e = takyonDestroy(&path_);
      std::free(e);
    }
  }

  bool create() {
    std::string text = info_.name;
    if ((info_.addressing & TAKYON_ADDRESS_ID) == 0)
      text += is_a_ ? " -server -IP=127.0.0.1" : " -client -IP=127.0.0.1";
    text += " -ID=" + std::to_string(options_.path_id);
    TakyonPathAttributes attrs{};
    std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", text.c_str());
    attrs.is_endpointA = is_a_;
    attrs.is_polling = me_.polling != 0;
    attrs.abort_on_failure = false;
    attrs.verbosity = TAKYON_VERBOSITY_NONE;
    attrs.path_create_timeout = kWait;
    attrs.send_start_timeout = me_.send_try_once != 0 ? 0.0 : kWait;
    attrs.send_finish_timeout = kWait;
    attrs.recv_start_timeout = me_.recv_try_once != 0 ? 0.0 : kWait;
    attrs.recv_finish_timeout = kWait;
    attrs.path_destroy_timeout = kWait;
    attrs.send_completion_method = me_.nonblocking_send != 0 ? TAKYON_USE_IS_SEND_FINISHED : TAKYON_BLOCKING;
    attrs.recv_completion_method = TAKYON_BLOCKING;
    const auto n = static_cast<int>(plan_.nbufs);
    attrs.nbufs_AtoB = n;
    attrs.nbufs_BtoA = n;
    send_size_ = is_a_ ? plan_.bytes_atob : plan_.bytes_btoa;
    recv_size_ = is_a_ ? plan_.bytes_btoa : plan_.bytes_atob;
    std::vector<uint64_t> send_bytes(plan_.nbufs, send_size_);
    std::vector<uint64_t> recv_bytes(plan_.nbufs, recv_size_);
    std::vector<size_t> send_addrs(plan_.nbufs, 0);
    std::vector<size_t> recv_addrs(plan_.nbufs, 0);
    for (uint32_t i = 0; i < plan_.nbufs; ++i) {
      if (me_.app_send != 0) send_addrs[i] = own(send_size_);
      if (me_.app_recv != 0) recv_addrs[i] = own(recv_size_);
    }
    attrs.sender_max_bytes_list = send_bytes.data();
    attrs.recver_max_bytes_list = recv_bytes.data();
    attrs.sender_addr_list = send_addrs.data();
    attrs.recver_addr_list = recv_addrs.data();
    path_ = takyonCreate(&attrs);
    if (path_ == nullptr) {
      fail("takyonCreate('" + text + "')",
           attrs.error_message != nullptr ? attrs.error_message : "(no message)");
      std::free(attrs.error_message);
      return false;
    }
    pending_.assign(plan_.nbufs, 0);
    return true;
  }

  // A: sends every message of the segment and checks every answer.
  bool run_a(Totals& totals) {
    const uint64_t n = plan_.nbufs;
    for (uint64_t i = 0; i < plan_.count; ++i) {
      const int b = static_cast<int>(i % n);
      if (i >= n && !receive(plan_.first + i - n, b, 1)) return false;
      if (!send(plan_.first + i, b, 0)) return false;
      ++totals.messages;
      if (i >= n) ++totals.replies;
      const uint64_t done = plan_.first + i + 1;
      if (done % kProgressEvery == 0) {
        std::printf("  ... %llu messages\n", static_cast<unsigned long long>(done));
        std::fflush(stdout);
      }
    }
    for (uint64_t i = plan_.count > n ? plan_.count - n : 0; i < plan_.count; ++i) {
      if (!receive(plan_.first + i, static_cast<int>(i % n), 1)) return false;
      ++totals.replies;
    }
    totals.bytes += checked_;
    return finish_all();
  }

  // B: checks every message and answers it.
  bool run_b(uint64_t& bytes) {
    for (uint64_t i = 0; i < plan_.count; ++i) {
      const int b = static_cast<int>(i % plan_.nbufs);
      if (!receive(plan_.first + i, b, 0) || !send(plan_.first + i, b, 1)) return false;
    }
    bytes = checked_;
    return finish_all();
  }

  bool destroy() {
    char* e = takyonDestroy(&path_);
    if (e == nullptr) return true;
    fail("takyonDestroy", e);
    std::free(e);
    return false;
  }

  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  size_t own(uint64_t bytes) {
    memory_.emplace_back((bytes + 7) / 8 + 1);
    return reinterpret_cast<size_t>(memory_.back().data());
  }

  [[nodiscard]] std::string path_error() const {
    return path_->attrs.error_message != nullptr ? path_->attrs.error_message : "(no message)";
  }

  void fail(const std::string& what, const std::string& why) {
    if (!error_.empty()) return;
    error_ = std::string("endpoint ") + (is_a_ ? "A" : "B") + ", segment " + std::to_string(plan_.index) +
             ": " + what + ": " + why;
  }

  std::string where(uint64_t seq, int b, int dir) const {
    return std::string("message ") + std::to_string(seq) + (dir == 0 ? " (A to B)" : " (B to A)") +
           " buffer " + std::to_string(b);
  }

  Shape shape(uint64_t seq, int dir) const {
    const uint64_t size = dir == 0 ? plan_.bytes_atob : plan_.bytes_btoa;
    return shape_of(plan_.shape_seed, seq, dir, size, size, info_.max_message_bytes, info_.shares_buffers,
                    false, 0);
  }

  bool finish(int b) {
    if (pending_[static_cast<size_t>(b)] == 0) return true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kWait);
    for (;;) {
      bool timed_out = false;
      if (!takyonIsSendFinished(path_, b, &timed_out)) {
        fail("takyonIsSendFinished buffer " + std::to_string(b), path_error());
        return false;
      }
      if (!timed_out) break;
      if (std::chrono::steady_clock::now() > until) {
        fail("takyonIsSendFinished buffer " + std::to_string(b), "not finished after 30 s");
        return false;
      }
    }
    pending_[static_cast<size_t>(b)] = 0;
    return true;
  }

  bool finish_all() {
    for (uint32_t b = 0; b < plan_.nbufs; ++b) {
      if (!finish(static_cast<int>(b))) return false;
    }
    return true;
  }

  bool send(uint64_t seq, int b, int dir) {
    if (!finish(b)) return false;  // the buffer is written again only after its last send completed
    const Shape s = shape(seq, dir);
    auto* base = reinterpret_cast<uint8_t*>(path_->attrs.sender_addr_list[b]);
    const bool repeat = dir == 0 && seq == options_.inject_repeat && seq > 0;
    fill_pattern(base + s.src_offset, s.bytes, message_key(plan_.shape_seed, repeat ? seq - 1 : seq, dir));
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kWait);
    for (;;) {
      bool timed_out = false;
      if (!takyonSend(path_, b, s.bytes, s.src_offset, s.dest_offset, &timed_out)) {
        fail("takyonSend " + where(seq, b, dir), path_error());
        return false;
      }
      if (!timed_out) break;
      if (std::chrono::steady_clock::now() > until) {
        fail("takyonSend " + where(seq, b, dir), "could not start for 30 s");
        return false;
      }
    }
    if (me_.nonblocking_send != 0) {
      pending_[static_cast<size_t>(b)] = 1;
      // Complete some sends at once and leave others until their buffer comes round again.
      if (mix64(seq ^ 0xF1ull) % 3 == 0 && !finish(b)) return false;
    }
    return true;
  }

  bool receive(uint64_t seq, int b, int dir) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kWait);
    uint64_t bytes = 0;
    uint64_t offset = 0;
    for (;;) {
      bool timed_out = false;
      if (!takyonRecv(path_, b, &bytes, &offset, &timed_out)) {
        fail("takyonRecv " + where(seq, b, dir), path_error());
        return false;
      }
      if (!timed_out) break;
      if (std::chrono::steady_clock::now() > until) {
        fail("takyonRecv " + where(seq, b, dir), "nothing arrived for 30 s (lost)");
        return false;
      }
    }
    const Shape s = shape(seq, dir);
    if (bytes != s.bytes || offset != s.dest_offset) {
      fail(where(seq, b, dir), std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                   " arrived, sent " + std::to_string(s.bytes) + " at " +
                                   std::to_string(s.dest_offset) + " (lost, repeated or out of order)");
      return false;
    }
    const auto* base = reinterpret_cast<const uint8_t*>(path_->attrs.recver_addr_list[b]);
    const std::string bad = check_pattern(base + offset, bytes, message_key(plan_.shape_seed, seq, dir));
    if (!bad.empty()) {
      fail(where(seq, b, dir), "wrong content: " + bad);
      return false;
    }
    checked_ += bytes;
    return true;
  }

  const TakyonProviderInfo& info_;
  const Options& options_;
  const Plan& plan_;
  bool is_a_;
  Choice me_;
  TakyonPath* path_ = nullptr;
  uint64_t send_size_ = 0;
  uint64_t recv_size_ = 0;
  std::vector<std::vector<uint64_t>> memory_;
  std::vector<uint8_t> pending_;
  uint64_t checked_ = 0;
  std::string error_;
};

// Endpoint B: follows A's plans until told to stop. True when every segment passed.
// In its own process (`own_process`), B also checks that each path left no descriptor open; as a
// thread it shares A's descriptors, which A checks.
bool serve_b(int fd, const TakyonProviderInfo& info, const Options& options, bool own_process) {
  bool all_ok = true;
  int fds_after_first = -1;
  Plan plan;
  while (get(fd, plan) && plan.stop == 0) {
    Report report;
    {
      SegmentEndpoint ep(info, options, plan, false);
      bool ok = ep.create() && ep.run_b(report.bytes);
      ok = ep.destroy() && ok;
      report.ok = ok ? 1 : 0;
      report.why.set(ep.error());
    }
    const int fds = own_process ? open_fd_count() : 0;
    if (fds_after_first < 0) {
      fds_after_first = fds;
    } else if (fds > fds_after_first && report.ok != 0) {
      report.ok = 0;
      report.why.set("endpoint B: " + std::to_string(fds) + " file descriptors open after segment " +
                     std::to_string(plan.index) + ", " + std::to_string(fds_after_first) +
                     " after the first");
    }
    all_ok = all_ok && report.ok != 0;
    if (!put(fd, report)) return false;
  }
  return all_ok;
}

Plan make_plan(std::mt19937_64& rng, const TakyonProviderInfo& info, const Options& options, uint64_t index,
               uint64_t first) {
  Plan plan;
  plan.index = index;
  plan.first = first;
  const uint64_t left = options.messages - first;
  plan.count = log_pick(rng, 1, left < options.max_segment ? left : options.max_segment);
  plan.shape_seed = mix64(options.seed ^ mix64(index));
  plan.nbufs = static_cast<uint32_t>(1 + rng() % 8);
  uint64_t max_bytes = options.max_bytes;
  if (info.max_message_bytes != 0 && info.max_message_bytes < max_bytes) max_bytes = info.max_message_bytes;
  // A stream's window must fit the kernel's socket buffers: with more than one message in flight in
  // each direction, both sides could otherwise block writing (the provider's stream flag).
  if (info.stream && plan.nbufs > 1 && max_bytes > kStreamInFlight / plan.nbufs)
    max_bytes = kStreamInFlight / plan.nbufs;
  plan.bytes_atob = log_pick(rng, 1, max_bytes);
  plan.bytes_btoa = log_pick(rng, 1, max_bytes);
  plan.a = pick_choice(rng, info);
  plan.b = pick_choice(rng, info);
  return plan;
}

// Endpoint A: plans and runs segments, collects B's reports.
bool drive_a(int fd, const TakyonProviderInfo& info, const Options& options, Totals& totals) {
  std::mt19937_64 rng(options.seed);
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  int fds_after_first = -1;
  uint64_t first = 0;
  for (uint64_t index = 0; ok && first < options.messages; ++index) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.seconds > 0 && elapsed >= options.seconds) break;
    const Plan plan = make_plan(rng, info, options, index, first);
    if (!put(fd, plan)) {
      std::fprintf(stderr, "soak %s: endpoint B has gone before segment %llu\n", info.name,
                   static_cast<unsigned long long>(index));
      return false;
    }
    std::string error;
    {
      SegmentEndpoint ep(info, options, plan, true);
      ok = ep.create() && ep.run_a(totals);
      ok = ep.destroy() && ok;
      error = ep.error();
    }
    Report report;
    if (!get(fd, report)) {
      std::fprintf(stderr, "soak %s: endpoint B has gone during segment %llu\n", info.name,
                   static_cast<unsigned long long>(index));
      return false;
    }
    totals.bytes += report.bytes;
    ++totals.segments;
    if (!error.empty()) std::fprintf(stderr, "soak %s: %s\n", info.name, error.c_str());
    if (report.ok == 0) std::fprintf(stderr, "soak %s: %s\n", info.name, report.why.text);
    ok = ok && report.ok != 0;
    first += plan.count;
    // Every segment's path is gone: its files and descriptors must be too.
    const std::string left = shm_leftovers(options.path_id);
    if (!left.empty()) {
      std::fprintf(stderr, "soak %s: segment %llu left in /dev/shm: %s\n", info.name,
                   static_cast<unsigned long long>(index), left.c_str());
      ok = false;
    }
    const int fds = open_fd_count();
    if (fds_after_first < 0) {
      fds_after_first = fds;  // the first path may open what the library keeps (UCX's context)
    } else if (fds > fds_after_first) {
      std::fprintf(stderr, "soak %s: %d file descriptors open after segment %llu, %d after the first\n",
                   info.name, fds, static_cast<unsigned long long>(index), fds_after_first);
      ok = false;
    }
  }
  Plan stop;
  stop.stop = 1;
  (void)put(fd, stop);
  return ok;
}

}  // namespace

bool soak_connected(const TakyonProviderInfo& info, const Options& options, Totals& totals) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::perror("soak: socketpair");
    return false;
  }
  if (info.reach == TAKYON_REACH_THREADS) {
    bool b_ok = false;
    std::thread b([&] { b_ok = serve_b(fds[1], info, options, false); });
    const bool a_ok = drive_a(fds[0], info, options, totals);
    b.join();
    close(fds[0]);
    close(fds[1]);
    return a_ok && b_ok;
  }
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("soak: fork");
    return false;
  }
  if (child == 0) {
    close(fds[0]);
    const bool ok = serve_b(fds[1], info, options, true);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  const bool a_ok = drive_a(fds[0], info, options, totals);
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const bool b_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!b_ok)
    std::fprintf(stderr, "soak %s: endpoint B's process ended with status 0x%x\n", info.name, status);
  return a_ok && b_ok;
}

}  // namespace takyon::soak
