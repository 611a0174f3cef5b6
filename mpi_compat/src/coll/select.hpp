// SPDX-License-Identifier: MIT
// Which algorithm each collective runs: one function per collective, by message size and rank count,
// returning a row of the algorithm table (coll/table.hpp), with thresholds that are knobs
// (TAKYON_MPI_COLL_*, common/knobs.cpp). TAKYON_MPI_COLL_<COLLECTIVE>=<algorithm> (read at a
// collective's first call) forces one algorithm, e.g. TAKYON_MPI_COLL_ALLREDUCE=ring, so that tests
// run every algorithm; a value naming no algorithm is an MPI_ERR_ARG error of that collective (the
// other collectives still run). Non-commutative ops always get a rank-ordered algorithm, whatever is
// forced.
#pragma once

#include <cstddef>

#include "coll/table.hpp"

namespace takyon::mpi {

const Algorithm& select_bcast(std::size_t bytes, int p, const char* fn);
const Algorithm& select_reduce(std::size_t bytes, int p, bool commutative, const char* fn);
const Algorithm& select_allreduce(std::size_t bytes, std::size_t count, int p, bool commutative,
                                  const char* fn);
/// `block`: bytes per rank.
const Algorithm& select_allgather(std::size_t block, int p, const char* fn);
const Algorithm& select_alltoall(std::size_t block, int p, const char* fn);
/// Gather / Scatter (not their v forms) with `block` bytes per rank.
const Algorithm& select_gather(std::size_t block, int p, const char* fn);
const Algorithm& select_scatter(std::size_t block, int p, const char* fn);
/// `bytes`: the whole vector (every rank's block).
const Algorithm& select_reduce_scatter(std::size_t bytes, int p, bool commutative, const char* fn);
/// Whether the blocking collective `k` (one of the eight with a flat form) runs flat on a communicator
/// of `p` ranks that can (flat::usable) when one rank publishes `bytes` (at most flat::max_publish):
/// TAKYON_MPI_COLL_<NAME>=shm forces it (on communicators that cannot, and for the nonblocking forms,
/// the default algorithm runs), any other forced algorithm excludes it.
bool select_flat(Coll k, std::size_t bytes, int p, const char* fn);

}  // namespace takyon::mpi
