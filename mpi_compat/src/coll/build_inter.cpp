// SPDX-License-Identifier: MIT
// Collectives on intercommunicators (see build_inter.hpp).
#include "coll/build_inter.hpp"

#include <memory>
#include <string>
#include <vector>

#include "coll/build_args.hpp"
#include "datatype/datatype.hpp"
#include "errors.hpp"
#include "op/op.hpp"

namespace takyon::mpi {
namespace {

/// The part this process plays in a rooted collective on an intercommunicator.
enum class Role { kRoot, kIdle, kLeaf };

Role check_inter_root(const char* fn, const CommInfo& c, int root) {
  if (root == MPI_ROOT) return Role::kRoot;
  if (root == MPI_PROC_NULL) return Role::kIdle;
  const int m = int(c.remote.size());
  if (root < 0 || root >= m) {
    fail(MPI_ERR_ROOT, fn,
         "invalid root " + std::to_string(root) +
             " (argument root: MPI_ROOT, MPI_PROC_NULL or a rank of the remote group, whose size is " +
             std::to_string(m) + ")");
  }
  return Role::kLeaf;
}

void no_in_place(const char* fn, const void* buf, const char* arg) {
  if (buf == MPI_IN_PLACE) {
    fail(MPI_ERR_BUFFER, fn,
         std::string("MPI_IN_PLACE is not allowed on an intercommunicator (argument ") + arg + ")");
  }
}

int remote_size(const CommInfo& c) {
  return int(c.remote.size());
}

/// Receives one vector of `count` items of dt from every remote rank and leaves their reduction,
/// in remote rank order (x0 op (x1 op ...)), in `out` (packed). Appends a round of its own.
void reduce_from_remote(Schedule& s, char* out, std::size_t count, MPI_Datatype dt, MPI_Op op,
                        std::size_t first = 0, std::size_t whole = 0) {
  const int m = remote_size(s.comm());
  const std::size_t item = type_size(dt);
  const std::size_t per_peer = (whole == 0 ? count : whole) * item;
  // The last rank's vector lands in `out` when it is the whole message; the others in scratch.
  const bool direct = whole == 0;
  std::vector<char*> got(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) {
    got[std::size_t(j)] = direct && j == m - 1 ? out : s.scratch(per_peer);
    s.recv(j, got[std::size_t(j)], per_peer);
  }
  s.next_round();
  if (!direct) s.copy(got[std::size_t(m - 1)] + first * item, out, count * item);
  for (int j = m - 2; j >= 0; --j) s.reduce(got[std::size_t(j)] + first * item, out, count, dt, op);
  s.next_round();
}

}  // namespace

SchedulePtr build_inter_barrier(const char* fn, CommInfo& c) {
  // Every process hears from every remote one: nobody leaves before the other group has entered.
  auto s = std::make_unique<Schedule>(c, fn);
  for (int j = 0; j < remote_size(c); ++j) {
    s->recv(j, nullptr, 0);
    s->send(j, nullptr, 0);
  }
  s->next_round();
  return s;
}

SchedulePtr build_inter_bcast(const char* fn, void* buf, int count, MPI_Datatype dt, int root, CommInfo& c) {
  const Role role = check_inter_root(fn, c, root);
  if (role != Role::kIdle) check_buf(fn, buf, count, dt, "buffer", "count", "datatype");
  auto s = std::make_unique<Schedule>(c, fn);
  if (role == Role::kIdle) return s;
  Views v(*s);
  auto n = std::size_t(count);
  const std::size_t bytes = n * type_size(dt);
  if (role == Role::kRoot) {
    const char* data = v.in(buf, n, dt);
    for (int j = 0; j < remote_size(c); ++j) s->send(j, data, bytes);
  } else {
    s->recv(root, v.out(buf, n, dt, false), bytes);
  }
  s->next_round();
  v.finish();
  return s;
}

SchedulePtr build_inter_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt,
                               MPI_Op op, int root, CommInfo& c) {
  const Role role = check_inter_root(fn, c, root);
  check_reduction(fn, count, dt, op);
  if (role == Role::kRoot) {
    no_in_place(fn, recvbuf, "recvbuf");
    check_buf(fn, recvbuf, count, dt, "recvbuf", "count", "datatype");
  }
  if (role == Role::kLeaf) {
    no_in_place(fn, sendbuf, "sendbuf");
    check_buf(fn, sendbuf, count, dt, "sendbuf", "count", "datatype");
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  if (role == Role::kRoot) {
    reduce_from_remote(*s, v.out(recvbuf, n, dt, false), n, dt, op);
  } else if (role == Role::kLeaf) {
    s->send(root, v.in(sendbuf, n, dt), n * type_size(dt));
    s->next_round();
  }
  v.finish();
  return s;
}

SchedulePtr build_inter_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype dt, MPI_Op op, CommInfo& c) {
  check_reduction(fn, count, dt, op);
  no_in_place(fn, sendbuf, "sendbuf");
  check_buf(fn, recvbuf, count, dt, "recvbuf", "count", "datatype");
  check_buf(fn, sendbuf, count, dt, "sendbuf", "count", "datatype");
  check_distinct(fn, sendbuf, recvbuf, count > 0);
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  auto n = std::size_t(count);
  const char* send = v.in(sendbuf, n, dt);
  for (int j = 0; j < remote_size(c); ++j) s->send(j, send, n * type_size(dt));
  reduce_from_remote(*s, v.out(recvbuf, n, dt, false), n, dt, op);
  v.finish();
  return s;
}

