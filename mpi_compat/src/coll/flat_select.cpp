// SPDX-License-Identifier: MIT
// Argument screens and packing of the flat blocking collectives (see flat_select.hpp).
#include "coll/flat_select.hpp"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "coll/flat.hpp"
#include "coll/select.hpp"
#include "comm/comm.hpp"
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

/// What the flat path needs of a datatype (ok: it is valid for communication).
struct TypeFacts {
  std::size_t size = 0;
  MPI_Aint lb = 0;
  std::size_t max_items = 0;  ///< more items overflow 64 bits (the full path's checks report it)
  bool contiguous = false;
  bool ok = false;
};

/// A datatype's facts; those of predefined types (handles below 0x400, mpi.h's constants; user
/// handles are addresses) are remembered, as they never change: the lookups cost a good part of a
/// small flat collective otherwise.
TypeFacts facts(MPI_Datatype dt) {
  static TypeFacts predefined[0x400];
  auto v = reinterpret_cast<std::uintptr_t>(dt);
  if (v < 0x400 && predefined[v].ok) return predefined[v];
  TypeFacts f;
  if (!type_ok(dt)) return f;
  f.size = type_size(dt);
  f.lb = type_lb(dt);
  f.max_items = type_max_items(dt);
  f.contiguous = type_is_contiguous(dt);
  f.ok = true;
  if (v < 0x400) predefined[v] = f;
  return f;
}

/// count items of dt at buf, as build.cpp's check_buf accepts them, and few enough bytes that p blocks
/// of them cannot overflow (the flat path is for small data; the full path reports a count that
/// overflows).
bool buf_ok(const void* buf, int count, const TypeFacts& t) {
  constexpr std::size_t kMostFlatBytes = std::size_t(1) << 32;
  if (count < 0 || !t.ok || buf == MPI_IN_PLACE || std::size_t(count) > t.max_items) return false;
  if (std::size_t(count) * t.size > kMostFlatBytes) return false;
  return buf != nullptr || count == 0 || t.size == 0;
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

std::size_t bytes_of(int count, const TypeFacts& t) {
  return std::size_t(count) * t.size;
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
std::vector<char>& scratch_whole() {  // flat_reduce_scatter's reduced vector
  static std::vector<char> v;
  return v;
}

const char* packed_in(const void* buf, std::size_t count, MPI_Datatype dt, const TypeFacts& t) {
  if (count == 0) return static_cast<const char*>(buf);
  if (t.contiguous) return static_cast<const char*>(buf) + t.lb;
  std::vector<char>& v = scratch_in();
  v.resize(count * t.size);
  pack(buf, count, dt, v.data());
  return v.data();
}

/// `keep`: the packed view starts with the buffer's data (in place).
char* packed_out(void* buf, std::size_t count, MPI_Datatype dt, const TypeFacts& t, bool keep) {
  if (count == 0) return static_cast<char*>(buf);
  if (t.contiguous) return static_cast<char*>(buf) + t.lb;
  std::vector<char>& v = scratch_out();
  v.resize(count * t.size);
  if (keep) pack(buf, count, dt, v.data());
  return v.data();
}

void finish_out(void* buf, std::size_t count, MPI_Datatype dt, const TypeFacts& t) {
  if (count == 0 || t.contiguous) return;
  unpack(scratch_out().data(), count * t.size, count, dt, buf);
}

bool fits(const CommInfo& c, Coll k, std::size_t bytes, int p, const char* fn) {
  return bytes <= flat::max_publish(c) && select_flat(k, bytes, p, fn);
}

}  // namespace

bool flat_barrier(CommInfo& c) {
  if (!flat::usable(c) || !fits(c, Coll::kBarrier, 0, comm_size(c), "MPI_Barrier")) return false;
  flat::barrier(c, "MPI_Barrier");
  return true;
}

bool flat_bcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  const char* fn = "MPI_Bcast";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const TypeFacts t = facts(dt);
  if (!buf_ok(buf, count, t)) return false;
  const int p = comm_size(*c);
  const std::size_t bytes = bytes_of(count, t);
  if (root < 0 || root >= p || !fits(*c, Coll::kBcast, bytes, p, fn)) return false;
  auto n = std::size_t(count);
  if (comm_rank(*c) == root) {
    flat::bcast(*c, fn, const_cast<char*>(packed_in(buf, n, dt, t)), bytes, root);
  } else {
    flat::bcast(*c, fn, packed_out(buf, n, dt, t, false), bytes, root);
    finish_out(buf, n, dt, t);
  }
  return true;
}

