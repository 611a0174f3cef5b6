/* SPDX-License-Identifier: MIT */
/* Bad input to the topology functions under MPI_ERRORS_RETURN: every call fails with a non-success
 * code; under libtakyon_mpi the exact error class is checked and printed (Open MPI's classes differ
 * for some; calls Open MPI 4.1 does not check are run under libtakyon_mpi only and printed alike).
 * Impossible Dims_create requests, bad Cart_create / Graph_create arguments, Cartesian queries on
 * communicators without that topology, coordinates and ranks out of range, and (libtakyon_mpi) one
 * member passing bad arguments or other dims than the rest: every member fails, none waits. Distributed
 * graphs (bad degrees, ranks, weights, MPI_WEIGHTS_EMPTY or a lone MPI_UNWEIGHTED with edges, queries
 * on other topologies), Cart_map and Graph_map, and the neighbourhood collectives (no topology, bad
 * counts, datatypes, arrays and requests, MPI_IN_PLACE, blocks of other sizes than the receivers
 * expect). Afterwards a topology is created and used as usual. np 1-5. */
#include "test_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const MPI_Comm world = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN));
  int v = 0, n = 0, dims[4], periods[4] = {0, 0, 0, 0}, coords[4], src, dst;
  MPI_Comm nc = MPI_COMM_NULL;

  /* MPI_Dims_create */
  dims[0] = dims[1] = 0;
  expect_class("dims_create ndims -1", MPI_Dims_create(6, -1, dims), MPI_ERR_DIMS);
  dims[0] = -1, dims[1] = 0;
  expect_class("dims_create dims[0] -1", MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS);
  dims[0] = 2, dims[1] = 0;
  expect_class("dims_create 7 nodes with dims[0] 2", MPI_Dims_create(7, 2, dims), MPI_ERR_DIMS);
  dims[0] = 2, dims[1] = 2;
  EXPECT_CLASS_TAKYON("dims_create 6 nodes into 2 x 2", MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS);
  dims[0] = 0;
  EXPECT_CLASS_TAKYON("dims_create nnodes 0", MPI_Dims_create(0, 1, dims), MPI_ERR_DIMS);
  EXPECT_CLASS_TAKYON("dims_create dims NULL", MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG);

  /* MPI_Cart_create: the same bad arguments on every member */
  dims[0] = size;
  expect_class("cart_create on MPI_COMM_NULL", MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 0, &nc),
               MPI_ERR_COMM);
  EXPECT_CLASS_TAKYON("cart_create ndims -1", MPI_Cart_create(world, -1, dims, periods, 0, &nc),
                      MPI_ERR_DIMS);
  dims[0] = 0;
  expect_class("cart_create dims[0] 0", MPI_Cart_create(world, 1, dims, periods, 0, &nc), MPI_ERR_DIMS);
  dims[0] = -2;
  expect_class("cart_create dims[0] -2", MPI_Cart_create(world, 1, dims, periods, 0, &nc), MPI_ERR_DIMS);
  dims[0] = size + 1;
  expect_class("cart_create more cells than processes", MPI_Cart_create(world, 1, dims, periods, 0, &nc),
               MPI_ERR_TOPOLOGY);
  dims[0] = size, dims[1] = 2;
  expect_class("cart_create 2-D grid twice the communicator",
               MPI_Cart_create(world, 2, dims, periods, 0, &nc), MPI_ERR_TOPOLOGY);
  dims[0] = size;
  EXPECT_CLASS_TAKYON("cart_create comm_cart NULL", MPI_Cart_create(world, 1, dims, periods, 0, NULL),
                      MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("cart_create dims NULL", MPI_Cart_create(world, 1, NULL, periods, 0, &nc), MPI_ERR_ARG);

  /* One member's bad arguments: it fails with its class, the others with MPI_ERR_OTHER, none hangs. */
  if (takyon_mpi() && size > 1) {
    dims[0] = rank == size - 1 ? 0 : size;
    int rc = MPI_Cart_create(world, 1, dims, periods, 0, &nc);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == (rank == size - 1 ? MPI_ERR_DIMS : MPI_ERR_OTHER));
    CHECK(nc == MPI_COMM_NULL);
    /* rank 0 asks for another grid than the others: every member fails */
    dims[0] = rank == 0 ? 1 : size;
    rc = MPI_Cart_create(world, 1, dims, periods, 0, &nc);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    CHECK(nc == MPI_COMM_NULL);
    /* one member's bad graph */
    int index[1] = {rank == 0 ? -1 : 0};
    rc = MPI_Graph_create(world, 1, index, NULL, 0, &nc);
    MPI_Error_class(rc, &cls);
    CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER));
  }
  PRINT0(
      "one member with bad dims: it MPI_ERR_DIMS, the others MPI_ERR_OTHER; other dims on one member: "
      "MPI_ERR_ARG everywhere\n");

  /* Cartesian and graph queries on a communicator without that topology */
  expect_class("topo_test of MPI_COMM_NULL", MPI_Topo_test(MPI_COMM_NULL, &n), MPI_ERR_COMM);
  EXPECT_CLASS_TAKYON("topo_test status NULL", MPI_Topo_test(world, NULL), MPI_ERR_ARG);
  expect_class("cartdim_get of MPI_COMM_WORLD", MPI_Cartdim_get(world, &n), MPI_ERR_TOPOLOGY);
  expect_class("cart_get of MPI_COMM_WORLD", MPI_Cart_get(world, 4, dims, periods, coords), MPI_ERR_TOPOLOGY);
  coords[0] = 0;
  expect_class("cart_rank of MPI_COMM_WORLD", MPI_Cart_rank(world, coords, &n), MPI_ERR_TOPOLOGY);
  expect_class("cart_coords of MPI_COMM_WORLD", MPI_Cart_coords(world, 0, 4, coords), MPI_ERR_TOPOLOGY);
  expect_class("cart_shift of MPI_COMM_WORLD", MPI_Cart_shift(world, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
  int remain[1] = {1};
  expect_class("cart_sub of MPI_COMM_WORLD", MPI_Cart_sub(world, remain, &nc), MPI_ERR_TOPOLOGY);
  int ni = 0, ne = 0, idx[4], edg[4];
  expect_class("graphdims_get of MPI_COMM_WORLD", MPI_Graphdims_get(world, &ni, &ne), MPI_ERR_TOPOLOGY);
  expect_class("graph_get of MPI_COMM_WORLD", MPI_Graph_get(world, 4, 4, idx, edg), MPI_ERR_TOPOLOGY);
  expect_class("graph_neighbors_count of MPI_COMM_WORLD", MPI_Graph_neighbors_count(world, 0, &n),
               MPI_ERR_TOPOLOGY);
  expect_class("graph_neighbors of MPI_COMM_WORLD", MPI_Graph_neighbors(world, 0, 4, edg), MPI_ERR_TOPOLOGY);

  /* a non-periodic line over every rank */
  MPI_Comm line;
  dims[0] = size, periods[0] = 0;
  CHECK_MPI(MPI_Cart_create(world, 1, dims, periods, 0, &line));
  coords[0] = size;
  expect_class("cart_rank coords past a non-periodic end", MPI_Cart_rank(line, coords, &n), MPI_ERR_ARG);
  coords[0] = -1;
  expect_class("cart_rank coords -1 in a non-periodic dimension", MPI_Cart_rank(line, coords, &n),
               MPI_ERR_ARG);
  expect_class("cart_coords rank -1", MPI_Cart_coords(line, -1, 1, coords), MPI_ERR_RANK);
  EXPECT_CLASS_TAKYON("cart_coords rank size", MPI_Cart_coords(line, size, 1, coords), MPI_ERR_RANK);
  EXPECT_CLASS_TAKYON("cart_coords maxdims 0", MPI_Cart_coords(line, 0, 0, coords), MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("cart_get maxdims 0", MPI_Cart_get(line, 0, dims, periods, coords), MPI_ERR_ARG);
  expect_class("cart_shift direction -1", MPI_Cart_shift(line, -1, 1, &src, &dst), MPI_ERR_DIMS);
  EXPECT_CLASS_TAKYON("cart_shift direction 1 of 1 dimension", MPI_Cart_shift(line, 1, 1, &src, &dst),
                      MPI_ERR_DIMS);
  EXPECT_CLASS_TAKYON("cart_sub remain_dims NULL", MPI_Cart_sub(line, NULL, &nc), MPI_ERR_ARG);
  expect_class("graphdims_get of a Cartesian communicator", MPI_Graphdims_get(line, &ni, &ne),
               MPI_ERR_TOPOLOGY);
  expect_class("graph_neighbors of a Cartesian communicator", MPI_Graph_neighbors(line, 0, 4, edg),
               MPI_ERR_TOPOLOGY);

  /* MPI_Graph_create */
  idx[0] = 0;
  expect_class("graph_create nnodes size + 1", MPI_Graph_create(world, size + 1, idx, edg, 0, &nc),
               MPI_ERR_TOPOLOGY);
  expect_class("graph_create nnodes -1", MPI_Graph_create(world, -1, idx, edg, 0, &nc), MPI_ERR_ARG);
  idx[0] = -1;
  EXPECT_CLASS_TAKYON("graph_create index[0] -1", MPI_Graph_create(world, 1, idx, edg, 0, &nc), MPI_ERR_ARG);
  idx[0] = 1, edg[0] = 5;
  EXPECT_CLASS_TAKYON("graph_create edge to node 5 of 1", MPI_Graph_create(world, 1, idx, edg, 0, &nc),
                      MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("graph_create comm_graph NULL", MPI_Graph_create(world, 1, idx, edg, 0, NULL),
                      MPI_ERR_ARG);

  /* a graph of one node with no edges (the other ranks get MPI_COMM_NULL) */
  MPI_Comm g;
  idx[0] = 0;
  CHECK_MPI(MPI_Graph_create(world, 1, idx, edg, 0, &g));
  if (rank == 0) {
    CHECK(g != MPI_COMM_NULL);
    EXPECT_CLASS_TAKYON("graph_neighbors_count rank 1 of 1 node", MPI_Graph_neighbors_count(g, 1, &n),
                        MPI_ERR_RANK);
    expect_class("graph_neighbors rank -1", MPI_Graph_neighbors(g, -1, 4, edg), MPI_ERR_RANK);
    EXPECT_CLASS_TAKYON("graph_neighbors maxneighbors -1", MPI_Graph_neighbors(g, 0, -1, edg), MPI_ERR_ARG);
    EXPECT_CLASS_TAKYON("graph_get maxindex -1", MPI_Graph_get(g, -1, 4, idx, edg), MPI_ERR_ARG);
    expect_class("cart_shift of a graph communicator", MPI_Cart_shift(g, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
    CHECK_MPI(MPI_Comm_free(&g));
  } else {
    CHECK(g == MPI_COMM_NULL);
  }

  /* MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create: the same bad arguments on every member */
  int one[1] = {rank}, bad_rank[1] = {size}, neg[1] = {-1}, w1[1] = {1};
  expect_class("dist_graph_create_adjacent indegree -1",
               MPI_Dist_graph_create_adjacent(world, -1, one, w1, 1, one, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_ARG);
  expect_class("dist_graph_create_adjacent source = size",
               MPI_Dist_graph_create_adjacent(world, 1, bad_rank, w1, 1, one, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_RANK);
  expect_class("dist_graph_create_adjacent destination -1",
               MPI_Dist_graph_create_adjacent(world, 1, one, w1, 1, neg, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_RANK);
  expect_class("dist_graph_create_adjacent weight -1",
               MPI_Dist_graph_create_adjacent(world, 1, one, neg, 1, one, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_ARG);
  expect_class("dist_graph_create_adjacent comm_dist_graph NULL",
               MPI_Dist_graph_create_adjacent(world, 1, one, w1, 1, one, w1, MPI_INFO_NULL, 0, NULL),
               MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON(
      "dist_graph_create_adjacent MPI_WEIGHTS_EMPTY with an edge",
      MPI_Dist_graph_create_adjacent(world, 1, one, MPI_WEIGHTS_EMPTY, 1, one, w1, MPI_INFO_NULL, 0, &nc),
      MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON(
      "dist_graph_create_adjacent MPI_UNWEIGHTED on one side only",
      MPI_Dist_graph_create_adjacent(world, 1, one, MPI_UNWEIGHTED, 1, one, w1, MPI_INFO_NULL, 0, &nc),
      MPI_ERR_ARG);
  int degree1[1] = {1};
  expect_class("dist_graph_create n -1",
               MPI_Dist_graph_create(world, -1, one, degree1, one, w1, MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
  expect_class("dist_graph_create degrees[0] -1",
               MPI_Dist_graph_create(world, 1, one, neg, one, w1, MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
  expect_class("dist_graph_create source = size",
               MPI_Dist_graph_create(world, 1, bad_rank, degree1, one, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_RANK);
  expect_class("dist_graph_create destination = size",
               MPI_Dist_graph_create(world, 1, one, degree1, bad_rank, w1, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_RANK);
  expect_class("dist_graph_create weight -1",
               MPI_Dist_graph_create(world, 1, one, degree1, one, neg, MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON(
      "dist_graph_create MPI_WEIGHTS_EMPTY with an edge",
      MPI_Dist_graph_create(world, 1, one, degree1, one, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &nc),
      MPI_ERR_ARG);
  if (takyon_mpi() && size > 1) {
    /* one member's bad destination: it fails with its class, the others with MPI_ERR_OTHER */
    int to[1] = {rank == size - 1 ? size : 0};
    int rc = MPI_Dist_graph_create(world, 1, one, degree1, to, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == (rank == size - 1 ? MPI_ERR_RANK : MPI_ERR_OTHER));
    CHECK(nc == MPI_COMM_NULL);
  }
  PRINT0("dist_graph_create, one member with a bad destination: it MPI_ERR_RANK, the others MPI_ERR_OTHER\n");

  /* distributed-graph queries on other communicators, Cart_map and Graph_map */
  int wgt = 0;
  expect_class("dist_graph_neighbors_count of MPI_COMM_WORLD",
               MPI_Dist_graph_neighbors_count(world, &n, &v, &wgt), MPI_ERR_TOPOLOGY);
  expect_class("dist_graph_neighbors of a Cartesian communicator",
               MPI_Dist_graph_neighbors(line, 1, idx, MPI_UNWEIGHTED, 1, edg, MPI_UNWEIGHTED),
               MPI_ERR_TOPOLOGY);
  MPI_Comm dg;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(world, 1, one, MPI_UNWEIGHTED, 1, one, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &dg));
  EXPECT_CLASS_TAKYON("dist_graph_neighbors maxindegree -1",
                      MPI_Dist_graph_neighbors(dg, -1, idx, MPI_UNWEIGHTED, 1, edg, MPI_UNWEIGHTED),
                      MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("graph_neighbors of a distributed graph", MPI_Graph_neighbors(dg, 0, 4, edg),
                      MPI_ERR_TOPOLOGY);
  dims[0] = 0;
  /* Open MPI 4.1 checks nothing in Cart_map on a communicator without a topology */
  EXPECT_CLASS_TAKYON("cart_map dims[0] 0", MPI_Cart_map(world, 1, dims, periods, &n), MPI_ERR_DIMS);
  dims[0] = size + 1;
  EXPECT_CLASS_TAKYON("cart_map more cells than processes", MPI_Cart_map(world, 1, dims, periods, &n),
                      MPI_ERR_TOPOLOGY);
  dims[0] = size;
  EXPECT_CLASS_TAKYON("graph_map nnodes size + 1", MPI_Graph_map(world, size + 1, idx, edg, &n),
                      MPI_ERR_TOPOLOGY);
  EXPECT_CLASS_TAKYON("graph_map newrank NULL", MPI_Graph_map(world, 1, idx, edg, NULL), MPI_ERR_ARG);

  /* the neighbourhood collectives: every member passes the same bad arguments */
  int sbuf[8] = {0}, rbuf[8] = {0}, counts[2] = {1, 1}, displs[2] = {0, 1};
  MPI_Aint bdispls[2] = {0, sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Request req;
  expect_class("neighbor_allgather on MPI_COMM_WORLD",
               MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, world), MPI_ERR_TOPOLOGY);
  expect_class("ineighbor_alltoall on MPI_COMM_WORLD",
               MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, world, &req), MPI_ERR_TOPOLOGY);
  expect_class("neighbor_allgather sendcount -1",
               MPI_Neighbor_allgather(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT, dg), MPI_ERR_COUNT);
  expect_class("neighbor_alltoall recvtype MPI_DATATYPE_NULL",
               MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_DATATYPE_NULL, dg), MPI_ERR_TYPE);
  EXPECT_CLASS_TAKYON("neighbor_allgatherv recvcounts NULL",
                      MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, NULL, displs, MPI_INT, dg),
                      MPI_ERR_ARG);
  expect_class("neighbor_alltoallv sdispls NULL",
               MPI_Neighbor_alltoallv(sbuf, counts, NULL, MPI_INT, rbuf, counts, displs, MPI_INT, dg),
               MPI_ERR_ARG);
  counts[0] = -1;
  expect_class("neighbor_alltoallv recvcounts[0] -1",
               MPI_Neighbor_alltoallv(sbuf, counts + 1, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dg),
               MPI_ERR_COUNT);
  counts[0] = 1;
  EXPECT_CLASS_TAKYON("neighbor_alltoallw sendtypes NULL",
                      MPI_Neighbor_alltoallw(sbuf, counts, bdispls, NULL, rbuf, counts, bdispls, types, dg),
                      MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("ineighbor_allgather request NULL",
                      MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg, NULL), MPI_ERR_ARG);
  EXPECT_CLASS_TAKYON("neighbor_alltoall sendbuf MPI_IN_PLACE",
                      MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, dg), MPI_ERR_BUFFER);
  EXPECT_CLASS_TAKYON("neighbor_allgather recvbuf NULL",
                      MPI_Neighbor_allgather(sbuf, 1, MPI_INT, NULL, 1, MPI_INT, dg), MPI_ERR_BUFFER);
  /* Every rank sends 2 ints to its one neighbour, which expects 1: each receiver fails (libtakyon_mpi's
   * class; other libraries may end the job). The next collective on the communicator still works. */
  EXPECT_CLASS_TAKYON("neighbor_alltoall 2 ints sent where 1 is expected",
                      MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 1, MPI_INT, dg), MPI_ERR_TRUNCATE);
  sbuf[0] = 100 + rank;
  rbuf[0] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg));
  CHECK(rbuf[0] == 100 + rank); /* its own neighbour */
  CHECK_MPI(MPI_Comm_free(&dg));

  /* Everything still works: a periodic ring, one message each way, bytes checked. */
  MPI_Comm ring;
  periods[0] = 1;
  CHECK_MPI(MPI_Cart_create(world, 1, dims, periods, 0, &ring));
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &src, &dst));
  unsigned char out[64], in[64];
  fill_pattern(out, sizeof out, (unsigned)rank);
  CHECK_MPI(MPI_Sendrecv(out, 64, MPI_BYTE, dst, 1, in, 64, MPI_BYTE, src, 1, ring, MPI_STATUS_IGNORE));
  CHECK(check_pattern(in, sizeof in, (unsigned)src) == -1);
  CHECK_MPI(MPI_Comm_free(&ring));
  CHECK_MPI(MPI_Comm_free(&line));
  (void)v;
  CHECK_MPI(MPI_Barrier(world));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
