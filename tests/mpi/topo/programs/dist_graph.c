/* SPDX-License-Identifier: MIT */
/* Distributed graph topologies and the maps: MPI_Dist_graph_create_adjacent (an unweighted
 * bidirectional ring, a weighted one, a rank with no edges) and MPI_Dist_graph_create with each rank
 * naming its outgoing edges, its incoming edges, or rank 0 naming the whole (weighted) graph; the
 * queries MPI_Topo_test, Dist_graph_neighbors_count (degrees, the weighted flag for MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY and NULL) and Dist_graph_neighbors (ranks and weights, a shorter array getting
 * a prefix); MPI_Comm_dup keeping the topology; one message along every edge (MPI_Sendrecv over the
 * new communicator, bytes checked); MPI_Cart_map and MPI_Graph_map. The order in which
 * Dist_graph_create lists a process's edges is the library's: those lists are compared sorted.
 * np 1-5. */
#include "test_util.h"

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* Edge lists compared as multisets of (rank, weight) pairs: encodes each as rank * 100000 + weight. */
static void sorted_pairs(const int *ranks, const int *weights, int n, int *out) {
  for (int i = 0; i < n; ++i) out[i] = ranks[i] * 100000 + (weights ? weights[i] : 0);
  qsort(out, (size_t)n, sizeof(int), cmp_int);
}

/* Checks `comm`'s edges against the expected in- and out-edges (want_*; weights NULL: unweighted,
 * `ordered`: in that order, else as multisets), on `comm` and on a duplicate of it. */
