// SPDX-License-Identifier: MIT
// The neighbourhood collectives' neighbour lists, argument checks and schedules (see neighbor.hpp).
#include "coll/neighbor.hpp"

#include <string>

#include "coll/algorithms.hpp"
#include "coll/build_args.hpp"
#include "comm/topo.hpp"
#include "datatype/datatype.hpp"
#include "errors.hpp"

namespace takyon::mpi {
namespace {

using Ranks = SmallVec<int, 16>;
using Ints = SmallVec<int, 16>;

/// The names one side's arguments have in error messages.
struct SideArgs {
  const char* buf;
  const char* count;   ///< the single count, or the counts array
  const char* displs;  ///< nullptr: none (equal blocks)
  const char* type;    ///< the datatype, or the datatypes array
  bool typed = false;  ///< a datatype per block (Neighbor_alltoallw; byte displacements)
};
constexpr SideArgs kSend{"sendbuf", "sendcount", nullptr, "sendtype"};
constexpr SideArgs kRecv{"recvbuf", "recvcount", nullptr, "recvtype"};
constexpr SideArgs kSendV{"sendbuf", "sendcounts", "sdispls", "sendtype"};
constexpr SideArgs kRecvV{"recvbuf", "recvcounts", "rdispls", "recvtype"};
constexpr SideArgs kRecvAllgatherV{"recvbuf", "recvcounts", "displs", "recvtype"};
constexpr SideArgs kSendW{"sendbuf", "sendcounts", "sdispls", "sendtypes", true};
constexpr SideArgs kRecvW{"recvbuf", "recvcounts", "rdispls", "recvtypes", true};

/// A datatype argument: valid and committed (check_buf with nothing to move checks only the type).
void check_side_type(const char* fn, MPI_Datatype dt, const char* arg) {
  check_buf(fn, nullptr, 0, dt, "buf", "count", arg);
}

/// The most items any real neighbour's block of this side holds (the buffer must exist if it is > 0).
int most_items(const Ranks& ranks, const int* counts, int count) {
  int most = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int n = counts != nullptr ? counts[i] : count;
    if (ranks[i] != MPI_PROC_NULL && n > most) most = n;
  }
  return most;
}

/// One side's blocks, one per neighbour in `ranks`: `counts[i]` items at displacement displs[i] (in
/// items of `type`; with per-block `types`, Neighbor_alltoallw's, in bytes), or, without counts
/// (`names.displs` nullptr), `count` items each laid end to end. A MPI_PROC_NULL neighbour's block
/// counts 0 items: it is neither packed, sent nor written. `write`: blocks received into.
template <class Disp>
Blocks side_blocks(Views& v, const char* fn, const SideArgs& names, const Ranks& ranks, const void* buf,
                   const int* counts, int count, const Disp* displs, const MPI_Datatype* types,
                   MPI_Datatype type, bool write) {
  const int n = int(ranks.size());
  const bool vec = names.displs != nullptr;
  const bool typed = names.typed;
  if (typed && n > 0 && types == nullptr) fail(MPI_ERR_ARG, fn, std::string(names.type) + " is NULL");
  if (!vec) check_coll_count(fn, count, names.count);
  if (vec && n > 0) {
    check_counts(fn, counts, nullptr, n, names.count, nullptr);
    if (displs == nullptr) fail(MPI_ERR_ARG, fn, std::string(names.displs) + " is NULL");
  }
  if (!typed) {
    check_side_type(fn, type, names.type);
    check_buf(fn, buf, most_items(ranks, vec ? counts : nullptr, count), type, names.buf, names.count,
              names.type);
  }
  for (int i = 0; typed && i < n; ++i) {
    const std::string arg = std::string(names.type) + "[" + std::to_string(i) + "]";
    const int items = ranks[std::size_t(i)] == MPI_PROC_NULL ? 0 : counts[i];
    check_buf(fn, buf, items, types[i], names.buf, names.count, arg.c_str());
  }
  Ints live;  // the counts, 0 for MPI_PROC_NULL neighbours
  SmallVec<MPI_Aint, 16> equal_displs;
  for (int i = 0; i < n; ++i) {
    live.push_back(ranks[std::size_t(i)] == MPI_PROC_NULL ? 0 : (vec ? counts[i] : count));
    if (!vec) equal_displs.push_back(MPI_Aint(i) * count);
  }
  void* at = const_cast<void*>(buf);
  if (vec) return v.blocks(at, live.data(), displs, types, type, n, typed, write);
  return v.blocks(at, live.data(), equal_displs.data(), nullptr, type, n, false, write);
}

/// The one round: every receive is posted first, then every send, in neighbour order (one tag for
/// the whole collective, and messages between two processes match in the order they were posted).
/// On a Cartesian communicator each dimension's two receives are posted the other way round (the +1
/// neighbour's block first), so that where both neighbours are one process its first message, the
/// block it sent in the -1 direction, lands in the block of the +1 direction (Neighbours' pairing
/// rule). Where they are different processes the order changes nothing.
void neighbor_exchange(Schedule& s, const Neighbours& nb, const Blocks& send, const Blocks& recv) {
  for (std::size_t k = 0; k < nb.sources.size(); ++k) {
    const std::size_t i = nb.cartesian ? k ^ 1U : k;
    if (nb.sources[i] != MPI_PROC_NULL) s.recv(nb.sources[i], recv.at[i], recv.bytes[i]);
  }
  for (std::size_t j = 0; j < nb.destinations.size(); ++j) {
    if (nb.destinations[j] != MPI_PROC_NULL) s.send(nb.destinations[j], send.at[j], send.bytes[j]);
  }
}

}  // namespace

