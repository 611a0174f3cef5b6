// SPDX-License-Identifier: MIT
// The shared heap: where this process's large allocations live once MPI_Init has run, so that a
// peer on the node can copy a message straight out of (or into) them with memcpy instead of
// cross-memory attach (process_vm_readv/writev), which pins and maps every page on every call: a
// two-rank 1 MiB alltoall is much faster by memcpy from a mapping than with CMA.
//
// The heap is one memfd, as large as its reservation (64 GiB, sparse: a page costs memory once
// touched), mapped MAP_SHARED at one address range of this process. Peers map it through pidfd_getfd
// (the kernel's ptrace check, as for CMA) at an address of their own; the inbox header publishes the
// fd number, base address and size (shm/layout.hpp). Blocks are whole pages: a header page, then
// the payload (page-aligned). Allocations below kMinBytes, aligned beyond a page, or beyond the
// reservation are not served here (the malloc interposer, shm/heap_malloc.cpp, passes them to glibc).
//
// Freed blocks keep their pages, as glibc's heap does below its trim threshold: a registration cache
// (UCX's) that pinned them stays valid. The memory returns to the system at exit.
//
// Out of memory: the memfd lives on the kernel's internal tmpfs, which has no size limit (a full
// /dev/shm does not concern it); a page that cannot be had at its first touch is the OOM killer's
// business, as for glibc's memory. Except under strict overcommit accounting
// (vm.overcommit_memory=2): there the page's charge fails at the touch, which for shared memory is a
// SIGBUS, where glibc's mmap would have failed at malloc. So there the heap reserves each block's new
// pages (fallocate) when it hands the block out, and a block it cannot reserve is not served: malloc
// falls back to glibc, which fails (ENOMEM) or succeeds as it would without the heap.
//
// fork(): the child would otherwise share its parent's large allocations. The prepare handler copies
// the live blocks aside (private memory the child inherits copy-on-write), the child maps a new memfd
// of its own over the range and copies them back. A fork costs a copy of the live heap; posix_spawn,
// system() and vfork run no fork handlers and need none (the child execs).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <pthread.h>

namespace takyon::mpi::shm {

class SharedHeap {
 public:
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kMinBytes = std::size_t(128) << 10;     ///< glibc's mmap threshold
  static constexpr std::size_t kReserveBytes = std::size_t(64) << 30;  ///< address range and file size

  /// What a peer needs to map the heap: the memfd's number in this process, where it is mapped here,
  /// and its size. bytes 0: no heap.
  struct Info {
    int fd = -1;
    std::uint64_t base = 0;
    std::uint64_t bytes = 0;
  };

  /// The process's heap. Usable from the first malloc on (no constructor runs).
  static SharedHeap& instance();

  /// Creates the heap (idempotent; MPI_Init). Not when TAKYON_MPI_SHARED_HEAP=0 or the kernel refuses
  /// (no memfd, address space): then info() says bytes 0 and nothing is served.
  Info activate();
  [[nodiscard]] Info info() const;

  /// A block of at least `bytes`, aligned to `align` (<= kPage); nullptr where the heap does not
  /// serve it (inactive, small, over-aligned, full). `zeroed`: the block was never written.
  /// (Inline: every malloc of the program asks, and most are small.)
  void* allocate(std::size_t bytes, std::size_t align, bool* zeroed) {
    if (bytes < kMinBytes || bytes > kReserveBytes / 2 || align > kPage) return nullptr;
    return allocate_large(bytes, zeroed);
  }
  /// Whether p points into the heap's range (lock-free).
  [[nodiscard]] bool owns(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // 0 and 0 until activate: nothing owned.
    return a - base_.load(std::memory_order_relaxed) < reserved_.load(std::memory_order_relaxed);
  }
  /// Frees a block allocate() returned (p must satisfy owns()). Aborts on a pointer that is not a block.
  void release(void* p);
  /// The payload bytes of block p (owns(p)).
  [[nodiscard]] std::size_t usable_size(const void* p) const;

  /// Bytes of live blocks (headers included), for tests: a walk over the blocks.
  [[nodiscard]] std::size_t live_bytes() const;
  /// Whether new pages are reserved when handed out (strict overcommit accounting; see above).
  [[nodiscard]] bool reserves() const { return reserve_; }
  /// Tests: reserve (or not) whatever the system's accounting, from the next activate() on.
  static void force_reserve_for_tests(bool on) { forced_reserve_ = on ? 1 : 0; }

  // fork() handlers (public for pthread_atfork; installed by activate()).
  static void before_fork();
  static void after_fork_parent();
  static void after_fork_child();

 private:
  struct Block;

  constexpr SharedHeap() = default;
  void* allocate_large(std::size_t bytes, bool* zeroed);
  [[nodiscard]] Block* at(std::uintptr_t a) const { return reinterpret_cast<Block*>(a); }
  [[nodiscard]] Block* next_of(const Block* b) const;
  [[nodiscard]] Block* prev_of(const Block* b) const;
  void unlink_free(Block* b);
  void push_free(Block* b);
  void set_prev_pages_after(Block* b);
  /// Copies every block's header page and each live block's payload from [from_base, ...) to the
  /// same offsets at to_base (the fork snapshot, both ways).
  void copy_blocks(std::uintptr_t from_base, std::uintptr_t to_base) const;
  /// Reserves the memfd's pages behind [from, to) (addresses in this process's range).
  [[nodiscard]] bool reserve_range(int fd, std::uintptr_t from, std::uintptr_t to) const;

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<std::uintptr_t> base_{0};
  std::atomic<std::uintptr_t> reserved_{0};
  int fd_ = -1;
  bool tried_ = false;
  std::uintptr_t top_ = 0;         ///< end of the last block
  std::uintptr_t high_water_ = 0;  ///< the highest top_ so far: no page above it was ever written
  std::size_t last_pages_ = 0;     ///< pages of the block that ends at top_ (0: none)
  Block* free_ = nullptr;          ///< free blocks below top_, unordered
  std::uintptr_t snapshot_ = 0;    ///< the fork snapshot (between before_fork and the after_fork ones)

  bool reserve_ = false;                   ///< fallocate new pages (strict overcommit accounting)
  static inline int forced_reserve_ = -1;  ///< force_reserve_for_tests; -1: the system decides
};

}  // namespace takyon::mpi::shm