bool flat_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, bool all) {
  const char* fn = all ? "MPI_Allreduce" : "MPI_Reduce";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr || count < 0) return false;
  const TypeFacts t = facts(dt);
  if (!t.ok || !op_ok(op, dt)) return false;
  const int p = comm_size(*c);
  if (!all && (root < 0 || root >= p)) return false;
  const bool gets = all || comm_rank(*c) == root;  // this rank receives the result
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !gets) return false;
  if (gets && !buf_ok(recvbuf, count, t)) return false;
  if (!in_place && !buf_ok(sendbuf, count, t)) return false;
  if (gets && !in_place && count > 0 && sendbuf == recvbuf) return false;
  if (!fits(*c, all ? Coll::kAllreduce : Coll::kReduce, bytes_of(count, t), p, fn)) return false;
  auto n = std::size_t(count);
  char* recv = gets ? packed_out(recvbuf, n, dt, t, in_place) : nullptr;
  const char* send = in_place ? recv : packed_in(sendbuf, n, dt, t);
  ReduceSpec r{n, dt, op, t.size};
  flat::reduce(*c, fn, send, recv, r, root, all);
  if (gets) finish_out(recvbuf, n, dt, t);
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
  const TypeFacts st = in_place ? TypeFacts{} : facts(sendtype);
  const TypeFacts rt = is_root ? facts(recvtype) : TypeFacts{};
  if (!in_place && !buf_ok(sendbuf, sendcount, st)) return false;
  if (is_root && !buf_ok(recvbuf, recvcount, rt)) return false;
  if (is_root && !in_place && bytes_of(sendcount, st) != bytes_of(recvcount, rt)) return false;
  std::size_t block = is_root ? bytes_of(recvcount, rt) : bytes_of(sendcount, st);
  if (!fits(*c, Coll::kGather, block, p, fn)) return false;
  const char* send = in_place ? nullptr : packed_in(sendbuf, std::size_t(sendcount), sendtype, st);
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  if (is_root && all > rt.max_items) return false;  // the full path reports it (all ranks agree on p x block)
  char* recv = is_root ? packed_out(recvbuf, all, recvtype, rt, in_place) : nullptr;
  flat::gather(*c, fn, send, recv, block, root);
  if (is_root) finish_out(recvbuf, all, recvtype, rt);
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
  const TypeFacts st = is_root ? facts(sendtype) : TypeFacts{};
  const TypeFacts rt = in_place ? TypeFacts{} : facts(recvtype);
  if (!in_place && !buf_ok(recvbuf, recvcount, rt)) return false;
  if (is_root && !buf_ok(sendbuf, sendcount, st)) return false;
  if (is_root && !in_place && bytes_of(sendcount, st) != bytes_of(recvcount, rt)) return false;
  std::size_t block = is_root ? bytes_of(sendcount, st) : bytes_of(recvcount, rt);
  if (!fits(*c, Coll::kScatter, block * std::size_t(p), p, fn)) return false;
  if (is_root && std::size_t(p) * std::size_t(sendcount) > st.max_items) return false;
  const char* send =
      is_root ? packed_in(sendbuf, std::size_t(p) * std::size_t(sendcount), sendtype, st) : nullptr;
  char* recv = in_place ? nullptr : packed_out(recvbuf, std::size_t(recvcount), recvtype, rt, false);
  flat::scatter(*c, fn, send, recv, block, root);
  if (!in_place) finish_out(recvbuf, std::size_t(recvcount), recvtype, rt);
  return true;
}