static void check_graph(MPI_Comm comm, int nin, const int *want_in, const int *want_inw, int nout,
                        const int *want_out, const int *want_outw, int want_weighted, int ordered) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(comm, &dup));
  for (int pass = 0; pass < 2; ++pass) {
    MPI_Comm c = pass == 0 ? comm : dup;
    int kind = -1, indeg = -1, outdeg = -1, weighted = -1;
    CHECK_MPI(MPI_Topo_test(c, &kind));
    CHECK(kind == MPI_DIST_GRAPH);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted));
    CHECK(indeg == nin && outdeg == nout);
    CHECK((weighted != 0) == (want_weighted != 0));
    int *in = malloc(sizeof(int) * (size_t)(nin + 1)), *inw = malloc(sizeof(int) * (size_t)(nin + 1));
    int *out = malloc(sizeof(int) * (size_t)(nout + 1)), *outw = malloc(sizeof(int) * (size_t)(nout + 1));
    CHECK_MPI(MPI_Dist_graph_neighbors(c, nin, in, want_weighted ? inw : MPI_UNWEIGHTED, nout, out,
                                       want_weighted ? outw : MPI_UNWEIGHTED));
    if (ordered) {
      for (int i = 0; i < nin; ++i) CHECK(in[i] == want_in[i] && (!want_inw || inw[i] == want_inw[i]));
      for (int i = 0; i < nout; ++i) CHECK(out[i] == want_out[i] && (!want_outw || outw[i] == want_outw[i]));
    } else {
      int *a = malloc(sizeof(int) * (size_t)(nin + nout + 1)),
          *b = malloc(sizeof(int) * (size_t)(nin + nout + 1));
      sorted_pairs(in, want_inw ? inw : NULL, nin, a);
      sorted_pairs(want_in, want_inw, nin, b);
      for (int i = 0; i < nin; ++i) CHECK(a[i] == b[i]);
      sorted_pairs(out, want_outw ? outw : NULL, nout, a);
      sorted_pairs(want_out, want_outw, nout, b);
      for (int i = 0; i < nout; ++i) CHECK(a[i] == b[i]);
      free(a);
      free(b);
    }
    free(in), free(inw), free(out), free(outw);
  }
  /* The communicator itself: same ranks as MPI_COMM_WORLD (reorder 0), and one message along every
   * edge, each receiver taking its in-edges in its own order (ANY_SOURCE would not tell edges apart:
   * the source and a per-pair sequence number are in the bytes). */
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK(rank == world_rank() && size == world_size());
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(nin + nout + 1));
  unsigned char(*inbuf)[48] = malloc(48 * (size_t)(nin + 1));
  unsigned char(*outbuf)[48] = malloc(48 * (size_t)(nout + 1));
  for (int i = 0; i < nin; ++i) CHECK_MPI(MPI_Irecv(inbuf[i], 48, MPI_BYTE, want_in[i], 9, comm, &reqs[i]));
  for (int j = 0; j < nout; ++j) {
    fill_pattern(outbuf[j], 48, (unsigned)(rank * 1000 + want_out[j]));
    CHECK_MPI(MPI_Isend(outbuf[j], 48, MPI_BYTE, want_out[j], 9, comm, &reqs[nin + j]));
  }
  CHECK_MPI(MPI_Waitall(nin + nout, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < nin; ++i)
    CHECK(check_pattern(inbuf[i], 48, (unsigned)(want_in[i] * 1000 + rank)) == -1);
  free(reqs), free(inbuf), free(outbuf);
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void print_degrees(const char *what, MPI_Comm comm) {
  int indeg, outdeg, weighted;
  CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted));
  PRINT0("%s: rank 0 indegree %d outdegree %d weighted %d\n", what, indeg, outdeg, weighted != 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Comm g;

  /* adjacent, unweighted bidirectional ring */
  int srcs[2] = {left, right}, dsts[2] = {right, left};
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &g));
  check_graph(g, 2, srcs, NULL, 2, dsts, NULL, 0, 1);
  print_degrees("adjacent unweighted ring", g);
  CHECK_MPI(MPI_Comm_free(&g));

  /* adjacent, weighted: a weight names both ends of its edge */
  int sw[2] = {left * 10 + rank, right * 10 + rank}, dw[2] = {rank * 10 + right, rank * 10 + left};
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "some_hint", "ignored"));
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 2, dsts, dw, info, 0, &g));
  CHECK_MPI(MPI_Info_free(&info));
  check_graph(g, 2, srcs, sw, 2, dsts, dw, 1, 1);
  { /* arrays shorter than the degrees get the first entries */
    int in1 = -1, inw1 = -1, out[2] = {-1, -1}, outw[2] = {-1, -1};
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 1, &in1, &inw1, 2, out, outw));
    CHECK(in1 == left && inw1 == sw[0] && out[1] == left && outw[1] == dw[1]);
  }
  print_degrees("adjacent weighted ring", g);
  CHECK_MPI(MPI_Comm_free(&g));

  /* adjacent, a gather graph: every other rank sends to rank 0, which sends nothing; a side without
   * edges passes MPI_WEIGHTS_EMPTY */
  {
    int nin = 0, nout = 0, out[1] = {0};
    int *in = malloc(sizeof(int) * (size_t)size), *sevens = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) sevens[r] = 7;
    if (rank == 0) {
      for (int r = 1; r < size; ++r) in[nin++] = r;
    } else {
      nout = 1;
    }
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, nin > 0 ? sevens : MPI_WEIGHTS_EMPTY,
                                             nout, out, nout > 0 ? sevens : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                             0, &g));
    check_graph(g, nin, in, sevens, nout, out, sevens, 1, 1);
    print_degrees("adjacent gather graph", g);
    CHECK_MPI(MPI_Comm_free(&g));
    free(in);
    free(sevens);
  }

  /* Dist_graph_create, each rank naming its outgoing edges r -> r+1 (weight 100+r), r -> r+2 (200+r) */
  {
    int src = rank, deg = 2, d[2] = {right, (rank + 2) % size}, w[2] = {100 + rank, 200 + rank};
    int in[2] = {left, (rank + 2 * size - 2) % size},
        inw[2] = {100 + left, 200 + (rank + 2 * size - 2) % size};
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, d, w, MPI_INFO_NULL, 0, &g));
    check_graph(g, 2, in, inw, 2, d, w, 1, 0);
    print_degrees("create, outgoing edges named", g);
    CHECK_MPI(MPI_Comm_free(&g));
  }

  /* Dist_graph_create, each rank naming its incoming edges (unweighted): from r-1 and from r+1 */
  {
    int src[2] = {left, right}, deg[2] = {1, 1}, d[2] = {rank, rank};
    int out[2] = {right, left};
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, src, deg, d, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    check_graph(g, 2, src, NULL, 2, out, NULL, 0, 0);
    print_degrees("create, incoming edges named", g);
    CHECK_MPI(MPI_Comm_free(&g));
  }

  /* Dist_graph_create, rank 0 naming the whole complete graph with weights (i + 2) * (j + 1); the
   * others pass NULLs (weighted, since NULL is not MPI_UNWEIGHTED) */
  {
    const int n = size * size;
    int *src = malloc(sizeof(int) * (size_t)n), *deg = malloc(sizeof(int) * (size_t)n);
    int *d = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);
    int k = 0;
    for (int i = 0; i < size; ++i) {
      for (int j = 0; j < size; ++j, ++k) src[k] = i, deg[k] = 1, d[k] = j, w[k] = (i + 2) * (j + 1);
    }
    if (rank == 0) {
      CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, d, w, MPI_INFO_NULL, 0, &g));
    } else {
      CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL, 0, &g));
    }
    int *all = malloc(sizeof(int) * (size_t)size), *inw = malloc(sizeof(int) * (size_t)size);
    int *outw = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; ++i) all[i] = i, inw[i] = (i + 2) * (rank + 1), outw[i] = (rank + 2) * (i + 1);
    check_graph(g, size, all, inw, size, all, outw, 1, 0);
    print_degrees("create, rank 0 names the complete graph", g);
    CHECK_MPI(MPI_Comm_free(&g));
    free(src), free(deg), free(d), free(w), free(all), free(inw), free(outw);
  }

  /* no edges at all: weighted unless MPI_UNWEIGHTED is passed */
  {
    int dummy[1] = {0};
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, dummy, dummy, dummy, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                    0, &g));
    check_graph(g, 0, NULL, NULL, 0, NULL, NULL, 1, 1);
    print_degrees("create, no edges, MPI_WEIGHTS_EMPTY", g);
    CHECK_MPI(MPI_Comm_free(&g));
    CHECK_MPI(
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    check_graph(g, 0, NULL, NULL, 0, NULL, NULL, 0, 1);
    print_degrees("create, no edges, MPI_UNWEIGHTED", g);
    CHECK_MPI(MPI_Comm_free(&g));
    CHECK_MPI(
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, NULL, 0, NULL, NULL, MPI_INFO_NULL, 0, &g));
    check_graph(g, 0, NULL, NULL, 0, NULL, NULL, 1, 1);
    print_degrees("adjacent, no edges, NULL weights", g);
    CHECK_MPI(MPI_Comm_free(&g));
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &g));
    check_graph(g, 0, NULL, NULL, 0, NULL, NULL, 0, 1);
    print_degrees("adjacent, no edges, MPI_UNWEIGHTED", g);
    CHECK_MPI(MPI_Comm_free(&g));
  }

  /* reorder = 1 is accepted; libtakyon_mpi keeps the ranks (another library may renumber them) */
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 1, &g));
  if (takyon_mpi()) check_graph(g, 2, srcs, NULL, 2, dsts, NULL, 0, 1);
  CHECK_MPI(MPI_Comm_free(&g));
  PRINT0("reorder 1: accepted (ranks kept: checked under libtakyon_mpi)\n");

  /* Cart_map and Graph_map: a process keeps its rank where the topology has room for it */
  int newrank = -5, dims[2] = {size, 1}, periods[2] = {1, 0};
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
  CHECK(newrank == rank);
  int index[5] = {0, 0, 0, 0, 0}, edges[1] = {0};
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK(newrank == rank);
  /* Beyond the topology: MPI_UNDEFINED (Open MPI 4.1 answers the rank on a communicator without a
   * topology, so this is checked under libtakyon_mpi only) */
  if (size > 1 && takyon_mpi()) {
    dims[0] = size - 1;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
    CHECK(newrank == (rank < size - 1 ? rank : MPI_UNDEFINED));
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size - 1, index, edges, &newrank));
    CHECK(newrank == (rank < size - 1 ? rank : MPI_UNDEFINED));
  }
  PRINT0(
      "cart_map and graph_map: ranks kept (MPI_UNDEFINED beyond the topology: checked under "
      "libtakyon_mpi)\n");

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
