// SPDX-License-Identifier: MIT
// takyon-soak: one provider's soak (many messages, every byte checked), its options and summary line.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "soak/soak.hpp"
#include "soak/soak_channel.hpp"
#include "takyon/takyon_providers.h"

namespace {

using takyon::soak::Options;
using takyon::soak::Totals;

constexpr uint64_t kTimedMaxSegment = 10000;  // --max-segment's cap under --seconds

void usage(const char* program) {
  std::fprintf(
      stderr,
      "usage: %s --provider <name> [--messages N] [--seconds S] [--seed N] [--max-bytes B]\n"
      "                [--max-segment N]\n"
      "       %s --list\n"
      "  --provider     a provider of the table (takyon-info); for a datagram pair, its sending half\n"
      "  --messages     messages from A to B (default 100000); a connected provider's are each answered\n"
      "  --seconds      start no new path (segment) after S seconds; 0: no limit (default); when set,\n"
      "                 --max-segment is at most 10000\n"
      "  --seed         the seed of every random choice (default 1); the same seed repeats a run\n"
      "  --max-bytes    the largest buffer a segment declares (default 262144)\n"
      "  --max-segment  the most messages one path carries before it is made anew (default 100000)\n"
      "  --inject-repeat N  repeat message N (a self-test: the run must fail, naming it)\n"
      "  --list         print the providers this library has that the soak covers, one per line\n",
      program, program);
}

// The soak covers the reliable connected two-way providers and the sending halves of datagram pairs.
bool connected(const TakyonProviderInfo& info) {
  return info.reliable && info.connected && info.sends && info.receives;
}
bool datagram_sender(const TakyonProviderInfo& info) {
  return !info.connected && info.sends && !info.receives;
}

bool parse_u64(const char* text, uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 0);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    uint64_t value = 0;
    if (arg == "--list") {
      list = true;
    } else if (arg == "--provider" && has_value) {
      options.provider = argv[++i];
    } else if (arg == "--seconds" && has_value) {
      char* end = nullptr;
      options.seconds = std::strtod(argv[++i], &end);
      if (*end != '\0' || options.seconds < 0) {
        std::fprintf(stderr, "takyon-soak: --seconds '%s' is no number of seconds >= 0\n", argv[i]);
        return 2;
      }
    } else if ((arg == "--messages" || arg == "--seed" || arg == "--max-bytes" || arg == "--max-segment" ||
                arg == "--inject-repeat") &&
               has_value) {
      if (!parse_u64(argv[++i], value)) {
        std::fprintf(stderr, "takyon-soak: %s '%s' is no unsigned integer\n", argv[i - 1], argv[i]);
        return 2;
      }
      if (arg == "--messages") options.messages = value;
      if (arg == "--seed") options.seed = value;
      if (arg == "--max-bytes") options.max_bytes = value;
      if (arg == "--max-segment") options.max_segment = value;
      if (arg == "--inject-repeat") options.inject_repeat = value;
    } else {
      usage(argv[0]);
      return 2;
    }
  }
  if (list) {
    for (int i = 0; i < takyonProviderCount(); ++i) {
      const TakyonProviderInfo* row = takyonProviderInfo(i);
      if (row->available && (connected(*row) || datagram_sender(*row))) std::printf("%s\n", row->name);
    }
    return 0;
  }
  if (options.provider.empty() || options.max_bytes == 0 || options.max_segment == 0) {
    usage(argv[0]);
    return 2;
  }
  // The time limit is checked between segments: shorter ones keep a slow provider near it.
  if (options.seconds > 0 && options.max_segment > kTimedMaxSegment) options.max_segment = kTimedMaxSegment;
  const TakyonProviderInfo* info = takyonFindProvider(options.provider.c_str());
  if (info == nullptr || options.provider.find(' ') != std::string::npos) {
    std::fprintf(stderr, "takyon-soak: '%s' is no provider of this library (takyon-soak --list)\n",
                 options.provider.c_str());
    return 2;
  }
  if (!info->available) {
    std::fprintf(stderr, "takyon-soak: provider %s is not built into this library\n", info->name);
    return 2;
  }
  if (!connected(*info) && !datagram_sender(*info)) {
    std::fprintf(stderr,
                 "takyon-soak: %s is a receiving half; name its sending half (%s), which soaks the pair\n",
                 info->name, info->peer_name);
    return 2;
  }
  // An ID no other process uses: the pid (below 2^22) and a fixed low field, as the tests derive theirs.
  options.path_id = ((static_cast<uint32_t>(getpid()) & 0x3FFFFFu) << 10) | 0x3FEu;

  Totals totals;
  const auto start = std::chrono::steady_clock::now();
  const bool ok = connected(*info) ? takyon::soak::soak_connected(*info, options, totals)
                                   : takyon::soak::soak_datagram(*info, options, totals);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = seconds > 0 ? static_cast<double>(totals.messages) / seconds : 0.0;
  const double mb = static_cast<double>(totals.bytes) / 1e6;
  if (connected(*info)) {
    std::printf(
        "soak %s: %s, %llu messages A to B and %llu answers B to A checked (%.1f MB), %llu paths, "
        "%.2f s, %.0f messages/s, seed %llu\n",
        info->name, ok ? "PASSED" : "FAILED", static_cast<unsigned long long>(totals.messages),
        static_cast<unsigned long long>(totals.replies), mb, static_cast<unsigned long long>(totals.segments),
        seconds, rate, static_cast<unsigned long long>(options.seed));
  } else {
    std::printf(
        "soak %s: %s, %llu datagrams sent, %llu arrived intact (%.1f MB), %llu lost, %llu reordered, "
        "%llu paths, %.2f s, %.0f messages/s, seed %llu\n",
        info->name, ok ? "PASSED" : "FAILED", static_cast<unsigned long long>(totals.messages),
        static_cast<unsigned long long>(totals.received), mb, static_cast<unsigned long long>(totals.lost),
        static_cast<unsigned long long>(totals.reordered), static_cast<unsigned long long>(totals.segments),
        seconds, rate, static_cast<unsigned long long>(options.seed));
  }
  const std::string left = takyon::soak::shm_leftovers(options.path_id);
  if (!left.empty()) {
    std::fprintf(stderr, "soak %s: left in /dev/shm: %s\n", info->name, left.c_str());
    return 1;
  }
  return ok ? 0 : 1;
}