SchedulePtr build_inter_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, bool vec,
                                       const int* recvcounts, int recvcount, MPI_Datatype dt, MPI_Op op,
                                       CommInfo& c) {
  // Each group's vectors have as many items as the other group's counts add up to (MPI requires
  // it), so a remote process's block i is known here for equal blocks; with counts, each process
  // receives the remote vectors whole and reduces its own block.
  const int n = comm_size(c);
  const int me = comm_rank(c);
  const int m = remote_size(c);
  std::size_t total = 0;
  std::size_t first = 0;
  int mine = recvcount;
  if (vec) {
    check_counts(fn, recvcounts, nullptr, n, "recvcounts", nullptr);
    for (int i = 0; i < n; ++i) {
      if (i == me) first = total;
      total += std::size_t(recvcounts[i]);
    }
    mine = recvcounts[me];
  } else {
    check_coll_count(fn, recvcount, "recvcount");
    total = std::size_t(n) * std::size_t(recvcount);
    first = std::size_t(me) * std::size_t(recvcount);
  }
  if (total > std::size_t(0x7fffffff))
    fail(MPI_ERR_COUNT, fn, "the counts add up to more than INT_MAX items");
  check_reduction(fn, int(total), dt, op);
  no_in_place(fn, sendbuf, "sendbuf");
  check_buf(fn, recvbuf, mine, dt, "recvbuf", vec ? "recvcounts" : "recvcount", "datatype");
  check_buf(fn, sendbuf, int(total), dt, "sendbuf", vec ? "recvcounts" : "recvcount", "datatype");
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  const std::size_t item = type_size(dt);
  const char* send = v.in(sendbuf, total, dt);
  char* recv = v.out(recvbuf, std::size_t(mine), dt, false);
  if (!vec) {
    if (total % std::size_t(m) != 0) {
      fail(MPI_ERR_COUNT, fn,
           "the send vector's " + std::to_string(static_cast<long long>(total)) +
               " items do not split into the remote group's " + std::to_string(m) +
               " blocks (both groups' vectors must have the same length)");
    }
    const std::size_t block = total / std::size_t(m);  // the remote group's recvcount
    for (int j = 0; j < m; ++j) s->send(j, send + std::size_t(j) * block * item, block * item);
    reduce_from_remote(*s, recv, std::size_t(mine), dt, op);
  } else {
    for (int j = 0; j < m; ++j) s->send(j, send, total * item);
    reduce_from_remote(*s, recv, std::size_t(mine), dt, op, first, total);
  }
  v.finish();
  return s;
}

namespace {

/// The root's blocks of a gather(v) or scatter(v) on an intercommunicator: one per remote process,
/// `count` items each at j * count (or counts[j] at displs[j] for the v-forms), checked.
struct RootLayout {
  std::vector<int> counts;
  std::vector<int> disp;
};
struct RootArgs {
  const char* buf;
  const char* counts;
  const char* count;
  const char* type;
};
RootLayout root_layout(const char* fn, const void* buf, bool vec, const int* vcounts, int count,
                       const int* displs, MPI_Datatype type, int m, const RootArgs& arg) {
  no_in_place(fn, buf, arg.buf);
  RootLayout out{std::vector<int>(std::size_t(m), count), std::vector<int>(std::size_t(m))};
  if (vec) {
    check_counts(fn, vcounts, displs, m, arg.counts, "displs");
    out.counts.assign(vcounts, vcounts + m);
    out.disp.assign(displs, displs + m);
  } else {
    check_coll_count(fn, count, arg.count);
    for (int j = 0; j < m; ++j) out.disp[std::size_t(j)] = j * count;
  }
  int most = 0;
  for (int k : out.counts) most = k > most ? k : most;
  check_buf(fn, buf, most, type, arg.buf, arg.count, arg.type);
  return out;
}

}  // namespace

