// SPDX-License-Identifier: MIT
// MPI_Dist_graph_create's exchange of edges (see dist_graph.hpp).
#include "coll/dist_graph.hpp"

#include <climits>
#include <string>

#include "coll/build.hpp"
#include "comm/comm.hpp"
#include "errors.hpp"

namespace takyon::mpi {
namespace {

/// An edge travels as three ints: source, destination, weight.
constexpr int kEdgeInts = 3;

/// Prefix sums of `counts` as displacements; MPI_ERR_ARG naming `fn` when they pass INT_MAX ints.
std::vector<int> displacements(const std::vector<int>& counts, const char* fn) {
  std::vector<int> displs(counts.size());
  long long at = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    displs[q] = int(at);
    at += counts[q];
    if (at > INT_MAX) {
      fail(MPI_ERR_ARG, fn,
           "the graph has too many edges for one process (more than " + std::to_string(INT_MAX / kEdgeInts) +
               " named by or arriving at one process)");
    }
  }
  return displs;
}

}  // namespace

void exchange_dist_graph_edges(MPI_Comm comm, const std::vector<DistEdge>& edges, Topology& t,
                               const char* fn) {
  const CommInfo& c = check_comm(comm, fn);
  const auto p = std::size_t(comm_size(c));
  const int me = comm_rank(c);
  // Each edge goes to its source and, unless it is a loop, to its destination.
  std::vector<int> sendcounts(p, 0);
  for (const DistEdge& e : edges) {
    sendcounts[std::size_t(e.source)] += kEdgeInts;
    if (e.dest != e.source) sendcounts[std::size_t(e.dest)] += kEdgeInts;
  }
  const std::vector<int> sdispls = displacements(sendcounts, fn);
  std::vector<int> sendbuf(std::size_t(sdispls.back() + sendcounts.back()));
  std::vector<int> fill(sdispls);
  auto put = [&](int q, const DistEdge& e) {
    int* at = sendbuf.data() + fill[std::size_t(q)];
    at[0] = e.source;
    at[1] = e.dest;
    at[2] = e.weight;
    fill[std::size_t(q)] += kEdgeInts;
  };
  for (const DistEdge& e : edges) {
    put(e.source, e);
    if (e.dest != e.source) put(e.dest, e);
  }
  std::vector<int> recvcounts(p, 0);
  build_alltoall(fn, sendcounts.data(), 1, MPI_INT, recvcounts.data(), 1, MPI_INT, comm)->run();
  const std::vector<int> rdispls = displacements(recvcounts, fn);
  std::vector<int> recvbuf(std::size_t(rdispls.back() + recvcounts.back()));
  build_alltoallv(fn, sendbuf.data(), sendcounts.data(), sdispls.data(), nullptr, MPI_INT, recvbuf.data(),
                  recvcounts.data(), rdispls.data(), nullptr, MPI_INT, comm)
      ->run();
  // In rank order of the processes that named them, each one's edges in its order.
  for (std::size_t at = 0; at + kEdgeInts <= recvbuf.size(); at += kEdgeInts) {
    const int source = recvbuf[at];
    const int dest = recvbuf[at + 1];
    const int weight = recvbuf[at + 2];
    if (source == me) {
      t.destinations.push_back(dest);
      t.dest_weights.push_back(weight);
    }
    if (dest == me) {
      t.sources.push_back(source);
      t.source_weights.push_back(weight);
    }
  }
}

}  // namespace takyon::mpi
