// SPDX-License-Identifier: MIT
// The argument checks the topology entry points share (api/topo.cpp, api/dist_graph.cpp).
#pragma once

#include <string>

#include "coll/comm_create.hpp"
#include "comm/comm.hpp"
#include "errors.hpp"

namespace takyon::mpi {

/// An output (or required input) pointer, else MPI_ERR_ARG naming `arg`.
inline void check_out(const void* p, const char* fn, const char* arg) {
  if (p == nullptr) fail(MPI_ERR_ARG, fn, std::string(arg) + " is NULL (argument " + arg + ")");
}

/// Runs a member's own argument checks, keeping the error for after the creation exchange.
template <class Checks>
void run_checks(TopoRequest& req, const Checks& checks) {
  try {
    checks();
  } catch (const MpiError& e) {
    req.error = e;
  }
}

/// A rank of `c` in 0..size-1, else MPI_ERR_RANK naming `arg`.
inline void check_rank_arg(const CommInfo& c, int rank, const char* fn, const char* arg = "rank") {
  const int size = comm_size(c);
  if (rank < 0 || rank >= size) {
    fail(MPI_ERR_RANK, fn,
         "invalid rank " + std::to_string(rank) + " (argument " + arg + ", communicator size " +
             std::to_string(size) + ")");
  }
}

/// A count or array length >= 0, else MPI_ERR_ARG.
inline void check_topo_count(int n, const char* fn, const char* arg) {
  if (n < 0)
    fail(MPI_ERR_ARG, fn,
         "invalid " + std::string(arg) + " " + std::to_string(n) + " (argument " + arg + "; >= 0)");
}

}  // namespace takyon::mpi
