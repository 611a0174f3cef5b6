// SPDX-License-Identifier: MIT
// Every collective algorithm of libtakyon_mpi, one per file in coll/: each appends its rounds to a
// Schedule and works for any rank count. They move packed bytes (the API layer packs derived
// datatypes and unpacks them at the end); reductions work on packed items of a basic datatype.
// Buffers named `send` are read only; a reduction's `send` may equal its `recv` (MPI_IN_PLACE).
// Ranks are ranks of the schedule's communicator.
#pragma once

#include <cstddef>
#include <vector>

#include "coll/schedule.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// A reduction's data: `count` items of `dt` combined with `op`.
struct ReduceSpec {
  std::size_t count = 0;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  std::size_t item = 0;  ///< bytes per packed item
  [[nodiscard]] std::size_t bytes() const { return count * item; }
};

/// Per-rank blocks of a v-collective: block r of this rank's buffer, `bytes[r]` packed bytes at `at[r]`.
/// Inline up to 16 ranks: a small gather, scatter, allgather or alltoall allocates nothing.
struct Blocks {
  SmallVec<char*, 16> at;
  SmallVec<std::size_t, 16> bytes;
};

/// p blocks of `block` bytes, block i at base + i * block (the equal-block collectives' buffers as
/// Blocks, for the algorithms that take any block sizes).
inline Blocks equal_blocks(char* base, std::size_t block, int p) {
  Blocks b;
  for (int i = 0; i < p; ++i) {
    b.at.push_back(base + std::size_t(i) * block);
    b.bytes.push_back(block);
  }
  return b;
}

/// Whether `b` is p blocks of `block` bytes laid end to end (rank order, no gap): one buffer.
inline bool contiguous_blocks(const Blocks& b, std::size_t block) {
  for (std::size_t i = 0; i < b.at.size(); ++i) {
    if (b.bytes[i] != block || b.at[i] != b.at[0] + i * block) return false;
  }
  return true;
}

/// The recursive-doubling allreduces on any p: pof2 is the largest power of two <= p, rem = p - pof2.
/// Ranks 2i and 2i+1 (i < rem) pair up: 2i folds its vector into 2i+1 and sits out (vrank -1), 2i+1
/// takes part as i; a rank r >= 2 rem takes part as r - rem. real() maps a part back to its rank.
struct PowerOfTwoFold {
  int pof2 = 1;
  int rem = 0;
  explicit PowerOfTwoFold(int p) {
    while (pof2 * 2 <= p) pof2 *= 2;
    rem = p - pof2;
  }
  [[nodiscard]] bool pairs(int rank) const { return rank < 2 * rem; }
  [[nodiscard]] int vrank(int rank) const {
    return pairs(rank) ? (rank % 2 == 0 ? -1 : rank / 2) : rank - rem;
  }
  [[nodiscard]] int real(int vrank) const { return vrank < rem ? vrank * 2 + 1 : vrank + rem; }
};

// barrier_dissemination.cpp: ceil(log2 p) rounds, rank r signals r+2^k and waits for r-2^k.
void barrier_dissemination(Schedule& s);

// bcast_binomial.cpp: a binomial tree rooted at `root`, log2 p rounds, whole message per edge.
void bcast_binomial(Schedule& s, char* buf, std::size_t bytes, int root);
// bcast_linear.cpp: the root sends to every rank in one round (small messages, few ranks).
void bcast_linear(Schedule& s, char* buf, std::size_t bytes, int root);
// bcast_scatter_allgather.cpp: the root scatters p pieces along a binomial tree, then a ring
// allgather assembles them (van de Geijn): ~2x the bytes instead of log2 p x for large messages.
void bcast_scatter_allgather(Schedule& s, char* buf, std::size_t bytes, int root);

// reduce_binomial.cpp: a binomial tree towards `root` (commutative ops). `recv`: root only.
void reduce_binomial(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root);
// reduce_linear.cpp: one round: every rank sends to the root, which combines (commutative ops; few
// ranks). `recv`: root only.
void reduce_linear(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root);
// reduce_ordered.cpp: rank-ordered for non-commutative ops: a binomial tree over ranks 0..p-1 in
// which every combine keeps lower ranks on the left, then rank 0 forwards the result to the root.
void reduce_ordered(Schedule& s, const char* send, char* recv, const ReduceSpec& r, int root);

