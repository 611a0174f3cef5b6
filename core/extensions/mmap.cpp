// SPDX-License-Identifier: MIT
// takyonMmapAlloc / takyonMmapFree: named POSIX shared memory an application shares between processes.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "common/sys.hpp"
#include "error_log.hpp"
#include "takyon/takyon_extensions.h"

struct TakyonMmapStruct {
  std::string name;
  void* addr = nullptr;
  uint64_t bytes = 0;
};

namespace sys = takyon::sys;
using takyon::detail::errno_text;

extern "C" {

void takyonMmapAlloc(const char* map_name, uint64_t bytes, void** addr_ret,
                     TakyonMmapHandle* mmap_handle_ret) {
  if (addr_ret == nullptr || mmap_handle_ret == nullptr) {
    std::fprintf(stderr, "takyonMmapAlloc: addr_ret and mmap_handle_ret must not be NULL\n");
    return;
  }
  *addr_ret = nullptr;
  *mmap_handle_ret = nullptr;
  if (map_name == nullptr || map_name[0] == '\0' || std::strlen(map_name) >= TAKYON_MAX_MMAP_NAME_CHARS ||
      std::strchr(map_name, '/') != nullptr) {
    std::fprintf(stderr, "takyonMmapAlloc: map_name must be 1 to %d characters without '/'\n",
                 TAKYON_MAX_MMAP_NAME_CHARS - 1);
    return;
  }
  if (bytes == 0) {
    std::fprintf(stderr, "takyonMmapAlloc(%s): bytes must be > 0\n", map_name);
    return;
  }
  auto* handle = new (std::nothrow) TakyonMmapStruct();
  if (handle == nullptr) {
    std::fprintf(stderr, "takyonMmapAlloc(%s): out of memory\n", map_name);
    return;
  }
  handle->name = std::string("/takyon-mmap-") + map_name;
  handle->bytes = bytes;
  sys::ops().shm_unlink(handle->name.c_str());  // "If the memory map already exists, it will be freed"
  const int fd = sys::ops().shm_open(handle->name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "takyonMmapAlloc(%s): shm_open failed: %s\n", map_name, errno_text(errno).c_str());
    delete handle;
    return;
  }
  if (sys::ops().ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::fprintf(stderr, "takyonMmapAlloc(%s): ftruncate to %llu bytes failed: %s\n", map_name,
                 static_cast<unsigned long long>(bytes), errno_text(errno).c_str());
    ::close(fd);
    sys::ops().shm_unlink(handle->name.c_str());
    delete handle;
    return;
  }
  void* addr = sys::ops().mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) {
    std::fprintf(stderr, "takyonMmapAlloc(%s): mmap of %llu bytes failed: %s\n", map_name,
                 static_cast<unsigned long long>(bytes), errno_text(errno).c_str());
    sys::ops().shm_unlink(handle->name.c_str());
    delete handle;
    return;
  }
  handle->addr = addr;
  *addr_ret = addr;
  *mmap_handle_ret = handle;
}

void takyonMmapFree(TakyonMmapHandle mmap_handle) {
  if (mmap_handle == nullptr) return;
  sys::ops().munmap(mmap_handle->addr, mmap_handle->bytes);
  sys::ops().shm_unlink(mmap_handle->name.c_str());
  delete mmap_handle;
}

}  // extern "C"
