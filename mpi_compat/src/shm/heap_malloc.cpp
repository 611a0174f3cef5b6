// SPDX-License-Identifier: MIT
// malloc and its family for programs linked with libtakyon_mpi (exports.map exports them, so they take
// the place of glibc's, as glibc's manual allows): blocks of SharedHeap::kMinBytes and more come from
// the shared heap (shm/heap.hpp) once MPI_Init has activated it; everything else, and every block
// allocated before, stays glibc's (__libc_*). An executable's own malloc (jemalloc, tcmalloc, a
// sanitizer's) comes first in the lookup order and wins: then the heap serves nothing. Not compiled
// under ASan or TSan, whose runtimes own malloc.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TAKYON_MPI_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TAKYON_MPI_SANITIZED 1
#endif

#ifndef TAKYON_MPI_SANITIZED
#include <cerrno>
#include <cstddef>
#include <cstring>

#include <dlfcn.h>

#include "shm/heap.hpp"

extern "C" {
void* __libc_malloc(std::size_t bytes);
void __libc_free(void* p);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t bytes);
void* __libc_memalign(std::size_t align, std::size_t bytes);
}

namespace {

using takyon::mpi::shm::SharedHeap;

constexpr std::size_t kMallocAlign = 16;

void* aligned(std::size_t align, std::size_t bytes) {
  bool zeroed = false;
  if (void* p = SharedHeap::instance().allocate(bytes, align, &zeroed)) return p;
  return __libc_memalign(align, bytes);
}

bool power_of_two(std::size_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

#define TAKYON_MPI_EXPORT __attribute__((visibility("default")))

extern "C" {

TAKYON_MPI_EXPORT void* malloc(std::size_t bytes) noexcept {
  bool zeroed = false;
  if (void* p = SharedHeap::instance().allocate(bytes, kMallocAlign, &zeroed)) return p;
  return __libc_malloc(bytes);
}

TAKYON_MPI_EXPORT void free(void* p) noexcept {
  SharedHeap& heap = SharedHeap::instance();
  if (heap.owns(p)) {
    heap.release(p);
    return;
  }
  __libc_free(p);
}

TAKYON_MPI_EXPORT void* calloc(std::size_t n, std::size_t size) noexcept {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  bool zeroed = false;
  if (void* p = SharedHeap::instance().allocate(bytes, kMallocAlign, &zeroed)) {
    if (!zeroed) std::memset(p, 0, bytes);
    return p;
  }
  return __libc_calloc(n, size);
}

TAKYON_MPI_EXPORT void* realloc(void* p, std::size_t bytes) noexcept {
  SharedHeap& heap = SharedHeap::instance();
  if (!heap.owns(p)) return __libc_realloc(p, bytes);  // nullptr included
  if (bytes == 0) {                                    // glibc's realloc(p, 0): frees, returns NULL
    heap.release(p);
    return nullptr;
  }
  const std::size_t have = heap.usable_size(p);
  if (bytes <= have && bytes >= have / 2) return p;
  void* q = malloc(bytes);
  if (q == nullptr) return nullptr;  // p stays valid
  std::memcpy(q, p, bytes < have ? bytes : have);
  heap.release(p);
  return q;
}

TAKYON_MPI_EXPORT void* reallocarray(void* p, std::size_t n, std::size_t size) noexcept {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

TAKYON_MPI_EXPORT int posix_memalign(void** out, std::size_t align, std::size_t bytes) noexcept {
  if (!power_of_two(align) || align % sizeof(void*) != 0) return EINVAL;
  void* p = aligned(align, bytes);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

TAKYON_MPI_EXPORT void* aligned_alloc(std::size_t align, std::size_t bytes) noexcept {
  if (!power_of_two(align)) {
    errno = EINVAL;
    return nullptr;
  }
  return aligned(align, bytes);
}

TAKYON_MPI_EXPORT void* memalign(std::size_t align, std::size_t bytes) noexcept {
  return aligned(align, bytes);
}

TAKYON_MPI_EXPORT void* valloc(std::size_t bytes) noexcept {
  return aligned(SharedHeap::kPage, bytes);
}

TAKYON_MPI_EXPORT void* pvalloc(std::size_t bytes) noexcept {
  const std::size_t page = SharedHeap::kPage;
  if (bytes > ~std::size_t(0) - page) {
    errno = ENOMEM;
    return nullptr;
  }
  return aligned(page, bytes == 0 ? page : (bytes + page - 1) & ~(page - 1));
}

TAKYON_MPI_EXPORT std::size_t malloc_usable_size(void* p) noexcept {
  SharedHeap& heap = SharedHeap::instance();
  if (heap.owns(p)) return heap.usable_size(p);
  using Fn = std::size_t (*)(void*);
  static Fn glibc = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return glibc != nullptr ? glibc(p) : 0;
}

}  // extern "C"

#endif  // TAKYON_MPI_SANITIZED
