// SPDX-License-Identifier: MIT
// Argument checks and schedules of the collectives (see build.hpp).
#include "coll/build.hpp"

#include <string>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/build_args.hpp"
#include "coll/build_inter.hpp"
#include "coll/select.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "errors.hpp"
#include "op/op.hpp"

namespace takyon::mpi {
namespace {

std::string str(long long v) {
  return std::to_string(v);
}

}  // namespace

void check_coll_count(const char* fn, int count, const char* arg) {
  if (count < 0) fail(MPI_ERR_COUNT, fn, "invalid count " + str(count) + " (argument " + arg + ")");
}

/// count items of dt at buf: a valid datatype, and a buffer unless nothing is there.
void check_buf(const char* fn, const void* buf, int count, MPI_Datatype dt, const char* buf_arg,
               const char* count_arg, const char* type_arg) {
  check_coll_count(fn, count, count_arg);
  if (dt == MPI_DATATYPE_NULL)
    fail(MPI_ERR_TYPE, fn, std::string("invalid datatype MPI_DATATYPE_NULL (argument ") + type_arg + ")");
  try {
    check_type(dt, fn);
  } catch (const MpiError& e) {
    std::string what = e.what();  // "<fn>: <why> (argument datatype)...": this argument's name instead
    std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const std::string generic = " (argument datatype)";
    for (std::size_t at; (at = what.find(generic)) != std::string::npos;) what.erase(at, generic.size());
    fail(MPI_ERR_TYPE, fn, what + " (argument " + type_arg + ")");
  }
  if (buf == MPI_IN_PLACE)
    fail(MPI_ERR_BUFFER, fn, std::string("MPI_IN_PLACE is not allowed here (argument ") + buf_arg + ")");
  (void)items_bytes(dt, std::size_t(count), fn, count_arg);
  if (buf == nullptr && count > 0 && type_size(dt) > 0) {
    fail(MPI_ERR_BUFFER, fn,
         std::string("buffer is NULL with count ") + str(count) + " (argument " + buf_arg + ")");
  }
}

void check_counts(const char* fn, const int* counts, const int* displs, int p, const char* counts_arg,
                  const char* displs_arg) {
  if (counts == nullptr) fail(MPI_ERR_ARG, fn, std::string(counts_arg) + " is NULL");
  if (displs_arg != nullptr && displs == nullptr) fail(MPI_ERR_ARG, fn, std::string(displs_arg) + " is NULL");
  for (int i = 0; i < p; ++i) {
    if (counts[i] < 0) {
      fail(MPI_ERR_COUNT, fn,
           "invalid count " + str(counts[i]) + " (argument " + counts_arg + "[" + str(i) + "])");
    }
  }
}

ReduceSpec spec(int count, MPI_Datatype dt, MPI_Op op) {
  return ReduceSpec{std::size_t(count), dt, op, type_size(dt)};
}

void check_reduction(const char* fn, int count, MPI_Datatype dt, MPI_Op op) {
  check_coll_count(fn, count, "count");
  if (dt == MPI_DATATYPE_NULL)
    fail(MPI_ERR_TYPE, fn, "invalid datatype MPI_DATATYPE_NULL (argument datatype)");
  check_type(dt, fn);
  check_op(op, dt, fn);
  if (!reduces_packed(op, dt))
    fail(MPI_ERR_TYPE, fn, "reductions need a predefined or contiguous datatype (argument datatype)");
}

void check_distinct(const char* fn, const void* sendbuf, const void* recvbuf, bool nonempty) {
  if (nonempty && sendbuf != nullptr && sendbuf == recvbuf) {
    fail(MPI_ERR_BUFFER, fn, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  }
}

namespace {

void check_root(const char* fn, const CommInfo& c, int root) {
  int p = comm_size(c);
  if (root < 0 || root >= p) {
    fail(MPI_ERR_ROOT, fn,
         "invalid root " + str(root) + " (argument root, communicator size " + str(p) + ")");
  }
}

std::vector<int> equal(int p, int count) {
  return std::vector<int>(std::size_t(p), count);
}
/// Per-rank counts or displacements of the rooted and gathering collectives: inline up to 16 ranks,
/// so that a small gather, scatter or allgather allocates nothing.
using Ints = SmallVec<int, 16>;
Ints ints_equal(int p, int count) {
  Ints v;
  for (int i = 0; i < p; ++i) v.push_back(count);
  return v;
}
Ints ints_strided(int p, int count) {
  Ints v;
  for (int i = 0; i < p; ++i) v.push_back(i * count);
  return v;
}
Ints ints_copy(const int* a, int p) {
  Ints v;
  for (int i = 0; i < p; ++i) v.push_back(a[i]);
  return v;
}

/// Allreduce's and scan's arguments: count items of dt reduced with op, from sendbuf (or MPI_IN_PLACE)
/// into recvbuf, a different buffer. Returns whether it is in place.
bool check_reduction_bufs(const char* fn, const void* sendbuf, const void* recvbuf, int count,
                          MPI_Datatype dt, MPI_Op op) {
  check_reduction(fn, count, dt, op);
  bool in_place = sendbuf == MPI_IN_PLACE;
  check_buf(fn, recvbuf, count, dt, "recvbuf", "count", "datatype");
  if (!in_place) {
    check_buf(fn, sendbuf, count, dt, "sendbuf", "count", "datatype");
    check_distinct(fn, sendbuf, recvbuf, count > 0);
  }
  return in_place;
}

/// Gather's and scatter's arguments (and their v-variants'), checked alike: every member's own block
/// (gather: sendbuf, scatter: recvbuf; MPI_IN_PLACE at the root only) and, at the root, the p blocks
/// (gather: recvbuf, scatter: sendbuf) with their counts and displacements, or one count for all.
struct RootedArgs {
  int p = 0;
  bool is_root = false;
  bool in_place = false;
  Ints counts;  // the root's blocks (empty on the other members)
  Ints disp;
};

RootedArgs check_rooted(const char* fn, const CommInfo& c, int root, bool gather, const void* own_buf,
                        int own_count, MPI_Datatype own_type, const void* root_buf, bool vec,
                        const int* root_counts, int root_count, const int* displs, MPI_Datatype root_type) {
  static const char* const kArgs[2][4] = {{"sendbuf", "sendcount", "sendtype", "sendcounts"},
                                          {"recvbuf", "recvcount", "recvtype", "recvcounts"}};
  const char* const* own = kArgs[gather ? 0 : 1];
  const char* const* all = kArgs[gather ? 1 : 0];
  check_root(fn, c, root);
  RootedArgs a;
  a.p = comm_size(c);
  a.is_root = comm_rank(c) == root;
  a.in_place = own_buf == MPI_IN_PLACE;
  if (a.in_place && !a.is_root)
    fail(MPI_ERR_BUFFER, fn,
         std::string("MPI_IN_PLACE is allowed at the root only (argument ") + own[0] + ")");
  if (!a.in_place) check_buf(fn, own_buf, own_count, own_type, own[0], own[1], own[2]);
  if (a.is_root) {
    if (vec) {
      check_counts(fn, root_counts, displs, a.p, all[3], "displs");
      a.counts = ints_copy(root_counts, a.p);
      a.disp = ints_copy(displs, a.p);
    } else {
      check_coll_count(fn, root_count, all[1]);
      a.counts = ints_equal(a.p, root_count);
      a.disp = ints_strided(a.p, root_count);
    }
    int most = 0;
    for (int n : a.counts) most = n > most ? n : most;
    check_buf(fn, root_buf, most, root_type, all[0], all[1], all[2]);
  }
  return a;
}

/// The root's own block, sent and received (not in place), must be the same size.
void check_root_block(const char* fn, std::size_t send_bytes, std::size_t recv_bytes) {
  if (send_bytes != recv_bytes) {
    fail(MPI_ERR_TRUNCATE, fn,
         "the root's send and receive blocks differ in size (" + std::to_string(send_bytes) + " and " +
             std::to_string(recv_bytes) + " bytes)");
  }
}

void run_allreduce(Schedule& s, const char* send, char* recv, const ReduceSpec& r) {
  CollArgs a;
  a.send = send;
  a.recv = recv;
  a.reduce = &r;
  select_allreduce(r.bytes(), r.count, s.size(), op_commutative(r.op), s.fn()).run(s, a);
}

}  // namespace

SchedulePtr build_barrier(const char* fn, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) return build_inter_barrier(fn, c);
  auto s = std::make_unique<Schedule>(c, fn);
  barrier_dissemination(*s);
  return s;
}

SchedulePtr build_bcast(const char* fn, void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) return build_inter_bcast(fn, buf, count, dt, root, c);
  check_buf(fn, buf, count, dt, "buffer", "count", "datatype");
  check_root(fn, c, root);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  char* data = s->rank() == root ? const_cast<char*>(v.in(buf, n, dt)) : v.out(buf, n, dt, false);
  std::size_t bytes = n * type_size(dt);
  CollArgs a;
  a.buf = data;
  a.bytes = bytes;
  a.root = root;
  select_bcast(bytes, s->size(), fn).run(*s, a);
  v.finish();
  return s;
}

