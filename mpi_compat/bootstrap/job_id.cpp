// SPDX-License-Identifier: MIT
// Job ids and secrets.
#include "job_id.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "bootstrap.hpp"

namespace takyon::mpi {
namespace {

bool job_id_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

bool is_valid_job_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > kMaxJobIdChars) return false;
  for (char c : id) {
    if (!job_id_char(c)) return false;
  }
  return true;
}

uint64_t fnv1a64(std::string_view data) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string job_id_from_name(std::string_view name) {
  if (is_valid_job_id(name)) return std::string(name);
  // 15 characters of the name (readable in /dev/shm), '-', 16 hex digits of the hash: 32.
  std::string head;
  for (char c : name) {
    if (head.size() == 15) break;
    head.push_back(job_id_char(c) ? c : '_');
  }
  return head + "-" + hex64(fnv1a64(name));
}

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw BootstrapError(std::string("getrandom: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes);
  for (char c : raw) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

std::string mpi_inbox_name(std::string_view job_id, int rank, std::string_view key) {
  return "/takyon-mpi-" + std::string(job_id) + "-" + std::to_string(rank) + "-" + std::string(key);
}

bool is_inbox_key(std::string_view key) noexcept {
  if (key.size() != 2 * kInboxKeyBytes) return false;
  for (char c : key) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void remove_mpi_inboxes(std::string_view job_id) noexcept {
  const std::string prefix = "takyon-mpi-" + std::string(job_id) + "-";
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return;
  while (const dirent* e = readdir(dir)) {
    const std::string_view name(e->d_name);
    if (!name.starts_with(prefix)) continue;
    // "<rank>-<key>" after the prefix, exactly: another job's id may start like this one's.
    const std::string_view rest = name.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string_view::npos || !is_inbox_key(rest.substr(dash + 1))) continue;
    if (rest.substr(0, dash).find_first_not_of("0123456789") != std::string_view::npos) continue;
    // Only this user's: /dev/shm is shared, and root could remove anyone's file there.
    struct stat st {};
    if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid()) {
      continue;
    }
    (void)shm_unlink(("/" + std::string(name)).c_str());
  }
  closedir(dir);
}

uint32_t mpi_path_id_base(std::string_view job_id) noexcept {
  return static_cast<uint32_t>(fnv1a64(std::string("takyon-mpi-paths:").append(job_id)) >> 32);
}

}  // namespace takyon::mpi