Neighbours neighbours_of(const CommInfo& c, const char* fn) {
  const Topology& t = check_topology(c, MPI_UNDEFINED, fn);
  const int rank = comm_rank(c);
  Neighbours nb;
  switch (t.kind) {
    case MPI_CART:
      nb.cartesian = true;
      for (int d = 0; d < int(t.dims.size()); ++d) {
        int source = MPI_PROC_NULL;
        int dest = MPI_PROC_NULL;
        cart_shift_of(t, rank, d, 1, &source, &dest);
        nb.sources.push_back(source);
        nb.sources.push_back(dest);
      }
      nb.destinations = nb.sources;
      break;
    case MPI_GRAPH: {
      auto [first, last] = graph_edges_of(t, rank);
      for (int e = first; e < last; ++e) nb.sources.push_back(t.edges[std::size_t(e)]);
      nb.destinations = nb.sources;
      break;
    }
    default:
      for (int r : t.sources) nb.sources.push_back(r);
      for (int r : t.destinations) nb.destinations.push_back(r);
      break;
  }
  return nb;
}

SchedulePtr build_neighbor_allgather(const char* fn, const void* sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void* recvbuf, bool vec, const int* recvcounts,
                                     int recvcount, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  const Neighbours nb = neighbours_of(c, fn);
  check_coll_count(fn, sendcount, "sendcount");
  check_side_type(fn, sendtype, "sendtype");
  const bool sends = most_items(nb.destinations, nullptr, sendcount) > 0;
  check_buf(fn, sendbuf, sends ? sendcount : 0, sendtype, "sendbuf", "sendcount", "sendtype");
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  // Every destination gets the same block, packed once.
  const char* own = sends ? v.in(sendbuf, std::size_t(sendcount), sendtype) : nullptr;
  const std::size_t own_bytes = std::size_t(sendcount) * type_size(sendtype);
  Blocks send;
  for (std::size_t j = 0; j < nb.destinations.size(); ++j) {
    send.at.push_back(const_cast<char*>(own));
    send.bytes.push_back(own_bytes);
  }
  const Blocks recv = side_blocks(v, fn, vec ? kRecvAllgatherV : kRecv, nb.sources, recvbuf, recvcounts,
                                  recvcount, displs, nullptr, recvtype, true);
  neighbor_exchange(*s, nb, send, recv);
  v.finish();
  return s;
}

SchedulePtr build_neighbor_alltoall(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  const Neighbours nb = neighbours_of(c, fn);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  const int* none = nullptr;
  const Blocks send =
      side_blocks(v, fn, kSend, nb.destinations, sendbuf, nullptr, sendcount, none, nullptr, sendtype, false);
  const Blocks recv =
      side_blocks(v, fn, kRecv, nb.sources, recvbuf, nullptr, recvcount, none, nullptr, recvtype, true);
  neighbor_exchange(*s, nb, send, recv);
  v.finish();
  return s;
}

SchedulePtr build_neighbor_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts,
                                     const int* sdispls, MPI_Datatype sendtype, void* recvbuf,
                                     const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                                     MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  const Neighbours nb = neighbours_of(c, fn);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  const Blocks send =
      side_blocks(v, fn, kSendV, nb.destinations, sendbuf, sendcounts, 0, sdispls, nullptr, sendtype, false);
  const Blocks recv =
      side_blocks(v, fn, kRecvV, nb.sources, recvbuf, recvcounts, 0, rdispls, nullptr, recvtype, true);
  neighbor_exchange(*s, nb, send, recv);
  v.finish();
  return s;
}

SchedulePtr build_neighbor_alltoallw(const char* fn, const void* sendbuf, const int* sendcounts,
                                     const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                                     const int* recvcounts, const MPI_Aint* rdispls,
                                     const MPI_Datatype* recvtypes, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  const Neighbours nb = neighbours_of(c, fn);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  const Blocks send = side_blocks(v, fn, kSendW, nb.destinations, sendbuf, sendcounts, 0, sdispls, sendtypes,
                                  MPI_DATATYPE_NULL, false);
  const Blocks recv = side_blocks(v, fn, kRecvW, nb.sources, recvbuf, recvcounts, 0, rdispls, recvtypes,
                                  MPI_DATATYPE_NULL, true);
  neighbor_exchange(*s, nb, send, recv);
  v.finish();
  return s;
}

}  // namespace takyon::mpi