SchedulePtr build_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                         MPI_Op op, int root, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) return build_inter_reduce(fn, sendbuf, recvbuf, count, dt, op, root, c);
  check_reduction(fn, count, dt, op);
  check_root(fn, c, root);
  bool is_root = comm_rank(c) == root;
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    fail(MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is allowed at the root only (argument sendbuf)");
  if (is_root) check_buf(fn, recvbuf, count, dt, "recvbuf", "count", "datatype");
  if (!in_place) check_buf(fn, sendbuf, count, dt, "sendbuf", "count", "datatype");
  if (is_root && !in_place) check_distinct(fn, sendbuf, recvbuf, count > 0);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  char* recv = is_root ? v.out(recvbuf, n, dt, in_place) : nullptr;
  const char* send = in_place ? recv : v.in(sendbuf, n, dt);
  ReduceSpec r = spec(count, dt, op);
  CollArgs a;
  a.send = send;
  a.recv = recv;
  a.reduce = &r;
  a.root = root;
  select_reduce(r.bytes(), s->size(), op_commutative(op), fn).run(*s, a);
  v.finish();
  return s;
}

SchedulePtr build_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                            MPI_Op op, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) return build_inter_allreduce(fn, sendbuf, recvbuf, count, dt, op, c);
  const bool in_place = check_reduction_bufs(fn, sendbuf, recvbuf, count, dt, op);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  char* recv = v.out(recvbuf, n, dt, in_place);
  const char* send = in_place ? recv : v.in(sendbuf, n, dt);
  run_allreduce(*s, send, recv, spec(count, dt, op));
  v.finish();
  return s;
}

