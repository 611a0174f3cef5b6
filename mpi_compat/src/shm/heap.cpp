// SPDX-License-Identifier: MIT
// The shared heap (heap.hpp): first fit over page-granular blocks that know their own and their lower
// neighbour's size, so a freed block merges with both neighbours in O(1).
#include "shm/heap.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/knobs.hpp"
namespace takyon::mpi::shm {

/// The header page's start. Live blocks are off the free list.
struct SharedHeap::Block {
  std::uint64_t magic;
  std::uint64_t pages;       ///< header page included
  std::uint64_t prev_pages;  ///< of the block just below; 0: the first block
  std::uint64_t free;
  Block* next_free;
  Block* prev_free;
};

namespace {

constexpr std::uint64_t kMagic = 0x7461'6b79'6f6e'6870ULL;  // "takyonhp"

// Raw system calls: a memory hook (UCX's UCM patches mmap/munmap/madvise) may itself allocate, and
// these run under the heap's lock, from inside malloc.
void* sys_mmap(void* addr, std::size_t len, int prot, int flags, int fd) {
  long r = syscall(SYS_mmap, addr, len, prot, flags, fd, 0L);
  return r == -1 ? MAP_FAILED : reinterpret_cast<void*>(r);
}

void sys_munmap(std::uintptr_t addr, std::size_t len) {
  syscall(SYS_munmap, reinterpret_cast<void*>(addr), len);
}

int make_memfd(std::size_t bytes) {
  int fd = int(syscall(SYS_memfd_create, "takyon-mpi-heap", MFD_CLOEXEC));
  if (fd < 0) return -1;
  if (syscall(SYS_ftruncate, fd, long(bytes)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// Strict overcommit accounting (vm.overcommit_memory=2): a shared page's charge can fail at its
/// first touch (SIGBUS). Raw calls: no allocation while MPI_Init activates the heap.
bool strict_overcommit() {
  const int fd = int(syscall(SYS_openat, AT_FDCWD, "/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return false;
  char c = 0;
  const long n = syscall(SYS_read, fd, &c, 1L);
  close(fd);
  return n == 1 && c == '2';
}

/// Not when switched off, nor under a limit on the address space (ulimit -v): the reservation would
/// eat it, as would each peer's mapping of it.
bool wanted() {
  if (!common::knob_flag(common::KnobId::kMpiSharedHeap)) return false;
  rlimit as{};
  return getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur == RLIM_INFINITY;
}

std::uintptr_t addr(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

class Lock {
 public:
  explicit Lock(pthread_mutex_t& m) : m_(m) { pthread_mutex_lock(&m_); }
  ~Lock() { pthread_mutex_unlock(&m_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  pthread_mutex_t& m_;
};

}  // namespace

SharedHeap& SharedHeap::instance() {
  static constinit SharedHeap heap;
  return heap;
}

SharedHeap::Info SharedHeap::activate() {
  {
    Lock lock(mutex_);
    if (!tried_) {
      tried_ = true;
      reserve_ = forced_reserve_ >= 0 ? forced_reserve_ == 1 : strict_overcommit();
      int fd = wanted() ? make_memfd(kReserveBytes) : -1;
      void* a = fd >= 0
                    ? sys_mmap(nullptr, kReserveBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd)
                    : MAP_FAILED;
      if (a != MAP_FAILED) {
        syscall(SYS_madvise, a, kReserveBytes, MADV_DONTDUMP);
        fd_ = fd;
        top_ = high_water_ = addr(a);
        // May allocate: still inactive (reserved_ 0), so that goes to glibc, not to this lock.
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        base_.store(addr(a), std::memory_order_relaxed);
        reserved_.store(kReserveBytes, std::memory_order_release);
      } else if (fd >= 0) {
        close(fd);
      }
    }
  }
  return info();
}

SharedHeap::Info SharedHeap::info() const {
  Info i;
  const std::uintptr_t reserved = reserved_.load(std::memory_order_acquire);
  if (reserved == 0 || fd_ < 0) return i;
  i.fd = fd_;
  i.base = base_.load(std::memory_order_relaxed);
  i.bytes = reserved;
  return i;
}

SharedHeap::Block* SharedHeap::next_of(const Block* b) const {
  const std::uintptr_t e = addr(b) + b->pages * kPage;
  return e < top_ ? at(e) : nullptr;
}

SharedHeap::Block* SharedHeap::prev_of(const Block* b) const {
  return b->prev_pages == 0 ? nullptr : at(addr(b) - b->prev_pages * kPage);
}

void SharedHeap::unlink_free(Block* b) {
  if (b->prev_free != nullptr) {
    b->prev_free->next_free = b->next_free;
  } else {
    free_ = b->next_free;
  }
  if (b->next_free != nullptr) b->next_free->prev_free = b->prev_free;
}

void SharedHeap::push_free(Block* b) {
  b->free = 1;
  b->prev_free = nullptr;
  b->next_free = free_;
  if (free_ != nullptr) free_->prev_free = b;
  free_ = b;
}

void SharedHeap::set_prev_pages_after(Block* b) {
  if (Block* n = next_of(b)) n->prev_pages = b->pages;
}

void* SharedHeap::allocate_large(std::size_t bytes, bool* zeroed) {
  if (reserved_.load(std::memory_order_acquire) == 0) return nullptr;
  const std::size_t pages = 1 + (bytes + kPage - 1) / kPage;
  Lock lock(mutex_);
  Block* b = free_;
  while (b != nullptr && b->pages < pages) b = b->next_free;
  if (b != nullptr) {
    unlink_free(b);
    *zeroed = false;
    if (b->pages - pages >= 2) {  // the rest stays free (a header and a page at least)
      Block* rest = at(addr(b) + pages * kPage);
      rest->magic = kMagic;
      rest->pages = b->pages - pages;
      rest->prev_pages = pages;
      b->pages = pages;
      set_prev_pages_after(rest);
      push_free(rest);
    }
  } else {
    const std::uintptr_t end =
        base_.load(std::memory_order_relaxed) + reserved_.load(std::memory_order_relaxed);
    if (pages * kPage > end - top_) return nullptr;
    // Pages below the high water were reserved when first handed out, and freed blocks keep theirs.
    if (reserve_ && top_ + pages * kPage > high_water_ &&
        !reserve_range(fd_, high_water_, top_ + pages * kPage)) {
      return nullptr;
    }
    b = at(top_);
    *zeroed = high_water_ <= top_ + kPage;  // the payload's pages were never written
    b->magic = kMagic;
    b->pages = pages;
    b->prev_pages = last_pages_;
    top_ += pages * kPage;
    last_pages_ = pages;
    if (top_ > high_water_) {  // in core dumps from now on (the reservation is not: 64 GiB of zeros)
      syscall(SYS_madvise, reinterpret_cast<void*>(high_water_), top_ - high_water_, MADV_DODUMP);
      high_water_ = top_;
    }
  }
  b->free = 0;
  return reinterpret_cast<void*>(addr(b) + kPage);
}

void SharedHeap::release(void* p) {
  Block* b = at(addr(p) - kPage);
  Lock lock(mutex_);
  if ((addr(p) & (kPage - 1)) != 0 || addr(p) < base_.load(std::memory_order_relaxed) + kPage ||
      addr(p) >= top_ || b->magic != kMagic || b->free != 0) {
    std::fprintf(stderr, "takyon-mpi: free(%p): not a live block of the shared heap (double free?)\n", p);
    std::abort();
  }
  if (Block* n = next_of(b); n != nullptr && n->free != 0) {
    unlink_free(n);
    b->pages += n->pages;
    n->magic = 0;
  }
  if (Block* below = prev_of(b); below != nullptr && below->free != 0) {
    unlink_free(below);
    below->pages += b->pages;
    b->magic = 0;
    b = below;
  }
  if (addr(b) + b->pages * kPage == top_) {  // the top run: the heap shrinks
    top_ = addr(b);
    last_pages_ = b->prev_pages;
    b->magic = 0;
    return;
  }
  set_prev_pages_after(b);
  push_free(b);
}

std::size_t SharedHeap::usable_size(const void* p) const {
  return at(addr(p) - kPage)->pages * kPage - kPage;
}

std::size_t SharedHeap::live_bytes() const {
  Lock lock(const_cast<pthread_mutex_t&>(mutex_));
  std::size_t live = 0;
  for (const Block* b = at(base_.load(std::memory_order_relaxed)); addr(b) < top_;
       b = at(addr(b) + b->pages * kPage)) {
    if (b->free == 0) live += b->pages * kPage;
  }
  return live;
}

void SharedHeap::copy_blocks(std::uintptr_t from_base, std::uintptr_t to_base) const {
  const std::uintptr_t base = base_.load(std::memory_order_relaxed);
  for (std::uintptr_t a = base; a < top_;) {
    const auto* b = reinterpret_cast<const Block*>(from_base + (a - base));
    const std::size_t bytes = b->free != 0 ? kPage : b->pages * kPage;
    std::memcpy(reinterpret_cast<void*>(to_base + (a - base)), b, bytes);
    a += b->pages * kPage;
  }
}

bool SharedHeap::reserve_range(int fd, std::uintptr_t from, std::uintptr_t to) const {
  const std::uintptr_t base = base_.load(std::memory_order_relaxed);
  for (;;) {
    if (syscall(SYS_fallocate, fd, 0, long(from - base), long(to - from)) == 0) return true;
    if (errno != EINTR) return false;
  }
}

void SharedHeap::before_fork() {
  SharedHeap& h = instance();
  pthread_mutex_lock(&h.mutex_);
  h.snapshot_ = 0;
  const std::uintptr_t base = h.base_.load(std::memory_order_relaxed);
  if (h.fd_ < 0 || h.top_ == base) return;
  void* s = sys_mmap(nullptr, h.top_ - base, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
  if (s == MAP_FAILED) return;  // the child copies from the shared range itself, racing the parent
  h.snapshot_ = addr(s);
  h.copy_blocks(base, h.snapshot_);
}

void SharedHeap::after_fork_parent() {
  SharedHeap& h = instance();
  if (h.snapshot_ != 0) sys_munmap(h.snapshot_, h.top_ - h.base_.load(std::memory_order_relaxed));
  h.snapshot_ = 0;
  pthread_mutex_unlock(&h.mutex_);
}

void SharedHeap::after_fork_child() {
  SharedHeap& h = instance();
  const std::uintptr_t base = h.base_.load(std::memory_order_relaxed);
  if (h.fd_ >= 0) {
    const std::uintptr_t src = h.snapshot_ != 0 ? h.snapshot_ : base;
    int fd = make_memfd(kReserveBytes);
    // The copy below touches every page up to the high water: reserve them first where that matters.
    if (fd >= 0 && h.reserve_ && h.high_water_ > base && !h.reserve_range(fd, base, h.high_water_)) {
      close(fd);
      fd = -1;
    }
    void* fresh =
        fd >= 0 ? sys_mmap(nullptr, kReserveBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd)
                : MAP_FAILED;
    if (fresh == MAP_FAILED) {
      if (fd >= 0) close(fd);
      fd = -1;
      // No memfd: private memory over the range keeps the child's blocks its own (not shareable).
      fresh = sys_mmap(nullptr, kReserveBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
      if (fresh == MAP_FAILED) {
        std::fprintf(stderr, "takyon-mpi: fork: no memory to give the child its own shared heap\n");
        std::abort();
      }
    }
    syscall(SYS_madvise, fresh, kReserveBytes, MADV_DONTDUMP);
    syscall(SYS_madvise, fresh, h.high_water_ - base, MADV_DODUMP);
    h.copy_blocks(src, addr(fresh));
    // Moves the fresh mapping over the range: one call, the old (shared) mapping is gone with it.
    if (syscall(SYS_mremap, fresh, kReserveBytes, kReserveBytes, MREMAP_MAYMOVE | MREMAP_FIXED,
                reinterpret_cast<void*>(base)) == -1) {
      std::fprintf(stderr, "takyon-mpi: fork: could not give the child its own shared heap\n");
      std::abort();
    }
    close(h.fd_);
    h.fd_ = fd;
  }
  if (h.snapshot_ != 0) sys_munmap(h.snapshot_, h.top_ - base);
  h.snapshot_ = 0;
  pthread_mutex_unlock(&h.mutex_);
}

}  // namespace takyon::mpi::shm
