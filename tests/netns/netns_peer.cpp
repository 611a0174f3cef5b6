// SPDX-License-Identifier: MIT
// takyon_netns_peer: one endpoint of a socket-provider path per run (the netns tests start it
// with `ip netns exec`). Talks only through the C API and prints machine-readable lines:
//   READY                       the path exists (printed after takyonCreate() returned)
//   RUNNING                     tcp-stream: the first messages went both ways
//   GAP after_seq= next_seq= ms= timeouts=     udp-recv: messages resumed after receive timeouts
//   RESULT key=value ...        counts at the end (see each role)
//   OVERSIZE bytes= rejected= text=            udp-send --oversize: the send that must fail
//   ERROR phase= after_ms= marker= text=       a call failed (after_ms: since the marker, else
//                                              since the phase began); the exit status is then 1
//   TIMEOUT phase=              a start timeout expired where none should (exit status 3)
// Exit status 0: every call did what the role expects and every received byte was right.
//
// Roles (all take --provider=<interconnect> --mode=poll|event --timeout=<s> --create-timeout=<s>;
// those with --min-bytes= also take --sizes=linear|log, how sizes spread between min and max):
//   tcp         --side=a|b --count=N --bufs=K --min-bytes= --max-bytes=
//               N messages each way: message i goes in buffer i%K, then message i of the peer is
//               received and checked (sequence, size, every byte). RESULT sent= received=
//               checked_bytes= bad=
//   tcp-stream  --side=a|b --min-bytes= --max-bytes= --max-seconds=S
//               the same exchange until a call fails (expected: the test cuts the link) or S
//               seconds pass. SIGUSR1 is the marker: after_ms in ERROR counts from it.
//   udp-send    --count=N (0: no limit) --duration-ms= --pace-us= --min-bytes= --max-bytes=
//               [--oversize=B]   sends seq 0, 1, ... paced; RESULT sent= send_timeouts=
//   udp-recv    --min-bytes= --max-bytes= --buffer-bytes= --expect=N --recv-timeout-ms=
//               --idle-stop-ms= --duration-ms= [--last-seq=S]   receives until N distinct messages,
//               until message S or a later one arrived, until idle that long after the last
//               arrival, or until the duration; RESULT received=
//               distinct= lost= dup= reordered= bad_bytes= timeouts= max_seq= largest=
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "netns/message_format.hpp"
#include "takyon/takyon.h"

namespace {

using takyon::test::netns::MessageStream;

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The marker: the moment the test changed the network (SIGUSR1). Lock-free, so the handler may
// store into it.
std::atomic<int64_t> g_marker_ns{0};
static_assert(std::atomic<int64_t>::is_always_lock_free);

void on_marker(int /*signal*/) {
  g_marker_ns.store(mono_ns(), std::memory_order_relaxed);
}

// One line per message, for the test's parser: newlines inside the text would split it.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = '|';
  }
  return text;
}

class Args {
 public:
  Args(int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (!arg.starts_with("--") || arg.find('=') == std::string_view::npos) {
        bad_.push_back(std::string(arg));
        continue;
      }
      const size_t eq = arg.find('=');
      values_[std::string(arg.substr(2, eq - 2))] = std::string(arg.substr(eq + 1));
    }
  }
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback = "") {
    used_.push_back(key);
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }
  [[nodiscard]] uint64_t number(const std::string& key, uint64_t fallback) {
    const std::string value = text(key);
    return value.empty() ? fallback : std::strtoull(value.c_str(), nullptr, 10);
  }
  [[nodiscard]] double seconds(const std::string& key, double fallback) {
    const std::string value = text(key);
    return value.empty() ? fallback : std::strtod(value.c_str(), nullptr);
  }
  /// "" when every argument was of the form --key=value and every key was asked for.
  [[nodiscard]] std::string unused() const {
    std::string out;
    for (const std::string& b : bad_) out += " '" + b + "'";
    for (const auto& [key, value] : values_) {
      if (std::find(used_.begin(), used_.end(), key) == used_.end()) out += " --" + key;
    }
    return out;
  }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> bad_;
  std::vector<std::string> used_;
};

// What every role shares: the path's attributes and how to report a failed call.
struct Common {
  std::string provider;
  bool polling = false;
  double timeout = 10.0;
  double create_timeout = 10.0;