SchedulePtr build_inter_gather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, bool vec, const int* recvcounts, int recvcount,
                               const int* displs, MPI_Datatype recvtype, int root, CommInfo& c) {
  const Role role = check_inter_root(fn, c, root);
  const int m = remote_size(c);
  RootLayout root_side;
  if (role == Role::kRoot) {
    root_side = root_layout(fn, recvbuf, vec, recvcounts, recvcount, displs, recvtype, m,
                            {"recvbuf", "recvcounts", "recvcount", "recvtype"});
  } else if (role == Role::kLeaf) {
    no_in_place(fn, sendbuf, "sendbuf");
    check_buf(fn, sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype");
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  if (role == Role::kRoot) {
    Blocks b =
        v.blocks(recvbuf, root_side.counts.data(), root_side.disp.data(), nullptr, recvtype, m, false, true);
    for (int j = 0; j < m; ++j) s->recv(j, b.at[std::size_t(j)], b.bytes[std::size_t(j)]);
  } else if (role == Role::kLeaf) {
    s->send(root, v.in(sendbuf, std::size_t(sendcount), sendtype),
            std::size_t(sendcount) * type_size(sendtype));
  }
  s->next_round();
  v.finish();
  return s;
}

SchedulePtr build_inter_scatter(const char* fn, const void* sendbuf, bool vec, const int* sendcounts,
                                int sendcount, const int* displs, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, CommInfo& c) {
  const Role role = check_inter_root(fn, c, root);
  const int m = remote_size(c);
  RootLayout root_side;
  if (role == Role::kRoot) {
    root_side = root_layout(fn, sendbuf, vec, sendcounts, sendcount, displs, sendtype, m,
                            {"sendbuf", "sendcounts", "sendcount", "sendtype"});
  } else if (role == Role::kLeaf) {
    no_in_place(fn, recvbuf, "recvbuf");
    check_buf(fn, recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype");
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  if (role == Role::kRoot) {
    Blocks b = v.blocks(const_cast<void*>(sendbuf), root_side.counts.data(), root_side.disp.data(), nullptr,
                        sendtype, m, false, false);
    for (int j = 0; j < m; ++j) s->send(j, b.at[std::size_t(j)], b.bytes[std::size_t(j)]);
  } else if (role == Role::kLeaf) {
    s->recv(root, v.out(recvbuf, std::size_t(recvcount), recvtype, false),
            std::size_t(recvcount) * type_size(recvtype));
  }
  s->next_round();
  v.finish();
  return s;
}

SchedulePtr build_inter_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, bool vec, const int* recvcounts, int recvcount,
                                  const int* displs, MPI_Datatype recvtype, CommInfo& c) {
  const int m = remote_size(c);
  no_in_place(fn, sendbuf, "sendbuf");
  check_buf(fn, sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype");
  std::vector<int> counts(std::size_t(m), recvcount);
  std::vector<int> disp(counts.size());
  if (vec) {
    check_counts(fn, recvcounts, displs, m, "recvcounts", "displs");
    counts.assign(recvcounts, recvcounts + m);
    disp.assign(displs, displs + m);
  } else {
    check_coll_count(fn, recvcount, "recvcount");
    for (int j = 0; j < m; ++j) disp[std::size_t(j)] = j * recvcount;
  }
  int most = 0;
  for (int k : counts) most = k > most ? k : most;
  check_buf(fn, recvbuf, most, recvtype, "recvbuf", "recvcount", "recvtype");
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  Blocks b = v.blocks(recvbuf, counts.data(), disp.data(), nullptr, recvtype, m, false, true);
  const char* send = v.in(sendbuf, std::size_t(sendcount), sendtype);
  const std::size_t send_bytes = std::size_t(sendcount) * type_size(sendtype);
  for (int j = 0; j < m; ++j) {
    s->recv(j, b.at[std::size_t(j)], b.bytes[std::size_t(j)]);
    s->send(j, send, send_bytes);
  }
  s->next_round();
  v.finish();
  return s;
}

SchedulePtr build_inter_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts,
                                  const int* sdispls, const MPI_Datatype* sendtypes, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* rdispls,
                                  const MPI_Datatype* recvtypes, MPI_Datatype recvtype, bool byte_displs,
                                  CommInfo& c) {
  const int m = remote_size(c);
  const bool is_w = recvtypes != nullptr || sendtypes != nullptr;
  no_in_place(fn, sendbuf, "sendbuf");
  check_counts(fn, recvcounts, rdispls, m, "recvcounts", "rdispls");
  check_counts(fn, sendcounts, sdispls, m, "sendcounts", "sdispls");
  if (is_w && (recvtypes == nullptr || sendtypes == nullptr))
    fail(MPI_ERR_ARG, fn, "sendtypes or recvtypes is NULL");
  for (int j = 0; j < m; ++j) {
    check_buf(fn, recvbuf, recvcounts[j], is_w ? recvtypes[j] : recvtype, "recvbuf", "recvcounts",
              is_w ? "recvtypes" : "recvtype");
    check_buf(fn, sendbuf, sendcounts[j], is_w ? sendtypes[j] : sendtype, "sendbuf", "sendcounts",
              is_w ? "sendtypes" : "sendtype");
  }
  auto s = std::make_unique<Schedule>(c, fn);
  Views v(*s);
  Blocks rb = v.blocks(recvbuf, recvcounts, rdispls, recvtypes, recvtype, m, byte_displs, true);
  Blocks sb =
      v.blocks(const_cast<void*>(sendbuf), sendcounts, sdispls, sendtypes, sendtype, m, byte_displs, false);
  for (int j = 0; j < m; ++j) {
    s->recv(j, rb.at[std::size_t(j)], rb.bytes[std::size_t(j)]);
    s->send(j, sb.at[std::size_t(j)], sb.bytes[std::size_t(j)]);
  }
  s->next_round();
  v.finish();
  return s;
}

}  // namespace takyon::mpi
