// SPDX-License-Identifier: MIT
// Single copies of lone rendezvous messages: the receiver reads the sender's buffer itself
// (process_vm_readv, or memcpy where the buffer is in the sender's shared heap, shm/heap.hpp, mapped
// here), or, when every rank has a core, both copy half at once (the split: the sender writes the
// tail into the receiver's memory). A refused copy falls back to the pipeline for good.
#include "pt2pt/engine_internal.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace takyon::mpi {

using namespace engine_detail;

void Engine::map_peer_heap(Peer& p) {
  p.copy.heap_tried = true;
  if (p.live.header == nullptr || p.live.header->heap_bytes == 0 || p.live.watch.pidfd() < 0) return;
    // Through the pidfd only (the kernel's ptrace check, as for CMA): /proc/<pid>/fd could name another
    // process's file once the pid is reused.
#ifdef SYS_pidfd_getfd
  const int fd = int(syscall(SYS_pidfd_getfd, p.live.watch.pidfd(), p.live.header->heap_fd, 0));
#else
  const int fd = -1;  // headers older than Linux 5.6: CMA only
#endif
  if (fd < 0) return;
  struct stat st {};
  void* m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && std::uint64_t(st.st_size) == p.live.header->heap_bytes) {
    m = mmap(nullptr, p.live.header->heap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  }
  close(fd);
  if (m == MAP_FAILED) return;                           // CMA, as without a heap
  madvise(m, p.live.header->heap_bytes, MADV_DONTDUMP);  // the peer's memory, not this rank's
  p.copy.heap = static_cast<char*>(m);
  p.copy.heap_base = p.live.header->heap_base;
  p.copy.heap_bytes = p.live.header->heap_bytes;
}

char* Engine::heap_view(Peer& p, std::uint64_t addr, std::size_t bytes) {
  if (!p.copy.heap_tried) map_peer_heap(p);
  const std::uint64_t off = addr - p.copy.heap_base;  // wraps (huge) below the base
  if (p.copy.heap == nullptr || off > p.copy.heap_bytes || bytes > p.copy.heap_bytes - off) return nullptr;
  return p.copy.heap + off;
}

bool Engine::read_range(Peer& p, Request* r, std::uint64_t addr, std::size_t from, std::size_t to) {
  if (const char* src = heap_view(p, addr + from, to - from)) {
    // The same pages the sender wrote: no pid involved, so no check for its reuse either.
    shm::copy_bulk(static_cast<char*>(r->buf) + from, src, to - from);
    heap_copied_bytes_ += to - from;
    return true;
  }
  std::size_t done = from;
  while (done < to) {
    iovec local{static_cast<char*>(r->buf) + done, to - done};
    iovec remote{reinterpret_cast<void*>(std::uintptr_t(addr + done)), to - done};
    ssize_t n = process_vm_readv(p.live.watch.pid(), &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      // Not permitted here (seccomp, ptrace rules), or no such memory: the pipeline, for good.
      // Whatever was read is overwritten by the pipeline's copy.
      p.copy.cma = false;
      return false;
    }
    done += std::size_t(n);
  }
  // A sender that exited meanwhile may have had its pid reused: what was read may be another
  // process's memory. One poll per large message (not after the split's first-page probe).
  if (r->rndv_total >= tuning().cma_split_min && to > kCmaProbeBytes && p.live.watch.pidfd() >= 0 &&
      exited(p)) {
    p.copy.cma = false;
    return false;
  }
  return true;
}

bool Engine::read_from_sender(Peer& p, Request* r, std::uint64_t addr, std::size_t bytes) {
  return read_range(p, r, addr, 0, bytes);
}

bool Engine::write_to_receiver(Peer& p, const Request* r, std::uint64_t addr, std::size_t split,
                               std::size_t bytes) {
  if (!cma_write_) return false;
  // A receiver that exited may have had its pid reused: never write into whatever process has it now
  // (refused: the kSplitDone says so; a dead receiver reads nothing anyway).
  if (p.live.watch.pidfd() >= 0 && exited(p)) return false;
  if (char* dst = heap_view(p, addr + split, bytes - split)) {
    shm::copy_bulk(dst, static_cast<const char*>(r->buf) + split, bytes - split);
    heap_copied_bytes_ += bytes - split;
    return true;
  }
  std::size_t done = split;
  while (done < bytes) {
    iovec local{static_cast<char*>(r->buf) + done, bytes - done};
    iovec remote{reinterpret_cast<void*>(std::uintptr_t(addr + done)), bytes - done};
    ssize_t n = process_vm_writev(p.live.watch.pid(), &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;  // the receiver reads the tail itself (what was written it overwrites alike)
    }
    done += std::size_t(n);
  }
  return true;
}

void Engine::cma_failed(int peer, const char* what) const {
  const int err = errno;
  check_peers();  // a peer that died meanwhile is the better message
  // ESRCH: the process is gone (check_peers may not see it yet); anything else is a live peer's
  // memory that stopped being there.
  throw PeerFailure(std::string(what) + " of rank " + std::to_string(peer) + "'s memory failed (" +
                        std::strerror(err) + ") after it had worked on the same message",
                    err == ESRCH ? PeerFailure::Kind::kGone : PeerFailure::Kind::kMisbehaved);
}

void Engine::finish_split_recv(Peer& p, int source, std::uint32_t msg_id, bool wrote) {
  auto it = p.copy.split_in.find(msg_id);
  if (it == p.copy.split_in.end()) return;  // cannot happen with a well-behaved peer
  Request* r = it->second.req;
  const std::uint64_t addr = it->second.addr;
  p.copy.split_in.erase(it);
  // The sender was refused: the tail too is read from its memory (the send is still waiting).
  if (!wrote && !read_range(p, r, addr, r->rndv_done, r->rndv_total)) {
    cma_failed(source, "process_vm_readv");
  }
  queue_or_emit(p, source, Outgoing{Outgoing::Kind::kAck, nullptr, msg_id, 0});
  complete(r);
}

}  // namespace takyon::mpi