  explicit Common(Args& args)
      : provider(args.text("provider")),
        polling(args.text("mode", "event") == "poll"),
        timeout(args.seconds("timeout", 10.0)),
        create_timeout(args.seconds("create-timeout", 10.0)) {}

  /// Attributes for this endpoint: `nsend` send buffers and `nrecv` receive buffers.
  [[nodiscard]] TakyonPathAttributes attrs(bool endpoint_a, int nsend, int nrecv) const {
    TakyonPathAttributes a{};
    std::snprintf(a.interconnect, sizeof(a.interconnect), "%s", provider.c_str());
    a.is_endpointA = endpoint_a;
    a.is_polling = polling;
    a.abort_on_failure = false;
    a.verbosity = TAKYON_VERBOSITY_NONE;
    a.path_create_timeout = create_timeout;
    a.send_start_timeout = timeout;
    a.send_finish_timeout = timeout;
    a.recv_start_timeout = timeout;
    a.recv_finish_timeout = timeout;
    a.path_destroy_timeout = timeout;
    a.send_completion_method = TAKYON_BLOCKING;
    a.recv_completion_method = TAKYON_BLOCKING;
    a.nbufs_AtoB = endpoint_a ? nsend : nrecv;
    a.nbufs_BtoA = endpoint_a ? nrecv : nsend;
    return a;
  }
};

// Owns a path; destroys it (forced after an error) when the role ends early.
class Path {
 public:
  Path() = default;
  Path(const Path&) = delete;
  Path& operator=(const Path&) = delete;
  ~Path() {
    if (path_ != nullptr) std::free(takyonDestroy(&path_));
  }
  /// takyonCreate(); on failure prints ERROR phase=create (after_ms since the call began).
  bool create(TakyonPathAttributes& attrs, std::vector<uint64_t> send_bytes,
              std::vector<uint64_t> recv_bytes) {
    send_bytes_ = std::move(send_bytes);
    recv_bytes_ = std::move(recv_bytes);
    send_addrs_.assign(send_bytes_.size(), 0);
    recv_addrs_.assign(recv_bytes_.size(), 0);
    attrs.sender_max_bytes_list = send_bytes_.empty() ? nullptr : send_bytes_.data();
    attrs.recver_max_bytes_list = recv_bytes_.empty() ? nullptr : recv_bytes_.data();
    attrs.sender_addr_list = send_addrs_.empty() ? nullptr : send_addrs_.data();
    attrs.recver_addr_list = recv_addrs_.empty() ? nullptr : recv_addrs_.data();
    const int64_t start = mono_ns();
    path_ = takyonCreate(&attrs);
    if (path_ == nullptr) {
      const std::string text = attrs.error_message != nullptr ? attrs.error_message : "(no error message)";
      std::free(attrs.error_message);
      std::printf("ERROR phase=create after_ms=%.1f marker=0 text=%s\n",
                  static_cast<double>(mono_ns() - start) / 1e6, one_line(text).c_str());
      return false;
    }
    std::printf("READY\n");
    return true;
  }
  [[nodiscard]] TakyonPath* get() const { return path_; }
  [[nodiscard]] uint8_t* send_buffer(int i) const {
    return reinterpret_cast<uint8_t*>(path_->attrs.sender_addr_list[i]);
  }
  [[nodiscard]] uint8_t* recv_buffer(int i) const {
    return reinterpret_cast<uint8_t*>(path_->attrs.recver_addr_list[i]);
  }
  [[nodiscard]] std::string error() const {
    return path_->attrs.error_message != nullptr ? one_line(path_->attrs.error_message)
                                                 : "(no error message)";
  }
  /// takyonDestroy(); "" on success, else the error.
  std::string destroy() {
    char* error = takyonDestroy(&path_);
    const std::string text = error != nullptr ? one_line(error) : "";
    std::free(error);
    return text;
  }

 private:
  TakyonPath* path_ = nullptr;
  std::vector<uint64_t> send_bytes_;
  std::vector<uint64_t> recv_bytes_;
  std::vector<size_t> send_addrs_;
  std::vector<size_t> recv_addrs_;
};

// Prints ERROR for a failed call: after_ms counts from the marker when there was one, else from
// `since_ns`.
void print_error(const char* phase, int64_t since_ns, const std::string& text) {
  const int64_t now = mono_ns();
  const int64_t marker = g_marker_ns.load(std::memory_order_relaxed);
  const int64_t from = marker != 0 ? marker : since_ns;
  std::printf("ERROR phase=%s after_ms=%.1f marker=%d text=%s\n", phase,
              static_cast<double>(now - from) / 1e6, marker != 0 ? 1 : 0, text.c_str());
}

