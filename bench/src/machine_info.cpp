// SPDX-License-Identifier: MIT
// CPU model from /proc/cpuinfo, uname, the UTC date and git describe.
#include "machine_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#ifndef TAKYON_BENCH_SOURCE_DIR
#define TAKYON_BENCH_SOURCE_DIR ""
#endif
#ifndef TAKYON_BENCH_GIT_DESCRIBE
#define TAKYON_BENCH_GIT_DESCRIBE ""
#endif
#ifndef TAKYON_BENCH_BUILD_TYPE
#define TAKYON_BENCH_BUILD_TYPE ""
#endif

namespace takyon::bench {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string fallback;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name") return trim(line.substr(colon + 1));
    if (fallback.empty() && (key == "Processor" || key == "CPU part" || key == "cpu")) {
      fallback = trim(line.substr(colon + 1));
    }
  }
  return fallback.empty() ? "unknown" : fallback;
}

std::string run_git_describe() {
  const std::string source = TAKYON_BENCH_SOURCE_DIR;
  std::error_code ec;
  if (!source.empty() && std::filesystem::exists(std::filesystem::path(source) / ".git", ec)) {
    const std::string command = "git -C '" + source + "' describe --always --dirty --tags 2>/dev/null";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      std::array<char, 256> buffer{};
      std::string out;
      while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
        out += buffer.data();
      }
      if (pclose(pipe) == 0 && !trim(out).empty()) return trim(out);
    }
  }
  const std::string at_configure = TAKYON_BENCH_GIT_DESCRIBE;
  return at_configure.empty() ? "unknown" : at_configure;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

}  // namespace

MachineInfo collect_machine_info(const std::string& command_line) {
  MachineInfo info;
  info.cpu_model = cpu_model();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  info.online_cpus = online > 0 ? static_cast<unsigned>(online) : std::thread::hardware_concurrency();
  utsname names{};
  if (uname(&names) == 0) {
    info.hostname = names.nodename;
    info.kernel = std::string(names.sysname) + " " + names.release + " " + names.machine;
  }
  info.date_utc = utc_now();
  info.command_line = command_line;
  info.git_describe = run_git_describe();
  info.build_type = TAKYON_BENCH_BUILD_TYPE;
  if (info.build_type.empty()) info.build_type = "unknown";
#if defined(__clang__)
  info.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  info.compiler = "gcc " __VERSION__;
#else
  info.compiler = "unknown";
#endif
  double load[1] = {-1};
  if (getloadavg(load, 1) == 1) info.load_average = load[0];
  return info;
}

}  // namespace takyon::bench
