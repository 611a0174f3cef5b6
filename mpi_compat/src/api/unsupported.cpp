// SPDX-License-Identifier: MIT
// Functions a program may link against that this version does not implement yet (collectives other
// than MPI_Barrier, communicator and group management, derived datatypes, reduction operations, info
// objects, topologies, matched probes, user error handlers and attributes: part 2). Each one raises
// MPI_ERR_UNSUPPORTED_OPERATION through the error handler with a message naming it. The table is
// every function mpi.h declares that no other file under api/ defines; README lists the same names.
#include "api/export.hpp"
#include "errors.hpp"

namespace {

int unsupported(const char* fn) {
  return takyon::mpi::raise_error(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION,
                                  std::string(fn) + ": not supported by this version of libtakyon_mpi "
                                                    "(point-to-point only; see the README's list)");
}

}  // namespace

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define TAKYON_MPI_UNSUPPORTED(name, params)                              \
  extern "C" int PMPI_##name params { return unsupported("MPI_" #name); } \
  TAKYON_MPI_WEAK_ALIAS(name)

// clang-format off
TAKYON_MPI_UNSUPPORTED(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Comm_remote_size, (MPI_Comm comm, int *size))
TAKYON_MPI_UNSUPPORTED(Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
TAKYON_MPI_UNSUPPORTED(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
TAKYON_MPI_UNSUPPORTED(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
TAKYON_MPI_UNSUPPORTED(Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
TAKYON_MPI_UNSUPPORTED(Type_free_keyval, (int *type_keyval))
TAKYON_MPI_UNSUPPORTED(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
TAKYON_MPI_UNSUPPORTED(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
TAKYON_MPI_UNSUPPORTED(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
TAKYON_MPI_UNSUPPORTED(Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
TAKYON_MPI_UNSUPPORTED(Type_commit, (MPI_Datatype *datatype))
TAKYON_MPI_UNSUPPORTED(Type_free, (MPI_Datatype *datatype))
TAKYON_MPI_UNSUPPORTED(Type_size, (MPI_Datatype datatype, int *size))
TAKYON_MPI_UNSUPPORTED(Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
TAKYON_MPI_UNSUPPORTED(Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
TAKYON_MPI_UNSUPPORTED(Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
TAKYON_MPI_UNSUPPORTED(Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
TAKYON_MPI_UNSUPPORTED(Type_set_name, (MPI_Datatype datatype, const char *type_name))
TAKYON_MPI_UNSUPPORTED(Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
TAKYON_MPI_UNSUPPORTED(Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
TAKYON_MPI_UNSUPPORTED(Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
// clang-format on