MessageStream stream_for(Args& args, int salt) {
  MessageStream s;
  s.min_bytes = std::max<uint64_t>(args.number("min-bytes", takyon::test::netns::kSeqBytes),
                                   takyon::test::netns::kSeqBytes);
  s.max_bytes = std::max<uint64_t>(args.number("max-bytes", 4096), s.min_bytes);
  s.salt = salt;
  const std::string sizes = args.text("sizes", "linear");
  if (sizes != "linear" && sizes != "log") {
    std::printf("ERROR phase=args after_ms=0 marker=0 text=--sizes=%s is not linear or log\n", sizes.c_str());
    std::exit(2);
  }
  s.log_sizes = sizes == "log";
  return s;
}

// Both directions of a connected path: message i goes in buffer i % nbufs, then message i of the
// peer is received. Returns the exit status. `forever`: until an error or max_seconds.
int run_tcp(Args& args, bool forever) {
  Common common(args);
  const bool endpoint_a = args.text("side") == "a";
  const uint64_t count = args.number("count", 100);
  const int nbufs = static_cast<int>(args.number("bufs", forever ? 1 : 2));
  const double max_seconds = args.seconds("max-seconds", 8.0);
  const MessageStream mine = stream_for(args, endpoint_a ? 1 : 2);
  MessageStream theirs = mine;
  theirs.salt = endpoint_a ? 2 : 1;
  if (const std::string rest = args.unused(); !rest.empty()) {
    std::printf("ERROR phase=args after_ms=0 marker=0 text=unknown arguments:%s\n", rest.c_str());
    return 2;
  }
  TakyonPathAttributes attrs = common.attrs(endpoint_a, nbufs, nbufs);
  Path path;
  if (!path.create(attrs, std::vector<uint64_t>(static_cast<size_t>(nbufs), mine.max_bytes),
                   std::vector<uint64_t>(static_cast<size_t>(nbufs), theirs.max_bytes))) {
    return 1;
  }
  std::fflush(stdout);
  const int64_t start = mono_ns();
  uint64_t bad = 0;
  uint64_t checked_bytes = 0;
  uint64_t i = 0;
  const auto result = [&]() {
    std::printf("RESULT sent=%llu received=%llu checked_bytes=%llu bad=%llu\n",
                static_cast<unsigned long long>(i), static_cast<unsigned long long>(i),
                static_cast<unsigned long long>(checked_bytes), static_cast<unsigned long long>(bad));
  };
  for (; forever || i < count; ++i) {
    if (forever && static_cast<double>(mono_ns() - start) * 1e-9 > max_seconds) break;
    if (forever && i == 20) std::printf("RUNNING\n");
    const int b = static_cast<int>(i % static_cast<uint64_t>(nbufs));
    mine.write(path.send_buffer(b), i);
    bool timed_out = false;
    int64_t since = mono_ns();
    if (!takyonSend(path.get(), b, mine.size_of(i), 0, 0, &timed_out)) {
      result();
      print_error("send", since, path.error());
      return 1;
    }
    if (timed_out) {
      result();
      std::printf("TIMEOUT phase=send seq=%llu\n", static_cast<unsigned long long>(i));
      return 3;
    }
    uint64_t bytes = 0;
    uint64_t offset = 0;
    since = mono_ns();
    if (!takyonRecv(path.get(), b, &bytes, &offset, &timed_out)) {
      result();
      print_error("recv", since, path.error());
      return 1;
    }
    if (timed_out) {
      result();
      std::printf("TIMEOUT phase=recv seq=%llu\n", static_cast<unsigned long long>(i));
      return 3;
    }
    std::string wrong;
    if (offset != 0) wrong = "offset " + std::to_string(offset) + " instead of 0";
    if (wrong.empty() && bytes >= takyon::test::netns::kSeqBytes &&
        MessageStream::seq_of(path.recv_buffer(b)) != i) {
      wrong = "sequence " + std::to_string(MessageStream::seq_of(path.recv_buffer(b))) + " instead of " +
              std::to_string(i);
    }
    if (wrong.empty()) wrong = theirs.check(path.recv_buffer(b), bytes);
    if (!wrong.empty()) {
      if (bad == 0) std::printf("BAD seq=%llu text=%s\n", static_cast<unsigned long long>(i), wrong.c_str());
      ++bad;
    } else {
      checked_bytes += bytes;
    }
    std::fflush(stdout);
  }
  result();
  const int64_t since = mono_ns();
  if (const std::string error = path.destroy(); !error.empty()) {
    print_error("destroy", since, error);
    return 1;
  }
  return bad == 0 ? 0 : 1;
}

