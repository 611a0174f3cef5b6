// SPDX-License-Identifier: MIT
// Argument screens and packing of the flat blocking collectives (see coll_flat.hpp).
#include "api/coll_flat.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/flat.hpp"
#include "coll/select.hpp"
#include "comm_basic.hpp"
#include "datatype/datatype.hpp"
#include "errors.hpp"
#include "op/op.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

/// The communicator, if it is valid and can run flat.
CommInfo* flat_comm(MPI_Comm comm) {
  if (!runtime_active()) return nullptr;
  CommInfo* c = find_comm(comm);
  return c != nullptr && flat::usable(*c) ? c : nullptr;
}

bool type_ok(MPI_Datatype dt) {
  if (dt == MPI_DATATYPE_NULL) return false;
  try {
    check_type(dt, "");
  } catch (const MpiError&) {
    return false;
  }
  return true;
}

/// count items of dt at buf, as coll_build.cpp's check_buf accepts them.
bool buf_ok(const void* buf, int count, MPI_Datatype dt) {
  if (count < 0 || !type_ok(dt) || buf == MPI_IN_PLACE) return false;
  return buf != nullptr || count == 0 || type_size(dt) == 0;
}

bool is_predefined_handle(const void* h) {
  return reinterpret_cast<std::uintptr_t>(h) < 0x1000;  // mpi.h's constants; user handles are addresses
}

bool op_ok(MPI_Op op, MPI_Datatype dt) {
  // A predefined op on a predefined type stays valid: remember the last such pair (the checks cost
  // a good part of a small flat reduction).
  static MPI_Op ok_op = MPI_OP_NULL;
  static MPI_Datatype ok_dt = MPI_DATATYPE_NULL;
  if (op == ok_op && dt == ok_dt) return true;
  try {
    check_op(op, dt, "");
  } catch (const MpiError&) {
    return false;
  }
  if (!reduces_packed(op, dt)) return false;
  if (is_predefined_handle(op) && is_predefined_handle(dt)) {
    ok_op = op;
    ok_dt = dt;
  }
  return true;
}

std::size_t bytes_of(int count, MPI_Datatype dt) {
  return std::size_t(count) * type_size(dt);
}

/// Packed views of user buffers: contiguous datatypes in place, others through scratch kept between
/// calls (no allocation per call).
std::vector<char>& scratch_in() {
  static std::vector<char> v;
  return v;
}
std::vector<char>& scratch_out() {
  static std::vector<char> v;
  return v;
}

const char* packed_in(const void* buf, std::size_t count, MPI_Datatype dt) {
  if (count == 0) return static_cast<const char*>(buf);
  if (type_is_contiguous(dt)) return static_cast<const char*>(buf) + type_lb(dt);
  std::vector<char>& v = scratch_in();
  v.resize(count * type_size(dt));
  pack(buf, count, dt, v.data());
  return v.data();
}

/// `keep`: the packed view starts with the buffer's data (in place).
char* packed_out(void* buf, std::size_t count, MPI_Datatype dt, bool keep) {
  if (count == 0) return static_cast<char*>(buf);
  if (type_is_contiguous(dt)) return static_cast<char*>(buf) + type_lb(dt);
  std::vector<char>& v = scratch_out();
  v.resize(count * type_size(dt));
  if (keep) pack(buf, count, dt, v.data());
  return v.data();
}

void finish_out(void* buf, std::size_t count, MPI_Datatype dt) {
  if (count == 0 || type_is_contiguous(dt)) return;
  unpack(scratch_out().data(), count * type_size(dt), count, dt, buf);
}

bool fits(FlatColl k, std::size_t bytes, int p, const char* fn) {
  return bytes <= flat::kMaxPublish && select_flat(k, bytes, p, fn);
}

}  // namespace

bool flat_barrier(MPI_Comm comm) {
  CommInfo* c = flat_comm(comm);
  if (c == nullptr || !fits(FlatColl::kBarrier, 0, comm_size(*c), "MPI_Barrier")) return false;
  flat::barrier(*c, "MPI_Barrier");
  return true;
}

bool flat_bcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  const char* fn = "MPI_Bcast";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr || !buf_ok(buf, count, dt)) return false;
  const int p = comm_size(*c);
  if (root < 0 || root >= p || !fits(FlatColl::kBcast, bytes_of(count, dt), p, fn)) return false;
  auto n = std::size_t(count);
  if (comm_rank(*c) == root) {
    flat::bcast(*c, fn, const_cast<char*>(packed_in(buf, n, dt)), bytes_of(count, dt), root);
  } else {
    flat::bcast(*c, fn, packed_out(buf, n, dt, false), bytes_of(count, dt), root);
    finish_out(buf, n, dt);
  }
  return true;
}