SchedulePtr build_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, bool vec,
                                 const int* recvcounts, int recvcount, MPI_Datatype dt, MPI_Op op,
                                 MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    return build_inter_reduce_scatter(fn, sendbuf, recvbuf, vec, recvcounts, recvcount, dt, op, c);
  int p = comm_size(c);
  int me = comm_rank(c);
  std::vector<int> counts = vec ? std::vector<int>() : equal(p, recvcount);
  if (vec) {
    check_counts(fn, recvcounts, nullptr, p, "recvcounts", nullptr);
    counts.assign(recvcounts, recvcounts + p);
  } else {
    check_coll_count(fn, recvcount, "recvcount");
  }
  std::size_t total = 0;
  std::vector<std::size_t> first(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    first[std::size_t(i)] = total;
    total += std::size_t(counts[std::size_t(i)]);
  }
  if (total > std::size_t(0x7fffffff))
    fail(MPI_ERR_COUNT, fn, "the counts add up to more than INT_MAX items");
  check_reduction(fn, int(total), dt, op);
  bool in_place = sendbuf == MPI_IN_PLACE;
  auto mine = std::size_t(counts[std::size_t(me)]);
  check_buf(fn, recvbuf, in_place ? int(total) : int(mine), dt, "recvbuf", "recvcounts", "datatype");
  if (!in_place) {
    check_buf(fn, sendbuf, int(total), dt, "sendbuf", "recvcounts", "datatype");
    check_distinct(fn, sendbuf, recvbuf, total > 0);
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  std::size_t item = type_size(dt);
  const char* send = v.in(in_place ? recvbuf : sendbuf, total, dt);
  char* recv = v.out(recvbuf, mine, dt, false);
  const std::vector<std::size_t> items(counts.begin(), counts.end());
  const ReduceSpec whole = spec(int(total), dt, op);
  CollArgs a;
  a.send = send;
  a.recv = recv;
  a.reduce = &whole;
  a.counts = &items;
  select_reduce_scatter(total * item, p, op_commutative(op), fn).run(*s, a);
  v.finish();
  return s;
}