int run_udp_send(Args& args) {
  Common common(args);
  const uint64_t count = args.number("count", 0);
  const uint64_t duration_ms = args.number("duration-ms", 0);
  const uint64_t pace_us = args.number("pace-us", 0);
  const uint64_t oversize = args.number("oversize", 0);
  const MessageStream mine = stream_for(args, 3);
  if (const std::string rest = args.unused(); !rest.empty()) {
    std::printf("ERROR phase=args after_ms=0 marker=0 text=unknown arguments:%s\n", rest.c_str());
    return 2;
  }
  TakyonPathAttributes attrs = common.attrs(true, 1, 0);
  Path path;
  if (!path.create(attrs, {std::max(mine.max_bytes, oversize)}, {})) return 1;
  std::fflush(stdout);
  const int64_t start = mono_ns();
  uint64_t sent = 0;
  uint64_t timeouts = 0;
  for (uint64_t seq = 0; count == 0 || seq < count; ++seq) {
    if (duration_ms != 0 && mono_ns() - start >= static_cast<int64_t>(duration_ms) * 1'000'000) break;
    mine.write(path.send_buffer(0), seq);
    bool timed_out = false;
    const int64_t since = mono_ns();
    if (!takyonSend(path.get(), 0, mine.size_of(seq), 0, 0, &timed_out)) {
      std::printf("RESULT sent=%llu send_timeouts=%llu\n", static_cast<unsigned long long>(sent),
                  static_cast<unsigned long long>(timeouts));
      print_error("send", since, path.error());
      return 1;
    }
    if (timed_out) {
      ++timeouts;
    } else {
      ++sent;
    }
    if (pace_us != 0) {
      const int64_t next = start + static_cast<int64_t>((seq + 1) * pace_us) * 1000;
      const int64_t wait = next - mono_ns();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
    }
  }
  std::printf("RESULT sent=%llu send_timeouts=%llu\n", static_cast<unsigned long long>(sent),
              static_cast<unsigned long long>(timeouts));
  std::fflush(stdout);
  if (oversize != 0) {
    bool timed_out = false;
    if (takyonSend(path.get(), 0, oversize, 0, 0, &timed_out)) {
      std::printf("OVERSIZE bytes=%llu rejected=0 text=\n", static_cast<unsigned long long>(oversize));
      return 1;
    }
    std::printf("OVERSIZE bytes=%llu rejected=1 text=%s\n", static_cast<unsigned long long>(oversize),
                path.error().c_str());
    (void)path.destroy();  // forced after the error; its result is not what this role checks
    return timeouts == 0 ? 0 : 1;
  }
  const int64_t since = mono_ns();
  if (const std::string error = path.destroy(); !error.empty()) {
    print_error("destroy", since, error);
    return 1;
  }
  return timeouts == 0 ? 0 : 1;
}

