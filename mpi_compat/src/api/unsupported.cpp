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
TAKYON_MPI_UNSUPPORTED(Add_error_class, (int *errorclass))
TAKYON_MPI_UNSUPPORTED(Add_error_code, (int errorclass, int *errorcode))
TAKYON_MPI_UNSUPPORTED(Add_error_string, (int errorcode, const char *string))
TAKYON_MPI_UNSUPPORTED(Comm_create_errhandler, (MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler))
TAKYON_MPI_UNSUPPORTED(Info_create, (MPI_Info *info))
TAKYON_MPI_UNSUPPORTED(Info_set, (MPI_Info info, const char *key, const char *value))
TAKYON_MPI_UNSUPPORTED(Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
TAKYON_MPI_UNSUPPORTED(Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
TAKYON_MPI_UNSUPPORTED(Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
TAKYON_MPI_UNSUPPORTED(Info_delete, (MPI_Info info, const char *key))
TAKYON_MPI_UNSUPPORTED(Info_get_nkeys, (MPI_Info info, int *nkeys))
TAKYON_MPI_UNSUPPORTED(Info_get_nthkey, (MPI_Info info, int n, char *key))
TAKYON_MPI_UNSUPPORTED(Info_dup, (MPI_Info info, MPI_Info *newinfo))
TAKYON_MPI_UNSUPPORTED(Info_free, (MPI_Info *info))
TAKYON_MPI_UNSUPPORTED(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
TAKYON_MPI_UNSUPPORTED(Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TAKYON_MPI_UNSUPPORTED(Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
TAKYON_MPI_UNSUPPORTED(Ibarrier, (MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TAKYON_MPI_UNSUPPORTED(Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
TAKYON_MPI_UNSUPPORTED(Op_free, (MPI_Op *op))
TAKYON_MPI_UNSUPPORTED(Op_commutative, (MPI_Op op, int *commute))
TAKYON_MPI_UNSUPPORTED(Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
TAKYON_MPI_UNSUPPORTED(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Comm_free, (MPI_Comm *comm))
TAKYON_MPI_UNSUPPORTED(Comm_group, (MPI_Comm comm, MPI_Group *group))
TAKYON_MPI_UNSUPPORTED(Comm_set_name, (MPI_Comm comm, const char *comm_name))
TAKYON_MPI_UNSUPPORTED(Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
TAKYON_MPI_UNSUPPORTED(Comm_test_inter, (MPI_Comm comm, int *flag))
TAKYON_MPI_UNSUPPORTED(Comm_remote_size, (MPI_Comm comm, int *size))
TAKYON_MPI_UNSUPPORTED(Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
TAKYON_MPI_UNSUPPORTED(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
TAKYON_MPI_UNSUPPORTED(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
TAKYON_MPI_UNSUPPORTED(Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state))
TAKYON_MPI_UNSUPPORTED(Comm_free_keyval, (int *comm_keyval))
TAKYON_MPI_UNSUPPORTED(Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
TAKYON_MPI_UNSUPPORTED(Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
TAKYON_MPI_UNSUPPORTED(Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
TAKYON_MPI_UNSUPPORTED(Type_free_keyval, (int *type_keyval))
TAKYON_MPI_UNSUPPORTED(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
TAKYON_MPI_UNSUPPORTED(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
TAKYON_MPI_UNSUPPORTED(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
TAKYON_MPI_UNSUPPORTED(Group_size, (MPI_Group group, int *size))
TAKYON_MPI_UNSUPPORTED(Group_rank, (MPI_Group group, int *rank))
TAKYON_MPI_UNSUPPORTED(Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
TAKYON_MPI_UNSUPPORTED(Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
TAKYON_MPI_UNSUPPORTED(Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
TAKYON_MPI_UNSUPPORTED(Group_free, (MPI_Group *group))
TAKYON_MPI_UNSUPPORTED(Topo_test, (MPI_Comm comm, int *status))
TAKYON_MPI_UNSUPPORTED(Dims_create, (int nnodes, int ndims, int dims[]))
TAKYON_MPI_UNSUPPORTED(Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
TAKYON_MPI_UNSUPPORTED(Cartdim_get, (MPI_Comm comm, int *ndims))
TAKYON_MPI_UNSUPPORTED(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
TAKYON_MPI_UNSUPPORTED(Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
TAKYON_MPI_UNSUPPORTED(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
TAKYON_MPI_UNSUPPORTED(Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
TAKYON_MPI_UNSUPPORTED(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
TAKYON_MPI_UNSUPPORTED(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
TAKYON_MPI_UNSUPPORTED(Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
TAKYON_MPI_UNSUPPORTED(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
TAKYON_MPI_UNSUPPORTED(Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
TAKYON_MPI_UNSUPPORTED(Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
// clang-format on
