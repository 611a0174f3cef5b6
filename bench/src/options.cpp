// SPDX-License-Identifier: MIT
// Command-line parsing, size suffixes and the sweep's size list.
#include "options.hpp"

#include "socket_providers.hpp"
#include "ucx_providers.hpp"

#include "takyon/takyon.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace takyon::bench {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;
constexpr std::uint64_t kGiB = kMiB * 1024;

std::string shell_quote(std::string_view arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("-_=./,:+@%").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::uint64_t parse_count(std::string_view text, const std::string& option) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) {
    throw UsageError(option + " wants a positive integer, not '" + std::string(text) + "'");
  }
  return value;
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> parse_providers(std::string_view text) {
  if (text == "all") return all_providers();
  std::vector<std::string> out = split_commas(text);
  if (out.empty()) throw UsageError("--provider wants a provider name or 'all'");
  for (const std::string& name : out) {
    if (name.find("-ID=") != std::string::npos) {
      throw UsageError("--provider '" + name + "': leave out -ID=, takyon-bench appends a unique one");
    }
    if (name.find(' ') != std::string::npos) {
      throw UsageError("--provider '" + name +
                       "': give the bare name, takyon-bench writes the provider string");
    }
    SocketKind kind{};
    if (find_socket_provider(name, kind)) continue;
    UcxKind ucx{};
    if (find_ucx_provider(name, ucx)) {
      if (!have_ucx()) {
        throw UsageError("--provider '" + name +
                         "': this takyon-bench was built without UCX (install libucx-dev and reconfigure)");
      }
      continue;
    }
    if (name == "Ucx") {
      throw UsageError(
          "--provider 'Ucx': name a configuration: UcxTcp (-tls=tcp), UcxShm (-tls=sysv,posix) or "
          "UcxShmAm (-tls=sysv,posix -protocol=am)");
    }
    if (!generic_driver(name)) {
      std::string known;
      for (const std::string& p : all_providers()) known += (known.empty() ? "" : ", ") + p;
      throw UsageError("--provider '" + name + "': takyon-bench starts the peer endpoint itself; it runs " +
                       known +
                       " (Unicast: UnicastSendSocket/UnicastRecvSocket, Multicast: MulticastSendSocket/"
                       "MulticastRecvSocket, Ucx* : Ucx)");
    }
  }
  return out;
}

std::vector<bool> parse_collective_mode(std::string_view text) {
  if (text == "threads") return {false};
  if (text == "processes") return {true};
  if (text == "both") return {false, true};
  throw UsageError("--collective-mode wants threads, processes or both, not '" + std::string(text) + "'");
}

std::vector<bool> parse_mode(std::string_view text) {
  if (text == "polling") return {true};
  if (text == "event") return {false};
  if (text == "both") return {true, false};
  throw UsageError("--mode wants polling, event or both, not '" + std::string(text) + "'");
}

}  // namespace

bool have_ucx() {
#if defined(TAKYON_BENCH_HAVE_UCX)
  return true;
#else
  return false;
#endif
}

bool has_own_driver(std::string_view name) {
  return socket_driver_covers(name) || ucx_driver_covers(name);
}

bool generic_driver(std::string_view name) {
  const TakyonProviderInfo* p = takyon::find_provider(name);
  return p != nullptr && name == p->name && p->available && (p->addressing & TAKYON_ADDRESS_ID) != 0 &&
         p->reliable && p->connected && p->sends && p->receives && !p->stream && !has_own_driver(name);
}

const std::vector<std::string>& all_providers() {
  static const std::vector<std::string> kAll = [] {
    // The provider table's rows the generic sweep drives (a path by ID, a peer thread or process),
    // in table order, then the socket configurations (with their plain-socket floors).
    std::vector<std::string> all;
    for (const TakyonProviderInfo& p : takyon::providers()) {
      if (generic_driver(p.name)) all.emplace_back(p.name);
    }
    all.insert(all.end(), socket_provider_names().begin(), socket_provider_names().end());
    // Last: a process that has used UCX keeps its threads, and every earlier sweep forks.
    if (have_ucx()) all.insert(all.end(), ucx_provider_names().begin(), ucx_provider_names().end());
    return all;
  }();
  return kAll;
}