bool flat_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Allgather";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const TypeFacts st = in_place ? TypeFacts{} : facts(sendtype);
  const TypeFacts rt = facts(recvtype);
  if (!in_place && !buf_ok(sendbuf, sendcount, st)) return false;
  if (!buf_ok(recvbuf, recvcount, rt)) return false;
  const std::size_t block = bytes_of(recvcount, rt);
  if (!in_place && bytes_of(sendcount, st) != block) return false;
  if (!fits(*c, Coll::kAllgather, block, p, fn)) return false;
  const char* send = in_place ? nullptr : packed_in(sendbuf, std::size_t(sendcount), sendtype, st);
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  if (all > rt.max_items) return false;
  char* recv = packed_out(recvbuf, all, recvtype, rt, in_place);
  flat::allgather(*c, fn, send, recv, block);
  finish_out(recvbuf, all, recvtype, rt);
  return true;
}

bool flat_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const char* fn = "MPI_Alltoall";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr) return false;
  const int p = comm_size(*c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const TypeFacts rt = facts(recvtype);
  const TypeFacts st = in_place ? TypeFacts{} : facts(sendtype);
  if (!buf_ok(recvbuf, recvcount, rt)) return false;
  const std::size_t block = bytes_of(recvcount, rt);
  if (!in_place) {
    if (!buf_ok(sendbuf, sendcount, st) || (recvcount > 0 && sendbuf == recvbuf)) return false;
    if (bytes_of(sendcount, st) != block) return false;
  }
  if (!fits(*c, Coll::kAlltoall, block * std::size_t(p), p, fn)) return false;
  if (!in_place && std::size_t(p) * std::size_t(sendcount) > st.max_items) return false;
  const std::size_t all = std::size_t(p) * std::size_t(recvcount);
  if (all > rt.max_items) return false;
  char* recv = packed_out(recvbuf, all, recvtype, rt, in_place);
  const char* send =
      in_place ? recv : packed_in(sendbuf, std::size_t(p) * std::size_t(sendcount), sendtype, st);
  flat::alltoall(*c, fn, send, recv, block);
  finish_out(recvbuf, all, recvtype, rt);
  return true;
}

bool flat_reduce_scatter(const void* sendbuf, void* recvbuf, bool counted, const int* recvcounts, int block,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  const char* fn = counted ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
  CommInfo* c = flat_comm(comm);
  if (c == nullptr || (counted && recvcounts == nullptr)) return false;
  const TypeFacts t = facts(dt);
  if (!t.ok || !op_ok(op, dt)) return false;
  const int p = comm_size(*c);
  const int me = comm_rank(*c);
  std::size_t total = 0;  // items of the whole vector
  std::size_t first = 0;  // items before this rank's block
  std::size_t mine = 0;
  for (int i = 0; i < p; ++i) {
    const int n = counted ? recvcounts[i] : block;
    if (n < 0) return false;
    if (i < me) first += std::size_t(n);
    if (i == me) mine = std::size_t(n);
    total += std::size_t(n);
  }
  if (total > std::size_t(INT_MAX)) return false;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!buf_ok(in_place ? recvbuf : sendbuf, int(total), t) || !buf_ok(recvbuf, int(mine), t)) return false;
  if (!in_place && mine > 0 && sendbuf == recvbuf) return false;
  if (!fits(*c, Coll::kReduceScatter, bytes_of(int(total), t), p, fn)) return false;
  // The whole vector reduced on every rank (one flat allreduce: the same bits everywhere, any op),
  // then this rank's block kept: at these sizes moving p blocks costs no more than moving one.
  std::vector<char>& whole = scratch_whole();
  whole.resize(total * t.size);
  const char* send = packed_in(in_place ? recvbuf : sendbuf, total, dt, t);
  ReduceSpec r{total, dt, op, t.size};
  flat::reduce(*c, fn, send, whole.data(), r, 0, true);
  char* out = packed_out(recvbuf, mine, dt, t, false);
  if (mine > 0) std::memcpy(out, whole.data() + first * t.size, mine * t.size);
  finish_out(recvbuf, mine, dt, t);
  return true;
}

}  // namespace takyon::mpi
