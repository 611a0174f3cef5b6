// SPDX-License-Identifier: MIT
// Which algorithm each collective runs: one function per collective, by message size and rank count,
// with thresholds that are knobs (TAKYON_MPI_COLL_*, common/knobs.cpp). TAKYON_MPI_COLL_<COLLECTIVE>=
// <algorithm> (read at a collective's first call) forces one algorithm, e.g.
// TAKYON_MPI_COLL_ALLREDUCE=ring, so that tests run every algorithm; a value naming no algorithm is an
// MPI_ERR_ARG error of that collective (the other collectives still run).
// Non-commutative ops always get a rank-ordered algorithm, whatever is forced.
#pragma once

#include <cstddef>

namespace takyon::mpi {

enum class BcastAlgo { kBinomial, kScatterAllgather, kLinear };
enum class ReduceAlgo { kBinomial, kOrdered, kLinear };
enum class AllreduceAlgo { kRecursiveDoubling, kRabenseifner, kRing, kReduceBcast };
enum class AllgatherAlgo { kRing, kRecursiveDoubling, kBruck, kLinear };
enum class AlltoallAlgo { kPairwise, kBruck, kLinear };
enum class ReduceScatterAlgo { kAllreduce, kRing };
enum class RootedAlgo { kLinear, kBinomial };  ///< Gather and Scatter (equal blocks)
/// The blocking collectives that may run flat through shared memory (coll/flat.hpp).
enum class FlatColl { kBarrier, kBcast, kReduce, kAllreduce, kGather, kScatter, kAllgather, kAlltoall };

BcastAlgo select_bcast(std::size_t bytes, int p, const char* fn);
ReduceAlgo select_reduce(std::size_t bytes, int p, bool commutative, const char* fn);
AllreduceAlgo select_allreduce(std::size_t bytes, std::size_t count, int p, bool commutative, const char* fn);
/// `block`: bytes per rank.
AllgatherAlgo select_allgather(std::size_t block, int p, const char* fn);
AlltoallAlgo select_alltoall(std::size_t block, int p, const char* fn);
/// Gather / Scatter (not their v forms) with `block` bytes per rank.
RootedAlgo select_gather(std::size_t block, int p, const char* fn);
RootedAlgo select_scatter(std::size_t block, int p, const char* fn);
/// Whether the blocking collective `k` runs flat on a communicator of `p` ranks that can
/// (flat::usable) when one rank publishes `bytes` (at most flat::max_publish): TAKYON_MPI_COLL_<NAME>=shm
/// forces it (on communicators that cannot, and for the nonblocking forms, the default algorithm
/// runs), any other forced algorithm excludes it (TAKYON_MPI_COLL_BARRIER: dissemination, shm).
bool select_flat(FlatColl k, std::size_t bytes, int p, const char* fn);
/// `bytes`: the whole vector (every rank's block).
ReduceScatterAlgo select_reduce_scatter(std::size_t bytes, int p, bool commutative, const char* fn);

}  // namespace takyon::mpi