SchedulePtr build_scan(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm, bool exclusive) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    fail(MPI_ERR_COMM, fn, "invalid communicator (argument comm): not defined on an intercommunicator");
  const bool in_place = check_reduction_bufs(fn, sendbuf, recvbuf, count, dt, op);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  char* recv = v.out(recvbuf, n, dt, in_place || exclusive);
  const char* send = in_place ? recv : v.in(sendbuf, n, dt);
  scan_linear(*s, send, recv, spec(count, dt, op), exclusive);
  v.finish();
  return s;
}

SchedulePtr build_gather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, bool vec, const int* recvcounts, int recvcount, const int* displs,
                         MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    return build_inter_gather(fn, sendbuf, sendcount, sendtype, recvbuf, vec, recvcounts, recvcount, displs,
                              recvtype, root, c);
  RootedArgs a = check_rooted(fn, c, root, true, sendbuf, sendcount, sendtype, recvbuf, vec, recvcounts,
                              recvcount, displs, recvtype);
  const int p = a.p;
  const bool is_root = a.is_root, in_place = a.in_place;
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  std::size_t block =
      is_root ? std::size_t(recvcount) * type_size(recvtype) : std::size_t(sendcount) * type_size(sendtype);
  static const Algorithm& linear = algorithm_named(Coll::kGather, "linear");
  const Algorithm& algorithm = vec ? linear : select_gather(block, p, fn);
  Blocks blocks;
  if (is_root)
    blocks = v.blocks(recvbuf, a.counts.data(), a.disp.data(), nullptr, recvtype, p, false, true,
                      in_place ? root : -1);
  const char* own = in_place ? nullptr : v.in(sendbuf, std::size_t(sendcount), sendtype);
  std::size_t own_bytes = in_place ? 0 : std::size_t(sendcount) * type_size(sendtype);
  if (is_root && !in_place) check_root_block(fn, own_bytes, blocks.bytes[std::size_t(root)]);
  CollArgs args;
  args.own = own;
  args.own_bytes = own_bytes;
  args.blocks = &blocks;
  args.block = block;
  args.root = root;
  algorithm.run(*s, args);
  v.finish();
  return s;
}

SchedulePtr build_scatter(const char* fn, const void* sendbuf, bool vec, const int* sendcounts, int sendcount,
                          const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    return build_inter_scatter(fn, sendbuf, vec, sendcounts, sendcount, displs, sendtype, recvbuf, recvcount,
                               recvtype, root, c);
  RootedArgs a = check_rooted(fn, c, root, false, recvbuf, recvcount, recvtype, sendbuf, vec, sendcounts,
                              sendcount, displs, sendtype);
  const int p = a.p;
  const bool is_root = a.is_root, in_place = a.in_place;
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  std::size_t block =
      is_root ? std::size_t(sendcount) * type_size(sendtype) : std::size_t(recvcount) * type_size(recvtype);
  static const Algorithm& linear = algorithm_named(Coll::kScatter, "linear");
  const Algorithm& algorithm = vec ? linear : select_scatter(block, p, fn);
  Blocks blocks;
  if (is_root)
    blocks = v.blocks(const_cast<void*>(sendbuf), a.counts.data(), a.disp.data(), nullptr, sendtype, p, false,
                      false);
  char* own = in_place ? nullptr : v.out(recvbuf, std::size_t(recvcount), recvtype, false);
  std::size_t own_bytes = in_place ? 0 : std::size_t(recvcount) * type_size(recvtype);
  if (is_root && !in_place) check_root_block(fn, blocks.bytes[std::size_t(root)], own_bytes);
  CollArgs args;
  args.own_out = own;
  args.own_bytes = own_bytes;
  args.blocks = &blocks;
  args.block = block;
  args.root = root;
  algorithm.run(*s, args);
  v.finish();
  return s;
}

