// SPDX-License-Identifier: MIT
#include "ucx_fd_budget.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>

namespace takyon::detail {

FdCount count_fds() noexcept {
  FdCount count;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    count.limit = 1L << 30;
  } else {
    count.limit = static_cast<long>(limit.rlim_cur);
  }
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) {
    // EMFILE/ENFILE: not even one descriptor is free. Anything else: no /proc to count from.
    count.open = errno == EMFILE || errno == ENFILE ? count.limit : 0;
    return count;
  }
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const long fd = std::strtol(entry->d_name, nullptr, 10);
    // A descriptor at or above the limit (the limit was lowered after it opened) takes no free slot.
    if (fd != own && fd < count.limit) ++count.open;
  }
  closedir(dir);
  return count;
}

Status require_free_fds(long need, const char* what, const std::string& provider, ErrorLog& log) {
  const FdCount count = count_fds();
  if (count.free() >= need) return Status::kOk;
  return TAKYON_FAIL(log, Status::kSystem,
                     "'%s': Ucx: not enough free file descriptors for %s (need ~%ld, %ld free under "
                     "RLIMIT_NOFILE=%ld, %ld open; raise the limit with ulimit -n or close "
                     "descriptors): UCX would abort the process on EMFILE",
                     provider.c_str(), what, need, count.free(), count.limit, count.open);
}

long ucx_endpoint_fds(long resources, long buffers) noexcept {
  const long worker = 4 + 3 * resources;
  const long connection = 2 + 2 * resources;
  const long registrations = buffers + 1;  // posix shared memory keeps a descriptor per mapping
  return worker + connection + registrations;
}

}  // namespace takyon::detail
