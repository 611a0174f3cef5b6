// SPDX-License-Identifier: MIT
// Inbox geometry: how many cells and chunks per source rank, sized down as the node fills.
#include "shm/layout.hpp"

namespace takyon::mpi::shm {

InboxLayout InboxLayout::for_ranks(std::uint32_t nranks) {
  InboxLayout l;
  l.nranks = nranks;
  // Per source: 64 cells of 8 KiB + 64 B (eager up to 8232 bytes) and 4 chunks of 128 KiB: ~1 MiB.
  // 8 KiB messages go eager: two pipelined copies beat RTS/CTS's extra round trip (a 4 KiB or 8 KiB
  // ping-pong is clearly faster eager). The extra line breaks the 4 KiB stride that put every
  // cell's header into the same L1 set. Pages a ring never touches cost nothing but address space;
  // keep an inbox near 64 MiB anyway.
  l.ncells = 64;
  l.cell_bytes = 8192 + 64;
  l.nchunks = 4;
  l.chunk_bytes = 128 * 1024;
  while (std::size_t{nranks} * (l.ring_bytes() + l.bulk_bytes()) > (std::size_t{64} << 20) && l.ncells > 8) {
    l.ncells /= 2;
    if (l.chunk_bytes > 16 * 1024) l.chunk_bytes /= 2;
  }
  return l;
}

}  // namespace takyon::mpi::shm
