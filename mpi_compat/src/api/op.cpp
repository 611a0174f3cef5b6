// SPDX-License-Identifier: MIT
// MPI_Op_create, MPI_Op_free, MPI_Op_commutative and MPI_Reduce_local (op/op.hpp).
#include <string>
#include <vector>

#include "api/common.hpp"
#include "api/export.hpp"
#include "datatype/datatype.hpp"
#include "op/op.hpp"

using namespace takyon::mpi;

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  const char* fn = "MPI_Op_create";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (user_fn == nullptr) fail(MPI_ERR_ARG, fn, "user_fn is NULL");
    if (op == nullptr) fail(MPI_ERR_ARG, fn, "op is NULL");
    *op = create_user_op(user_fn, commute != 0);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Op_create)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  const char* fn = "MPI_Op_free";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (op == nullptr) fail(MPI_ERR_ARG, fn, "op is NULL");
    if (*op == MPI_OP_NULL) fail(MPI_ERR_OP, fn, "invalid op MPI_OP_NULL (argument op)");
    free_user_op(*op, fn);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  const char* fn = "MPI_Op_commutative";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (commute == nullptr) fail(MPI_ERR_ARG, fn, "commute is NULL");
    check_op_handle(op, fn);
    *commute = op_commutative(op) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Op_commutative)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                                 MPI_Op op) {
  const char* fn = "MPI_Reduce_local";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (count < 0) fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument count)");
    if (datatype == MPI_DATATYPE_NULL)
      fail(MPI_ERR_TYPE, fn, "invalid datatype MPI_DATATYPE_NULL (argument datatype)");
    check_type(datatype, fn);
    const std::size_t bytes = items_bytes(datatype, std::size_t(count), fn, "count");
    check_op(op, datatype, fn);
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
      fail(MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed here");
    if (count > 0 && (inbuf == nullptr || inoutbuf == nullptr)) {
      fail(MPI_ERR_BUFFER, fn, "inbuf or inoutbuf is NULL with count " + std::to_string(count));
    }
    if (!reduces_packed(op, datatype))
      fail(MPI_ERR_TYPE, fn, "reductions need a predefined or contiguous datatype (argument datatype)");
    if (!type_is_contiguous(datatype)) {  // a pair type with padding: the kernels take packed pairs
      std::vector<char> a(bytes);
      std::vector<char> b(bytes);
      pack(inbuf, std::size_t(count), datatype, a.data());
      pack(inoutbuf, std::size_t(count), datatype, b.data());
      apply_op(op, datatype, a.data(), b.data(), std::size_t(count));
      unpack(b.data(), bytes, std::size_t(count), datatype, inoutbuf);
      return MPI_SUCCESS;
    }
    MPI_Aint lb = type_lb(datatype);
    apply_op(op, datatype, static_cast<const char*>(inbuf) + lb, static_cast<char*>(inoutbuf) + lb,
             std::size_t(count));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Reduce_local)
