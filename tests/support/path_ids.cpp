// SPDX-License-Identifier: MIT
// Unique path IDs per test process and /dev/shm inspection for leftovers.
#include "support/path_ids.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string_view>

namespace takyon::test {
namespace {

std::atomic<uint32_t> g_counter{0};
std::mutex g_issued_mutex;
std::vector<uint32_t> g_issued;

bool has_id_field(std::string_view name, uint32_t id) {
  const std::string field = std::to_string(id);
  size_t pos = 0;
  while ((pos = name.find(field, pos)) != std::string_view::npos) {
    const bool left_ok = pos > 0 && name[pos - 1] == '-';
    const size_t end = pos + field.size();
    const bool right_ok = end == name.size() || name[end] == '-' || name[end] == '.' || name[end] == '_';
    if (left_ok && right_ok) return true;
    pos = end;
  }
  return false;
}

}  // namespace

uint32_t unique_path_id() {
  const auto pid = static_cast<uint32_t>(getpid()) & 0x3FFFFFu;
  const uint32_t count = g_counter.fetch_add(1) & 0x3FFu;
  const uint32_t id = (pid << 10) | count;
  std::lock_guard lock(g_issued_mutex);
  g_issued.push_back(id);
  return id;
}

std::vector<uint32_t> take_issued_path_ids() {
  std::lock_guard lock(g_issued_mutex);
  std::vector<uint32_t> out;
  out.swap(g_issued);
  return out;
}

std::vector<std::string> shm_entries_for_id(uint32_t id) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find("takyon") != std::string::npos && has_id_field(name, id)) out.push_back(name);
  }
  return out;
}

void remove_shm_entries_for_id(uint32_t id) {
  for (const std::string& name : shm_entries_for_id(id)) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path("/dev/shm") / name, ec);
  }
}

}  // namespace takyon::test
