// SPDX-License-Identifier: MIT
// Bruck alltoall: rotate the send blocks so that index i holds the block for rank r+i; in round k
// send every block whose index has bit k set to r+2^k (packed in one message) and receive the same
// indices from r-2^k; after ceil(log2 p) rounds index i holds the block from rank r-i, and an
// inverse rotation puts it in place. log2 p messages of p/2 blocks each: for small blocks.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void alltoall_bruck(Schedule& s, const char* send, char* recv, std::size_t block) {
  int p = s.size();
  int r = s.rank();
  auto n = std::size_t(p);
  char* tmp = s.scratch(n * block);
  char* out = s.scratch((n / 2 + 1) * block);
  char* in = s.scratch((n / 2 + 1) * block);
  for (int i = 0; i < p; ++i)
    s.copy(send + std::size_t((r + i) % p) * block, tmp + std::size_t(i) * block, block);
  for (int dist = 1; dist < p; dist <<= 1) {
    std::vector<int> moved;
    for (int i = 0; i < p; ++i) {
      if ((i & dist) != 0) moved.push_back(i);
    }
    for (std::size_t j = 0; j < moved.size(); ++j) {
      s.copy(tmp + std::size_t(moved[j]) * block, out + j * block, block);
    }
    s.next_round();  // packing done before the exchange starts
    s.recv((r - dist + p) % p, in, moved.size() * block);
    s.send((r + dist) % p, out, moved.size() * block);
    for (std::size_t j = 0; j < moved.size(); ++j) {
      s.copy(in + j * block, tmp + std::size_t(moved[j]) * block, block);
    }
  }
  for (int i = 0; i < p; ++i)
    s.copy(tmp + std::size_t(i) * block, recv + std::size_t((r - i + p) % p) * block, block);
  s.next_round();
}

void alltoall_bruck(Schedule& s, const CollArgs& a) {
  alltoall_bruck(s, a.send, a.recv, a.block);
}

}  // namespace takyon::mpi
