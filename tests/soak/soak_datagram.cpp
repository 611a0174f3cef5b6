// SPDX-License-Identifier: MIT
// Soak of a connectionless pair on loopback: numbered datagrams, every byte checked, losses counted.
//
// Datagrams may be lost or reordered (the providers' contract), never corrupted, cut or repeated on
// loopback. Each carries its sequence number in its first 8 bytes and the pattern of that number
// after it; the receiver marks what it has seen, so a repeat or a number from nowhere fails at once.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "soak/soak.hpp"
#include "soak/soak_channel.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_providers.h"

namespace takyon::soak {
namespace {

constexpr uint64_t kMaxDatagram = 65507;
constexpr double kQuietSeconds = 0.2;  // a receiver that heard nothing this long after the last send stops

TakyonPathAttributes datagram_attrs(const std::string& text, bool sender, bool polling, bool nonblocking,
                                    double recv_start) {
  TakyonPathAttributes attrs{};
  std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", text.c_str());
  attrs.is_endpointA = sender;
  attrs.is_polling = polling;
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  attrs.path_create_timeout = 5.0;
  attrs.send_start_timeout = 5.0;
  attrs.send_finish_timeout = 5.0;
  attrs.recv_start_timeout = recv_start;
  attrs.recv_finish_timeout = 5.0;
  attrs.path_destroy_timeout = 5.0;
  attrs.send_completion_method = nonblocking ? TAKYON_USE_IS_SEND_FINISHED : TAKYON_BLOCKING;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  return attrs;
}

std::string take_error(TakyonPathAttributes& attrs) {
  std::string out = attrs.error_message != nullptr ? attrs.error_message : "(no message)";
  std::free(attrs.error_message);
  attrs.error_message = nullptr;
  return out;
}

std::string path_error(const TakyonPath* path) {
  return path->attrs.error_message != nullptr ? path->attrs.error_message : "(no message)";
}

struct Segment {
  uint64_t index = 0;
  uint64_t first = 0;
  uint64_t count = 0;
  uint64_t seed = 0;
  uint64_t send_bytes = 0;
  uint64_t recv_bytes = 0;
  int send_nbufs = 1;
  int recv_nbufs = 1;
  bool send_polling = false;
  bool recv_polling = false;
  bool nonblocking = false;
  std::string send_text;
  std::string recv_text;
};

Shape datagram_shape(const Segment& s, uint64_t seq) {
  return shape_of(s.seed, seq, 0, s.send_bytes, s.recv_bytes, kMaxDatagram, false, true, 8);
}

struct Counts {
  uint64_t received = 0;
  uint64_t reordered = 0;
  uint64_t bytes = 0;
  std::string error;  // corruption, a repeat, a number from nowhere, or a failed call
};

// The receiver: creates its endpoint, says so, and takes datagrams until the sender is done and the
// line has been quiet for kQuietSeconds.
void receive(const Segment& s, std::atomic<int>& ready, const std::atomic<bool>& sent, Counts& out) {
  TakyonPathAttributes attrs = datagram_attrs(s.recv_text, false, s.recv_polling, false, kQuietSeconds);
  attrs.nbufs_AtoB = s.recv_nbufs;
  std::vector<uint64_t> sizes(static_cast<size_t>(s.recv_nbufs), s.recv_bytes);
  std::vector<size_t> addrs(sizes.size(), 0);
  attrs.recver_max_bytes_list = sizes.data();
  attrs.recver_addr_list = addrs.data();
  TakyonPath* path = takyonCreate(&attrs);
  if (path == nullptr) {
    out.error = "takyonCreate('" + s.recv_text + "'): " + take_error(attrs);
    ready = -1;
    return;
  }
  ready = 1;
  std::vector<uint8_t> seen(s.count, 0);
  uint64_t highest = 0;
  for (uint64_t k = 0; out.error.empty(); ++k) {
    const bool was_sent = sent.load();
    const int buffer = static_cast<int>(mix64(s.seed ^ k) % static_cast<uint64_t>(s.recv_nbufs));
    uint64_t bytes = 0;
    uint64_t offset = 0;
    bool timed_out = false;
    if (!takyonRecv(path, buffer, &bytes, &offset, &timed_out)) {
      out.error = "takyonRecv buffer " + std::to_string(buffer) + ": " + path_error(path);
      break;
    }
    if (timed_out) {
      if (was_sent) break;
      continue;
    }
    const auto* data = reinterpret_cast<const uint8_t*>(path->attrs.recver_addr_list[buffer]) + offset;
    uint64_t seq = UINT64_MAX;
    if (bytes >= 8) std::memcpy(&seq, data, 8);
    if (bytes < 8 || offset != 0 || seq < s.first || seq - s.first >= s.count) {
      out.error = "a datagram of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                  " numbered " + std::to_string(seq) + ", outside the segment's " + std::to_string(s.first) +
                  ".." + std::to_string(s.first + s.count - 1);
      break;
    }
    const Shape shape = datagram_shape(s, seq);
    if (bytes != shape.bytes) {
      out.error = "datagram " + std::to_string(seq) + " has " + std::to_string(bytes) + " bytes, sent " +
                  std::to_string(shape.bytes);
      break;
    }
    const std::string bad = check_pattern(data + 8, bytes - 8, message_key(s.seed, seq, 0));
    if (!bad.empty()) {
      out.error = "datagram " + std::to_string(seq) + ": wrong content: " + bad;
      break;
    }
    uint8_t& mark = seen[seq - s.first];
    if (mark != 0) {
      out.error = "datagram " + std::to_string(seq) + " arrived twice";
      break;
    }
    mark = 1;
    ++out.received;
    out.bytes += bytes;
    if (seq < highest) ++out.reordered;
    if (seq > highest) highest = seq;
  }
  char* e = takyonDestroy(&path);
  if (e != nullptr && out.error.empty()) out.error = std::string("takyonDestroy: ") + e;
  std::free(e);
}

// The sender: every datagram from a random send buffer at a random offset, paced so that a receiver
// that checks every byte mostly keeps up (losses are allowed, but a soak of nothing is no soak).
std::string send_all(const Segment& s, uint64_t inject_repeat) {
  TakyonPathAttributes attrs = datagram_attrs(s.send_text, true, s.send_polling, s.nonblocking, 5.0);
  attrs.nbufs_AtoB = s.send_nbufs;
  std::vector<uint64_t> sizes(static_cast<size_t>(s.send_nbufs), s.send_bytes);
  std::vector<size_t> addrs(sizes.size(), 0);
  attrs.sender_max_bytes_list = sizes.data();
  attrs.sender_addr_list = addrs.data();
  TakyonPath* path = takyonCreate(&attrs);
  if (path == nullptr) return "takyonCreate('" + s.send_text + "'): " + take_error(attrs);
  std::string error;
  std::vector<uint8_t> pending(static_cast<size_t>(s.send_nbufs), 0);
  const auto finish = [&](int b) {
    bool timed_out = true;
    while (pending[static_cast<size_t>(b)] != 0 && timed_out) {
      if (!takyonIsSendFinished(path, b, &timed_out)) {
        error = "takyonIsSendFinished buffer " + std::to_string(b) + ": " + path_error(path);
        return false;
      }
    }
    pending[static_cast<size_t>(b)] = 0;
    return true;
  };
  for (uint64_t seq = s.first; seq < s.first + s.count && error.empty(); ++seq) {
    const int b = static_cast<int>(mix64(s.seed ^ ~seq) % static_cast<uint64_t>(s.send_nbufs));
    if (!finish(b)) break;
    const Shape shape = datagram_shape(s, seq);
    auto* data = reinterpret_cast<uint8_t*>(path->attrs.sender_addr_list[b]) + shape.src_offset;
    std::memcpy(data, &seq, 8);
    fill_pattern(data + 8, shape.bytes - 8, message_key(s.seed, seq, 0));
    bool timed_out = false;
    if (!takyonSend(path, b, shape.bytes, shape.src_offset, 0, &timed_out)) {
      error = "takyonSend datagram " + std::to_string(seq) + ": " + path_error(path);
      break;
    }
    if (timed_out) {
      error = "takyonSend datagram " + std::to_string(seq) + ": could not start for 5 s";
      break;
    }
    if (s.nonblocking) pending[static_cast<size_t>(b)] = 1;
    const bool repeat = inject_repeat > 0 && seq == inject_repeat;
    if (repeat && !finish(b)) break;
    if (repeat && !takyonSend(path, b, shape.bytes, shape.src_offset, 0, &timed_out)) {
      error = "takyonSend datagram " + std::to_string(seq) + " again: " + path_error(path);
      break;
    }
    if (s.nonblocking) pending[static_cast<size_t>(b)] = 1;
    if (seq % 8 == 7 || shape.bytes > 16384) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  for (int b = 0; b < s.send_nbufs && error.empty(); ++b) (void)finish(b);
  char* e = takyonDestroy(&path);
  if (e != nullptr && error.empty()) error = std::string("takyonDestroy: ") + e;
  std::free(e);
  return error;
}

std::string multicast_group() {
  const auto pid = static_cast<unsigned>(getpid());
  return "239.255." + std::to_string(100 + pid % 150) + "." + std::to_string(1 + (pid / 150) % 250);
}

}  // namespace

bool soak_datagram(const TakyonProviderInfo& info, const Options& options, Totals& totals) {
  const TakyonProviderInfo* recv_info = takyonFindProvider(info.peer_name);
  if (recv_info == nullptr || !recv_info->available) {
    std::fprintf(stderr, "soak %s: its receiving half '%s' is not in this library\n", info.name,
                 info.peer_name);
    return false;
  }
  const bool multicast = (info.addressing & TAKYON_ADDRESS_MULTICAST) != 0;
  std::mt19937_64 rng(options.seed);
  const auto start = std::chrono::steady_clock::now();
  uint64_t max_bytes = options.max_bytes < kMaxDatagram ? options.max_bytes : kMaxDatagram;
  if (max_bytes < 8) max_bytes = 8;
  bool ok = true;
  uint64_t first = 0;
  for (uint64_t index = 0; ok && first < options.messages; ++index) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.seconds > 0 && elapsed >= options.seconds) break;
    Segment s;
    s.index = index;
    s.first = first;
    const uint64_t left = options.messages - first;
    const uint64_t most = left < options.max_segment ? left : options.max_segment;
    s.count = 1 + rng() % most;
    s.seed = mix64(options.seed ^ mix64(index));
    s.send_bytes = 8 + rng() % (max_bytes - 7);
    s.recv_bytes = 8 + rng() % (max_bytes - 7);
    s.send_nbufs = static_cast<int>(1 + rng() % 4);
    s.recv_nbufs = static_cast<int>(1 + rng() % 4);
    s.send_polling = (rng() & 1u) != 0;
    s.recv_polling = (rng() & 1u) != 0;
    s.nonblocking = (rng() & 1u) != 0;
    std::atomic<int> ready{0};
    std::atomic<bool> sent{false};
    Counts counts;
    std::string error;
    // The port was free a moment ago; another process may take it first: then try another.
    for (int attempt = 0; attempt < 3; ++attempt) {
      const std::string port = std::to_string(loopback_port(SOCK_DGRAM));
      if (multicast) {
        const std::string where = " -IP=127.0.0.1 -group=" + multicast_group() + " -port=" + port;
        s.send_text = std::string(info.name) + where;
        s.recv_text = std::string(recv_info->name) + where + " -reuse";
      } else {
        s.send_text = std::string(info.name) + " -IP=127.0.0.1 -port=" + port;
        s.recv_text = std::string(recv_info->name) + " -IP=127.0.0.1 -port=" + port;
      }
      ready = 0;
      counts = Counts{};
      std::thread receiver([&] { receive(s, ready, sent, counts); });
      while (ready.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (ready.load() > 0) error = send_all(s, options.inject_repeat);
      sent = true;
      receiver.join();
      if (ready.load() > 0 || counts.error.find("in use") == std::string::npos) break;
      sent = false;
    }
    ++totals.segments;
    totals.messages += s.count;
    totals.received += counts.received;
    totals.lost += s.count - counts.received;
    totals.reordered += counts.reordered;
    totals.bytes += counts.bytes;
    for (const std::string* e : {&error, &counts.error}) {
      if (e->empty()) continue;
      std::fprintf(stderr, "soak %s: segment %llu (%s): %s\n", info.name,
                   static_cast<unsigned long long>(index), e == &error ? "sender" : "receiver", e->c_str());
      ok = false;
    }
    first += s.count;
  }
  if (ok && totals.received * 10 < totals.messages) {
    std::fprintf(stderr, "soak %s: only %llu of %llu datagrams arrived (at least a tenth must)\n", info.name,
                 static_cast<unsigned long long>(totals.received),
                 static_cast<unsigned long long>(totals.messages));
    ok = false;
  }
  return ok;
}

}  // namespace takyon::soak