bool flat_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, bool all) {
  const char* fn = all ? "MPI_Allreduce" : "MPI_Reduce";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr || count < 0 || !type_ok(dt) || !op_ok(op, dt)) return false;
  const int p = comm_size(*c);
  if (!all && (root < 0 || root >= p)) return false;
  const bool gets = all || comm_rank(*c) == root;  // this rank receives the result
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !gets) return false;
  if (gets && !buf_ok(recvbuf, count, dt)) return false;
  if (!in_place && !buf_ok(sendbuf, count, dt)) return false;
  if (gets && !in_place && count > 0 && sendbuf == recvbuf) return false;
  if (!fits(all ? FlatColl::kAllreduce : FlatColl::kReduce, bytes_of(count, dt), p, fn)) return false;
  auto n = std::size_t(count);
  char* recv = gets ? packed_out(recvbuf, n, dt, in_place) : nullptr;
  const char* send = in_place ? recv : packed_in(sendbuf, n, dt);
  ReduceSpec r{n, dt, op, type_size(dt)};
  flat::reduce(*c, fn, send, recv, r, root, all);
  if (gets) finish_out(recvbuf, n, dt);
  return true;
}

bool flat_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Gather";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  if (root < 0 || root >= p) return false;
  const bool is_root = comm_rank(*c) == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return false;
  if (!in_place && !buf_ok(sendbuf, sendcount, sendtype)) return false;
  if (is_root && !buf_ok(recvbuf, recvcount, recvtype)) return false;
  if (is_root && !in_place && bytes_of(sendcount, sendtype) != bytes_of(recvcount, recvtype)) return false;
  std::size_t block = is_root ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  if (!fits(FlatColl::kGather, block, p, fn)) return false;
  const char* send = in_place ? nullptr : packed_in(sendbuf, std::size_t(sendcount), sendtype);
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  char* recv = is_root ? packed_out(recvbuf, all, recvtype, in_place) : nullptr;
  flat::gather(*c, fn, send, recv, block, root);
  if (is_root) finish_out(recvbuf, all, recvtype);
  return true;
}

bool flat_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Scatter";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  if (root < 0 || root >= p) return false;
  const bool is_root = comm_rank(*c) == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return false;
  if (!in_place && !buf_ok(recvbuf, recvcount, recvtype)) return false;
  if (is_root && !buf_ok(sendbuf, sendcount, sendtype)) return false;
  if (is_root && !in_place && bytes_of(sendcount, sendtype) != bytes_of(recvcount, recvtype)) return false;
  std::size_t block = is_root ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  if (!fits(FlatColl::kScatter, block * std::size_t(p), p, fn)) return false;
  const char* send =
      is_root ? packed_in(sendbuf, std::size_t(p) * std::size_t(sendcount), sendtype) : nullptr;
  char* recv = in_place ? nullptr : packed_out(recvbuf, std::size_t(recvcount), recvtype, false);
  flat::scatter(*c, fn, send, recv, block, root);
  if (!in_place) finish_out(recvbuf, std::size_t(recvcount), recvtype);
  return true;
}

bool flat_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Allgather";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place && !buf_ok(sendbuf, sendcount, sendtype)) return false;
  if (!buf_ok(recvbuf, recvcount, recvtype)) return false;
  const std::size_t block = bytes_of(recvcount, recvtype);
  if (!in_place && bytes_of(sendcount, sendtype) != block) return false;
  if (!fits(FlatColl::kAllgather, block, p, fn)) return false;
  const char* send = in_place ? nullptr : packed_in(sendbuf, std::size_t(sendcount), sendtype);
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  char* recv = packed_out(recvbuf, all, recvtype, in_place);
  flat::allgather(*c, fn, send, recv, block);
  finish_out(recvbuf, all, recvtype);
  return true;
}

bool flat_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Alltoall";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!buf_ok(recvbuf, recvcount, recvtype)) return false;
  const std::size_t block = bytes_of(recvcount, recvtype);
  if (!in_place) {
    if (!buf_ok(sendbuf, sendcount, sendtype) || (recvcount > 0 && sendbuf == recvbuf)) return false;
    if (bytes_of(sendcount, sendtype) != block) return false;
  }
  if (!fits(FlatColl::kAlltoall, block * std::size_t(p), p, fn)) return false;
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  char* recv = packed_out(recvbuf, all, recvtype, in_place);
  const char* send = in_place ? recv : packed_in(sendbuf, std::size_t(p) * std::size_t(sendcount), sendtype);
  flat::alltoall(*c, fn, send, recv, block);
  finish_out(recvbuf, all, recvtype);
  return true;
}

}  // namespace takyon::mpi