SchedulePtr build_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, bool vec, const int* recvcounts, int recvcount, const int* displs,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    return build_inter_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, vec, recvcounts, recvcount,
                                 displs, recvtype, c);
  int p = comm_size(c);
  int me = comm_rank(c);
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) check_buf(fn, sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype");
  Ints counts;
  Ints disp;
  if (vec) {
    check_counts(fn, recvcounts, displs, p, "recvcounts", "displs");
    counts = ints_copy(recvcounts, p);
    disp = ints_copy(displs, p);
  } else {
    check_coll_count(fn, recvcount, "recvcount");
    counts = ints_equal(p, recvcount);
    disp = ints_strided(p, recvcount);
  }
  int most = 0;
  for (int n : counts) most = n > most ? n : most;
  check_buf(fn, recvbuf, most, recvtype, "recvbuf", "recvcount", "recvtype");
  std::size_t own_bytes = std::size_t(counts[std::size_t(me)]) * type_size(recvtype);
  if (!in_place && std::size_t(sendcount) * type_size(sendtype) != own_bytes) {
    fail(MPI_ERR_TRUNCATE, fn,
         "this rank's send and receive blocks differ in size (" +
             std::to_string(std::size_t(sendcount) * type_size(sendtype)) + " and " +
             std::to_string(own_bytes) + " bytes)");
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(recvcount);
  if (!vec) {
    // Equal blocks: one packed buffer of p blocks, rank i's at i * block.
    // The own block is not copied first: the algorithm sends it from the send buffer while it copies
    // it into place (a peer then reads lines nobody just wrote, and the copy overlaps the transfers).
    std::size_t block = n * type_size(recvtype);
    char* recv = v.out(recvbuf, std::size_t(p) * n, recvtype, in_place);
    CollArgs a;
    a.send = in_place ? nullptr : v.in(sendbuf, std::size_t(sendcount), sendtype);
    a.recv = recv;
    a.block = block;
    select_allgather(block, p, fn).run(*s, a);
  } else {
    Blocks b =
        v.blocks(recvbuf, counts.data(), disp.data(), nullptr, recvtype, p, false, true, in_place ? me : -1);
    if (!in_place) s->copy(v.in(sendbuf, std::size_t(sendcount), sendtype), b.at[std::size_t(me)], own_bytes);
    s->next_round();
    allgather_ring(*s, b);
  }
  v.finish();
  return s;
}

SchedulePtr build_alltoall(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) {  // p blocks to and from the remote group's p ranks
    const int m = peer_size(c);
    std::vector<int> sc(std::size_t(m), sendcount);
    std::vector<int> rc(std::size_t(m), recvcount);
    std::vector<int> sd(sc.size());
    std::vector<int> rd(rc.size());
    for (int j = 0; j < m; ++j) {
      sd[std::size_t(j)] = j * sendcount;
      rd[std::size_t(j)] = j * recvcount;
    }
    return build_inter_alltoallv(fn, sendbuf, sc.data(), sd.data(), nullptr, sendtype, recvbuf, rc.data(),
                                 rd.data(), nullptr, recvtype, false, c);
  }
  int p = comm_size(c);
  bool in_place = sendbuf == MPI_IN_PLACE;
  check_buf(fn, recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype");
  if (!in_place) {
    check_buf(fn, sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype");
    check_distinct(fn, sendbuf, recvbuf, recvcount > 0);
    if (std::size_t(sendcount) * type_size(sendtype) != std::size_t(recvcount) * type_size(recvtype)) {
      fail(MPI_ERR_TRUNCATE, fn,
           "send and receive blocks differ in size (" +
               std::to_string(std::size_t(sendcount) * type_size(sendtype)) + " and " +
               std::to_string(std::size_t(recvcount) * type_size(recvtype)) + " bytes)");
    }
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto total = std::size_t(p) * std::size_t(recvcount);
  std::size_t block = std::size_t(recvcount) * type_size(recvtype);
  char* recv = v.out(recvbuf, total, recvtype, in_place);
  const char* send = nullptr;
  if (in_place) {
    char* copy = s->scratch(std::size_t(p) * block);
    s->copy(recv, copy, std::size_t(p) * block);
    s->next_round();
    send = copy;
  } else {
    send = v.in(sendbuf, std::size_t(p) * std::size_t(sendcount), sendtype);
  }
  CollArgs a;
  a.send = send;
  a.recv = recv;
  a.block = block;
  select_alltoall(block, p, fn).run(*s, a);
  v.finish();
  return s;
}

SchedulePtr build_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts, const int* sdispls,
                            const MPI_Datatype* sendtypes, MPI_Datatype sendtype, void* recvbuf,
                            const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c))
    return build_inter_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtypes, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtypes, recvtype, recvtypes != nullptr || sendtypes != nullptr,
                                 c);
  int p = comm_size(c);
  int me = comm_rank(c);
  bool is_w = recvtypes != nullptr || sendtypes != nullptr;
  bool in_place = sendbuf == MPI_IN_PLACE;
  check_counts(fn, recvcounts, rdispls, p, "recvcounts", "rdispls");
  if (is_w && recvtypes == nullptr) fail(MPI_ERR_ARG, fn, "recvtypes is NULL");
  for (int i = 0; i < p; ++i) {
    MPI_Datatype t = is_w ? recvtypes[i] : recvtype;
    std::string arg = is_w ? "recvtypes[" + str(i) + "]" : std::string("recvtype");
    check_buf(fn, recvbuf, recvcounts[i], t, "recvbuf", "recvcounts", arg.c_str());
  }
  if (!in_place) {
    check_counts(fn, sendcounts, sdispls, p, "sendcounts", "sdispls");
    if (is_w && sendtypes == nullptr) fail(MPI_ERR_ARG, fn, "sendtypes is NULL");
    for (int i = 0; i < p; ++i) {
      MPI_Datatype t = is_w ? sendtypes[i] : sendtype;
      std::string arg = is_w ? "sendtypes[" + str(i) + "]" : std::string("sendtype");
      check_buf(fn, sendbuf, sendcounts[i], t, "sendbuf", "sendcounts", arg.c_str());
    }
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  Blocks rb = v.blocks(recvbuf, recvcounts, rdispls, recvtypes, recvtype, p, is_w, true, -1);
  Blocks sb;
  if (in_place) {
    // The data to send is the receive buffer's: copy it (packed) before anything arrives.
    for (int i = 0; i < p; ++i) {
      MPI_Datatype t = is_w ? recvtypes[i] : recvtype;
      MPI_Aint d = is_w ? MPI_Aint(rdispls[i]) : MPI_Aint(rdispls[i]) * type_extent(t);
      auto n = std::size_t(recvcounts[i]);
      char* copy = s->scratch(n * type_size(t));
      s->pack(static_cast<char*>(recvbuf) + d, n, t, copy);
      sb.at.push_back(copy);
      sb.bytes.push_back(n * type_size(t));
    }
  } else {
    sb = v.blocks(const_cast<void*>(sendbuf), sendcounts, sdispls, sendtypes, sendtype, p, is_w, false);
  }
  if (sb.bytes[std::size_t(me)] != rb.bytes[std::size_t(me)]) {
    fail(MPI_ERR_TRUNCATE, fn,
         "this rank's block to itself differs in size (sent " + std::to_string(sb.bytes[std::size_t(me)]) +
             ", received " + std::to_string(rb.bytes[std::size_t(me)]) + " bytes)");
  }
  alltoall_pairwise(*s, sb, rb);
  v.finish();
  return s;
}

}  // namespace takyon::mpi