int run_udp_recv(Args& args) {
  Common common(args);
  const MessageStream theirs = stream_for(args, 3);
  const uint64_t buffer_bytes = args.number("buffer-bytes", theirs.max_bytes);
  const uint64_t expect = args.number("expect", 0);
  const uint64_t last_seq_stop = args.number("last-seq", UINT64_MAX);
  const double recv_timeout = static_cast<double>(args.number("recv-timeout-ms", 100)) * 1e-3;
  const int64_t idle_stop_ns = static_cast<int64_t>(args.number("idle-stop-ms", 1000)) * 1'000'000;
  const int64_t duration_ns = static_cast<int64_t>(args.number("duration-ms", 20000)) * 1'000'000;
  if (const std::string rest = args.unused(); !rest.empty()) {
    std::printf("ERROR phase=args after_ms=0 marker=0 text=unknown arguments:%s\n", rest.c_str());
    return 2;
  }
  TakyonPathAttributes attrs = common.attrs(false, 0, 1);
  attrs.recv_start_timeout = recv_timeout;
  Path path;
  if (!path.create(attrs, {}, {buffer_bytes})) return 1;
  std::fflush(stdout);

  constexpr uint64_t kMaxSeq = 1u << 24;  // a sequence number past this is a corrupt message
  std::vector<char> seen;
  uint64_t received = 0, distinct = 0, dup = 0, reordered = 0, bad = 0, timeouts = 0, largest = 0;
  uint64_t max_seq = 0, last_seq = 0, timeouts_since_last = 0;
  const int64_t start = mono_ns();
  int64_t last_arrival = 0;
  for (;;) {
    const int64_t now = mono_ns();
    if (now - start >= duration_ns) break;
    if (last_arrival != 0 && now - last_arrival >= idle_stop_ns) break;
    if (expect != 0 && distinct >= expect) break;
    if (distinct > 0 && max_seq >= last_seq_stop) break;
    uint64_t bytes = 0;
    uint64_t offset = 0;
    bool timed_out = false;
    if (!takyonRecv(path.get(), 0, &bytes, &offset, &timed_out)) {
      print_error("recv", now, path.error());
      return 1;
    }
    if (timed_out) {
      ++timeouts;
      ++timeouts_since_last;
      continue;
    }
    const int64_t arrival = mono_ns();
    ++received;
    const uint8_t* data = path.recv_buffer(0);
    std::string wrong = theirs.check(data, bytes);
    if (wrong.empty() && offset != 0) wrong = "offset " + std::to_string(offset) + " instead of 0";
    if (wrong.empty() && MessageStream::seq_of(data) >= kMaxSeq) wrong = "sequence number out of range";
    if (!wrong.empty()) {
      if (bad == 0) std::printf("BAD text=%s\n", wrong.c_str());
      ++bad;
      last_arrival = arrival;  // a wrong message is still traffic: not idle
      continue;
    }
    const uint64_t seq = MessageStream::seq_of(data);
    largest = std::max(largest, bytes);
    if (seq >= seen.size()) seen.resize(std::max<size_t>(seq + 1, seen.size() * 2), 0);
    if (seen[seq] != 0) {
      ++dup;
    } else {
      seen[seq] = 1;
      if (distinct > 0 && seq < max_seq) ++reordered;
      ++distinct;
      max_seq = std::max(max_seq, seq);
    }
    if (timeouts_since_last > 0 && last_arrival != 0) {
      std::printf("GAP after_seq=%llu next_seq=%llu ms=%.1f timeouts=%llu\n",
                  static_cast<unsigned long long>(last_seq), static_cast<unsigned long long>(seq),
                  static_cast<double>(arrival - last_arrival) / 1e6,
                  static_cast<unsigned long long>(timeouts_since_last));
      std::fflush(stdout);
    }
    timeouts_since_last = 0;
    last_seq = seq;
    last_arrival = arrival;
  }
  const uint64_t lost = distinct == 0 ? 0 : max_seq + 1 - distinct;
  std::printf(
      "RESULT received=%llu distinct=%llu lost=%llu dup=%llu reordered=%llu bad_bytes=%llu timeouts=%llu "
      "max_seq=%llu largest=%llu\n",
      static_cast<unsigned long long>(received), static_cast<unsigned long long>(distinct),
      static_cast<unsigned long long>(lost), static_cast<unsigned long long>(dup),
      static_cast<unsigned long long>(reordered), static_cast<unsigned long long>(bad),
      static_cast<unsigned long long>(timeouts), static_cast<unsigned long long>(max_seq),
      static_cast<unsigned long long>(largest));
  const int64_t since = mono_ns();
  if (const std::string error = path.destroy(); !error.empty()) {
    print_error("destroy", since, error);
    return 1;
  }
  return bad == 0 && distinct > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  struct sigaction action {};
  action.sa_handler = on_marker;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, nullptr);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s tcp|tcp-stream|udp-send|udp-recv --provider=<interconnect> [--key=value]...\n",
                 argv[0]);
    return 2;
  }
  const std::string_view role = argv[1];
  Args args(argc, argv);
  if (role == "tcp") return run_tcp(args, false);
  if (role == "tcp-stream") return run_tcp(args, true);
  if (role == "udp-send") return run_udp_send(args);
  if (role == "udp-recv") return run_udp_recv(args);
  std::fprintf(stderr, "unknown role '%s'\n", argv[1]);
  return 2;
}
