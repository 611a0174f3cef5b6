// SPDX-License-Identifier: MIT
// Inbox geometry: how many cells and chunks per source rank, sized down as the node fills.
#include "shm/layout.hpp"

namespace takyon::mpi::shm {

InboxLayout InboxLayout::for_ranks(std::uint32_t nranks) {
  InboxLayout l;
  l.nranks = nranks;
  // Per source: 64 cells of 4 KiB (eager up to 4072 bytes) and 4 chunks of 128 KiB: 768 KiB.
  // Pages a ring never touches cost nothing but address space; keep an inbox near 64 MiB anyway.
  l.ncells = 64;
  l.cell_bytes = 4096;
  l.nchunks = 4;
  l.chunk_bytes = 128 * 1024;
  while (std::size_t{nranks} * (l.ring_bytes() + l.bulk_bytes()) > (std::size_t{64} << 20) && l.ncells > 8) {
    l.ncells /= 2;
    if (l.chunk_bytes > 16 * 1024) l.chunk_bytes /= 2;
  }
  return l;
}

}  // namespace takyon::mpi::shm
