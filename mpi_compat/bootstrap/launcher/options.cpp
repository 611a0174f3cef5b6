// SPDX-License-Identifier: MIT
// takyon-run's command line.
#include "options.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "common/knobs.hpp"

namespace takyon::mpi::launcher {
namespace {

int parse_nranks(std::string_view text) {
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxRanks) {
    throw UsageError("-n needs a number of ranks from 1 to " + std::to_string(kMaxRanks) + ", not '" +
                     std::string(text) + "'");
  }
  return n;
}

/// `what` names the source of the value in the message: "--timeout" or "MPIEXEC_TIMEOUT".
double parse_timeout(std::string_view text, const char* what) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 1e7) {
    throw UsageError(std::string(what) + " needs a positive number of seconds, not '" + s + "'");
  }
  return v;
}

BindTo parse_bind(std::string_view text) {
  if (text == "core") return BindTo::kCore;
  if (text == "none") return BindTo::kNone;
  throw UsageError("--bind-to takes 'core' or 'none', not '" + std::string(text) + "'");
}

}  // namespace

std::string usage_text() {
  return "usage: takyon-run -n N [--bind-to core|none] [--timeout S] [--] program [args...]\n"
         "\n"
         "Starts N ranks of program on this host and serves their bootstrap (MPI_Init's rendezvous).\n"
         "\n"
         "  -n N, -np N        number of ranks (1.." +
         std::to_string(kMaxRanks) +
         ")\n"
         "  --bind-to core     pin each rank to one CPU this process may run on: one CPU of each core\n"
         "                     first, then the cores' other hardware threads (round-robin when there\n"
         "                     are more ranks than CPUs)\n"
         "  --bind-to none     do not pin\n"
         "                     default: like mpirun, 'core' when the ranks fit on the CPUs this\n"
         "                     process may run on, otherwise 'none'\n"
         "  --timeout S        end the job (exit code 124) if it runs longer than S seconds;\n"
         "                     default: $MPIEXEC_TIMEOUT when set (as mpirun and mpiexec read it)\n"
         "  -h, --help         this text\n"
         "\n"
         "Exit code: 0 when every rank exits 0; otherwise the first failing rank's exit code (128+signal\n"
         "for a rank killed by a signal), the MPI_Abort code, or 128+signal when takyon-run itself was\n"
         "interrupted. When one rank fails or aborts, the others are stopped (SIGTERM, then SIGKILL).\n";
}

std::optional<Options> parse_options(int argc, char** argv) {
  Options opts;
  int i = 1;
  // "--name value" or "--name=value".
  auto value_of = [&](std::string_view arg, std::string_view name) -> std::optional<std::string_view> {
    if (arg == name) {
      if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
      return std::string_view(argv[++i]);
    }
    if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=') {
      return arg.substr(name.size() + 1);
    }
    return std::nullopt;
  };
  for (; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "-h" || arg == "--help") {
      std::fputs(usage_text().c_str(), stdout);
      return std::nullopt;
    }
    if (auto v = value_of(arg, "-n")) {
      opts.nranks = parse_nranks(*v);
    } else if (auto v2 = value_of(arg, "-np")) {
      opts.nranks = parse_nranks(*v2);
    } else if (auto v3 = value_of(arg, "--np")) {
      opts.nranks = parse_nranks(*v3);
    } else if (auto v4 = value_of(arg, "--bind-to")) {
      opts.bind_to = parse_bind(*v4);
    } else if (auto v5 = value_of(arg, "--timeout")) {
      opts.timeout_s = parse_timeout(*v5, "--timeout");
    } else {
      throw UsageError("unknown option '" + std::string(arg) + "'");
    }
  }
  if (opts.nranks == 0) throw UsageError("say how many ranks to start with -n N");
  if (opts.timeout_s == 0) {
    if (common::knob_is_set(common::KnobId::kMpiexecTimeout)) {
      opts.timeout_s = parse_timeout(common::knob_text(common::KnobId::kMpiexecTimeout), "MPIEXEC_TIMEOUT");
      opts.timeout_from = "MPIEXEC_TIMEOUT";
    }
  }
  if (i >= argc) throw UsageError("no program to run");
  for (; i < argc; ++i) opts.argv.emplace_back(argv[i]);
  return opts;
}

}  // namespace takyon::mpi::launcher