// allreduce_recursive_doubling.cpp: log2 p exchange rounds of the whole vector; the ranks beyond
// the largest power of two fold into a partner first and get the result back at the end. Keeps
// rank order (valid for non-commutative ops).
void allreduce_recursive_doubling(Schedule& s, const char* send, char* recv, const ReduceSpec& r);
// allreduce_rabenseifner.cpp: recursive-halving reduce-scatter then recursive-doubling allgather
// over the largest power of two (the others fold in first): ~2x the bytes, log2 p rounds each way.
void allreduce_rabenseifner(Schedule& s, const char* send, char* recv, const ReduceSpec& r);
// allreduce_ring.cpp: ring reduce-scatter (p-1 steps) then ring allgather (p-1 steps).
void allreduce_ring(Schedule& s, const char* send, char* recv, const ReduceSpec& r);
// allreduce_reduce_bcast.cpp: linear reduce to rank 0, then linear bcast; for few ranks sharing few cores.
void allreduce_reduce_bcast(Schedule& s, const char* send, char* recv, const ReduceSpec& r);

// reduce_scatter_ring.cpp: ring reduce-scatter (commutative ops): p-1 steps, rank r ends with the
// reduced block r (counts[r] items, written to recv). `send` holds all sum(counts) items.
void reduce_scatter_ring(Schedule& s, const char* send, char* recv, const std::vector<std::size_t>& counts,
                         const ReduceSpec& r);

// gather_linear.cpp / scatter_linear.cpp: the root posts one receive (send) per rank. `own` is
// this rank's contribution (gather) or its destination (scatter); the root's own block is copied.
void gather_linear(Schedule& s, const char* own, std::size_t own_bytes, const Blocks& root_blocks, int root);
void scatter_linear(Schedule& s, char* own, std::size_t own_bytes, const Blocks& root_blocks, int root);

// gather_binomial.cpp / scatter_binomial.cpp: binomial trees for equal blocks of `block` bytes; the
// root's `recv` / `send` holds p blocks in rank order. `own`: this rank's block (nullptr at an
// in-place root: its block is already in recv / stays in send).
void gather_binomial(Schedule& s, const char* own, char* recv, std::size_t block, int root);
void scatter_binomial(Schedule& s, const char* send, char* own, std::size_t block, int root);

// The allgathers take this rank's own block in place, or from `own` (not in place: sent from there
// and copied into place meanwhile).
// allgather_ring.cpp: p-1 steps, each rank forwards the block it received last (any block sizes).
void allgather_ring(Schedule& s, const Blocks& blocks, const char* own = nullptr);
// allgather_bruck.cpp: ceil(log2 p) rounds of doubling exchanges (Bruck), equal blocks of `block`
// bytes in `recv` (p blocks), then a local rotation.
void allgather_bruck(Schedule& s, char* recv, std::size_t block, const char* own = nullptr);
// allgather_recursive_doubling.cpp: log2 p exchanges of doubling halves (powers of two); other
// rank counts use Bruck's doubling pattern, its generalization.
void allgather_recursive_doubling(Schedule& s, char* recv, std::size_t block, const char* own = nullptr);

// allgather_linear.cpp: one round: receive every block, send this rank's own to each (few ranks;
// any block sizes).
void allgather_linear(Schedule& s, const Blocks& blocks, const char* own = nullptr);

// alltoall_pairwise.cpp: p-1 steps; at step k send to r+k and receive from r-k (any block sizes).
void alltoall_pairwise(Schedule& s, const Blocks& send, const Blocks& recv);
// alltoall_linear.cpp: one round: every receive and send posted at once, own block copied (few
// ranks; any block sizes).
void alltoall_linear(Schedule& s, const Blocks& send, const Blocks& recv);
// alltoall_bruck.cpp: ceil(log2 p) rounds, each moving the blocks whose index has bit k set
// (small blocks, many ranks); equal blocks of `block` bytes.
void alltoall_bruck(Schedule& s, const char* send, char* recv, std::size_t block);

// scan_linear.cpp: rank r receives the prefix of ranks 0..r-1 from r-1, combines, passes it on
// (rank order kept: valid for non-commutative ops). `exclusive`: MPI_Exscan (rank 0's recv untouched).
void scan_linear(Schedule& s, const char* send, char* recv, const ReduceSpec& r, bool exclusive);

}  // namespace takyon::mpi
