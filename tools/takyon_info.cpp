// SPDX-License-Identifier: MIT
// takyon-info: what this Takyon is (like ompi_info and ucx_info): the build, the providers and what
// each can do, and every knob with its current value. `--knobs-markdown` writes docs/tuning.md's table;
// `--check` fails on a knob set to a value it cannot take.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "common/knobs.hpp"
#include "mpi.h"
#include "takyon/takyon.hpp"

namespace {

using takyon::common::Knob;
using takyon::common::KnobId;
using takyon::common::KnobKind;

constexpr const char* kUsage =
    "usage: takyon-info [-a|--all] [--providers] [--knobs] [--knobs-markdown] [--providers-markdown] "
    "[--check]\n"
    "\n"
    "  (no option)        the build, the providers, and every knob with its current value\n"
    "  -a, --all          also why each knob has its default\n"
    "  --providers        only the provider table\n"
    "  --knobs            only the knobs\n"
    "  --knobs-markdown   the knobs as the Markdown tables of docs/tuning.md (defaults, not current values)\n"
    "  --providers-markdown  the provider table as README.md shows it\n"
    "  --check            exit 1, naming each, if a knob is set to a value it cannot take\n";

const char* yes(bool b) {
  return b ? "yes" : "no";
}

const char* reach_name(TakyonProviderReach r) {
  switch (r) {
    case TAKYON_REACH_THREADS:
      return "threads";
    case TAKYON_REACH_PROCESSES:
      return "processes";
    case TAKYON_REACH_HOSTS:
      return "hosts";
  }
  return "?";
}

std::string addressing_text(std::uint32_t a) {
  std::string out;
  auto add = [&](std::uint32_t bit, const char* word) {
    if ((a & bit) != 0) out += (out.empty() ? "" : ",") + std::string(word);
  };
  add(TAKYON_ADDRESS_ID, "id");
  add(TAKYON_ADDRESS_CLIENT_SERVER, "client/server");
  add(TAKYON_ADDRESS_UNICAST, "unicast");
  add(TAKYON_ADDRESS_MULTICAST, "multicast");
  return out;
}

void print_build() {
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::printf("Takyon %s\n", TAKYON_INFO_VERSION);
  std::printf("  build type:      %s\n", TAKYON_INFO_BUILD_TYPE);
  std::printf("  compiler:        %s\n", TAKYON_INFO_COMPILER);
  std::printf("  UCX:             %s\n", TAKYON_INFO_UCX);
  std::printf("  PMIx bootstrap:  %s\n", TAKYON_INFO_PMIX);
  std::printf("  sanitizer:       %s\n", TAKYON_INFO_SANITIZER[0] != '\0' ? TAKYON_INFO_SANITIZER : "none");
  std::printf("  MPI library:     %s\n", mpi_version);
  std::printf("  MPI standard:    %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
}

void print_providers() {
  std::printf("\nProviders (takyon_providers.h)\n");
  std::printf("  %-20s %-9s %-20s %-5s %-6s %-8s %-9s %-9s %-6s %-9s %-9s %-9s %s\n", "name", "reach",
              "addressing", "built", "shares", "reliable", "connected", "direction", "stream", "app bufs",
              "one-sided", "piggyback", "max message");
  for (const TakyonProviderInfo& p : takyon::providers()) {
    const char* direction = p.sends && p.receives ? "both" : (p.sends ? "send" : "receive");
    std::string app = std::string(p.app_send_buffers ? "s" : "-") + (p.app_recv_buffers ? "r" : "-");
    std::string max = p.max_message_bytes == 0 ? "buffer" : std::to_string(p.max_message_bytes) + " B";
    std::printf("  %-20s %-9s %-20s %-5s %-6s %-8s %-9s %-9s %-6s %-9s %-9s %-9s %s\n", p.name,
                reach_name(p.reach), addressing_text(p.addressing).c_str(), yes(p.available),
                yes(p.shares_buffers), yes(p.reliable), yes(p.connected), direction, yes(p.stream),
                app.c_str(), yes(p.one_sided), yes(p.piggyback), max.c_str());
  }
  std::printf("  (app bufs: s = send, r = receive buffers may be application memory)\n");
  for (const TakyonProviderInfo& p : takyon::providers()) {
    std::printf("  %-20s %s%s%s\n", p.name, p.description,
                p.peer_name != std::string_view(p.name) ? "; pairs with " : "",
                p.peer_name != std::string_view(p.name) ? p.peer_name : "");
  }
}

std::string kind_text(const Knob& k) {
  switch (k.kind) {
    case KnobKind::kFlag:
      return "0|1";
    case KnobKind::kInteger:
      return "integer " + std::to_string(k.min) + ".." + std::to_string(k.max);
    case KnobKind::kBytes:
      return "bytes " + std::to_string(k.min) + ".." + std::to_string(k.max) + " (K, M, G)";
    case KnobKind::kChoice:
      return takyon::common::knob_choices(k);
    case KnobKind::kText:
      return "text";
  }
  return "?";
}

void print_knobs(bool why) {
  int layer = -1;
  for (int i = 0; i < int(KnobId::kCount); ++i) {
    const auto id = KnobId(i);
    const Knob& k = takyon::common::knob(id);
    if (int(k.layer) != layer) {
      layer = int(k.layer);
      std::printf("\nKnobs: %s\n", takyon::common::layer_name(k.layer));
    }
    const bool set = takyon::common::knob_is_set(id);
    const std::string value = takyon::common::knob_text(id);
    const std::string problem = takyon::common::knob_problem(id);
    std::printf("  %s = %s%s%s\n", k.name, value.empty() ? "(unset)" : value.c_str(),
                set ? "  [from the environment]" : "", problem.empty() ? "" : "  [INVALID]");
    std::printf("      %s%s (%s; default %s)\n", k.what, k.for_tests ? " [test hook]" : "",
                kind_text(k).c_str(), k.default_value[0] != '\0' ? k.default_value : "unset");
    if (why) std::printf("      why: %s\n", k.why);
  }
}

std::string escape_md(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

void print_knobs_markdown() {
  int layer = -1;
  for (const Knob& k : takyon::common::knobs()) {
    if (int(k.layer) != layer) {
      layer = int(k.layer);
      std::printf(
          "%s### %s\n\n| knob | values | default | what it does | why this default "
          "|\n|---|---|---|---|---|\n",
          layer == 0 ? "" : "\n", takyon::common::layer_name(k.layer));
    }
    std::printf("| `%s`%s | %s | %s | %s | %s |\n", k.name, k.for_tests ? " (test hook)" : "",
                escape_md(kind_text(k)).c_str(),
                k.default_value[0] != '\0' ? ("`" + std::string(k.default_value) + "`").c_str() : "unset",
                escape_md(k.what).c_str(), escape_md(k.why).c_str());
  }
}

void print_providers_markdown() {
  std::printf("| provider | endpoints | reliable | one-sided | what it is |\n|---|---|---|---|---|\n");
  for (const TakyonProviderInfo& p : takyon::providers()) {
    const char* where = p.reach == TAKYON_REACH_THREADS     ? "threads of one process"
                        : p.reach == TAKYON_REACH_PROCESSES ? "processes of one host"
                                                            : "processes on any hosts";
    std::printf(
        "| `%s` | %s | %s | %s | %s%s%s |\n", p.name, where,
        p.reliable ? "yes" : "no: whole messages may be lost", p.one_sided ? "yes" : "no", p.description,
        p.peer_name != std::string_view(p.name) ? "; pairs with " : "",
        p.peer_name != std::string_view(p.name) ? (std::string("`") + p.peer_name + "`").c_str() : "");
  }
}

int check() {
  int bad = 0;
  for (int i = 0; i < int(KnobId::kCount); ++i) {
    const std::string problem = takyon::common::knob_problem(KnobId(i));
    if (!problem.empty()) {
      std::fprintf(stderr, "takyon-info: %s\n", problem.c_str());
      ++bad;
    }
  }
  if (bad == 0) std::printf("takyon-info: every knob that is set has a valid value\n");
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool why = false;
  bool providers_only = false;
  bool knobs_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "-a" || a == "--all") {
      why = true;
    } else if (a == "--providers") {
      providers_only = true;
    } else if (a == "--knobs") {
      knobs_only = true;
    } else if (a == "--knobs-markdown") {
      print_knobs_markdown();
      return 0;
    } else if (a == "--providers-markdown") {
      print_providers_markdown();
      return 0;
    } else if (a == "--check") {
      return check();
    } else {
      std::fprintf(stderr, "takyon-info: unknown option '%s'\n%s", argv[i], kUsage);
      return 2;
    }
  }
  if (!providers_only && !knobs_only) print_build();
  if (!knobs_only) print_providers();
  if (!providers_only) print_knobs(why);
  return 0;
}