std::vector<std::string> providers_without_driver() {
  std::vector<std::string> out;
  for (const TakyonProviderInfo& p : takyon::providers()) {
    if (p.available && !generic_driver(p.name) && !has_own_driver(p.name)) out.emplace_back(p.name);
  }
  return out;
}

std::uint64_t parse_size(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) throw UsageError("bad size '" + std::string(text) + "'");
  std::string suffix(end, text.data() + text.size());
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
  std::uint64_t multiplier = 1;
  if (suffix.empty() || suffix == "B") {
    multiplier = 1;
  } else if (suffix == "K" || suffix == "KB" || suffix == "KIB") {
    multiplier = kKiB;
  } else if (suffix == "M" || suffix == "MB" || suffix == "MIB") {
    multiplier = kMiB;
  } else if (suffix == "G" || suffix == "GB" || suffix == "GIB") {
    multiplier = kGiB;
  } else {
    throw UsageError("bad size suffix in '" + std::string(text) + "' (use K, M or G)");
  }
  if (value > (std::uint64_t{1} << 40) / multiplier)
    throw UsageError("size '" + std::string(text) + "' too large");
  return value * multiplier;
}

std::string format_size(std::uint64_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string usage_text() {
  return "usage: takyon-bench [options]\n"
         "One-way latency (ping-pong RTT/2) and windowed bandwidth sweeps over Takyon paths, with\n"
         "two floors measured in the same run: a cache-line ping-pong (latency) and memcpy (copy);\n"
         "socket providers are measured next to the same tests on a plain blocking socket; Ucx over TCP\n"
         "like Socket, Ucx over shared memory against the floors (and, on request, UCX's ucx_perftest).\n"
         "\n"
         "  --provider P        InterThreadMemcpy, InterThreadPointer, InterProcessMemcpy,\n"
         "                      InterProcessPointer, InterProcessSocket, Socket (TCP), Unicast\n"
         "                      and Multicast (UDP send/recv pairs), UcxTcp (Ucx -tls=tcp), UcxShm\n"
         "                      (Ucx -tls=sysv,posix) and UcxShmAm (the same, -protocol=am), a\n"
         "                      comma-separated list, or all (default; Ucx ones if built with UCX)\n"
         "  --mode M            polling, event or both (default both)\n"
         "  --min-bytes N       smallest message (default 0; K/M/G suffixes)\n"
         "  --max-bytes N       largest message (default 4M)\n"
         "  --iters N           timed iterations per size: round trips (latency), messages\n"
         "                      (bandwidth); default: as many as fit ~40 ms per size and test\n"
         "  --quick             few sizes, ~4 ms per size (smoke test)\n"
         "  --csv FILE          write the records as CSV\n"
         "  --json FILE         write machine info, records and targets as JSON\n"
         "  --out-dir DIR       write DIR/takyon-bench.csv and DIR/takyon-bench.json\n"
         "  --check-targets     exit 1 if a performance target is missed\n"
         "  --vs-ucx-perftest   also run UCX's ucx_perftest (ucx-utils) over the Ucx providers'\n"
         "                      transports at 8 B and 1 MiB, in turns with the providers' own\n"
         "                      samples, and compare (targets: 8 B latency <= 1.1x and 1 MiB\n"
         "                      bandwidth >= 0.95x UCX's best, polling mode); $TAKYON_BENCH_UCX_PERFTEST\n"
         "                      overrides which ucx_perftest runs\n"
         "  --collectives       instead: barrier, reduce, allreduce, bcast and alltoall latency over a\n"
         "                      graph of --members threads and/or processes (a tree of --fanout for\n"
         "                      the first four, a full mesh for alltoall), each as a ratio to the\n"
         "                      point-to-point one-way latency measured in the same run; sizes 8 B\n"
         "                      .. --max-bytes (default 1M here); event driven unless --mode says\n"
         "  --members N         collective members, 2..16 (default 4)\n"
         "  --fanout F          tree fan-out, >= 1 (default 2)\n"
         "  --collective-mode M threads (InterThreadMemcpy), processes (InterProcessMemcpy) or both\n"
         "                      (default both)\n"
         "  --cpu-probe         instead: only the cache-line ping-pong floor between the two CPUs the\n"
         "                      sweeps use (~20 ms), printed as 'cpu-probe: <ns> ns one-way (...)';\n"
         "                      on a VM it moves as the host places the vCPUs\n"
         "  --help              this text\n"
         "\n"
         "Exit status: 0 ok, 1 a target missed (--check-targets), 2 bad usage or a failed run.\n";
}

Options parse_options(int argc, char** argv) {
  Options options;
  options.providers = all_providers();
  options.polling_modes = {true, false};
  for (int i = 0; i < argc; ++i) {
    if (i > 0) options.command_line += ' ';
    options.command_line += shell_quote(argv[i]);
  }
  std::string out_dir;
  bool mode_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--cpu-probe") {
      options.cpu_probe = true;
    } else if (arg == "--check-targets") {
      options.check_targets = true;
    } else if (arg == "--vs-ucx-perftest") {
      options.vs_ucx_perftest = true;
    } else if (arg == "--provider") {
      options.providers = parse_providers(take_value());
    } else if (arg == "--mode") {
      options.polling_modes = parse_mode(take_value());
      mode_given = true;
    } else if (arg == "--min-bytes") {
      options.min_bytes = parse_size(take_value());
    } else if (arg == "--max-bytes") {
      options.max_bytes = parse_size(take_value());
      options.max_bytes_given = true;
    } else if (arg == "--iters") {
      options.iters = parse_count(take_value(), arg);
    } else if (arg == "--collectives") {
      options.collectives = true;
    } else if (arg == "--members") {
      const std::uint64_t n = parse_count(take_value(), arg);
      if (n < 2 || n > 16) throw UsageError("--members wants 2..16");
      options.members = static_cast<int>(n);
    } else if (arg == "--fanout") {
      const std::uint64_t f = parse_count(take_value(), arg);
      options.fanout = static_cast<int>(std::min<std::uint64_t>(f, 16));
    } else if (arg == "--collective-mode") {
      options.collective_processes = parse_collective_mode(take_value());
    } else if (arg == "--csv") {
      options.csv_path = take_value();
    } else if (arg == "--json") {
      options.json_path = take_value();
    } else if (arg == "--out-dir") {
      out_dir = take_value();
    } else {
      throw UsageError("unknown argument '" + arg + "' (see --help)");
    }
  }
  if (!out_dir.empty()) {
    if (options.csv_path.empty()) options.csv_path = out_dir + "/takyon-bench.csv";
    if (options.json_path.empty()) options.json_path = out_dir + "/takyon-bench.json";
  }
  if (options.min_bytes > options.max_bytes) throw UsageError("--min-bytes is larger than --max-bytes");
  // --collectives: event driven by default -- N spinning members on fewer cores measure the
  // scheduler's time slice, not the collective (docs/benchmarking.md, collectives).
  if (options.collectives && mode_given) options.collective_polling = options.polling_modes;
  if (options.collectives && options.vs_ucx_perftest)
    throw UsageError("--vs-ucx-perftest and --collectives do not go together");
  if (options.vs_ucx_perftest) {
    if (!have_ucx()) throw UsageError("--vs-ucx-perftest: this takyon-bench was built without UCX");
    UcxKind kind{};
    if (std::none_of(options.providers.begin(), options.providers.end(),
                     [&kind](const std::string& p) { return find_ucx_provider(p, kind); })) {
      throw UsageError(
          "--vs-ucx-perftest compares the Ucx providers: add UcxTcp, UcxShm or UcxShmAm to --provider");
    }
  }
  if (sweep_sizes(options).empty())
    throw UsageError("no message size in [--min-bytes, --max-bytes] to sweep");
  return options;
}

std::vector<std::uint64_t> sweep_sizes(const Options& options) {
  static constexpr std::array<std::uint64_t, 6> kQuick = {0, 8, 512, 32 * kKiB, kMiB, 4 * kMiB};
  std::vector<std::uint64_t> out;
  if (options.min_bytes == 0) out.push_back(0);
  for (std::uint64_t size = 1; size <= options.max_bytes; size *= 2) {
    if (size >= options.min_bytes) out.push_back(size);
  }
  if (options.quick) {
    std::erase_if(out,
                  [](std::uint64_t s) { return std::find(kQuick.begin(), kQuick.end(), s) == kQuick.end(); });
  }
  return out;
}

}  // namespace takyon::bench
