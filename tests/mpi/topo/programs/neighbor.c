/* SPDX-License-Identifier: MIT */
/* The neighbourhood collectives: MPI_Neighbor_allgather, allgatherv, alltoall, alltoallv, alltoallw
 * and their nonblocking forms (all five started at once, then one MPI_Waitall) on Cartesian
 * communicators (a periodic ring, where with 1 or 2 ranks a neighbour appears twice; a line whose ends
 * have MPI_PROC_NULL neighbours; a 2-D grid periodic in one dimension; a 3-D grid with a periodic and
 * a non-periodic dimension of extent 1), a graph (a ring plus a star) and distributed graphs (a
 * circulant made with MPI_Dist_graph_create_adjacent, a duplicate of it, and edges named by other
 * ranks through MPI_Dist_graph_create with loops, a double edge and an isolated rank). Every block
 * that arrives is checked byte by byte against what its sender put in the block that pairs with it:
 * on a Cartesian communicator block s of the sender lands in block s^1 of the receiver (the block sent
 * in the -1 direction arrives from the receiver's +1 neighbour, also where both are one process); on
 * the graphs the k-th message from a process to another lands in the k-th block the receiver keeps
 * for it. The blocks of MPI_PROC_NULL neighbours and the gaps between blocks must stay untouched. Derived
 * datatypes: strided receive types in alltoallw, a vector send type in alltoall. One topology moves
 * blocks of 70000 bytes (rendezvous). np 1-5. */
#include "test_util.h"

#define SENTINEL 0xEE
#define INT_SENTINEL (-7777)

/* This rank's neighbours as the library reports them, and every rank's destinations (to find which
 * of its sender's slots a receive slot pairs with). */
typedef struct {
  int rank, size, nin, nout, cart;
  int *in, *out;
  int *outdeg, *outdispl, *allout;
} Nb;

static int *alloc_ints(int n) {
  int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  CHECK(p != NULL);
  return p;
}

static void nb_init(MPI_Comm comm, Nb *nb) {
  int kind = MPI_UNDEFINED;
  CHECK_MPI(MPI_Comm_rank(comm, &nb->rank));
  CHECK_MPI(MPI_Comm_size(comm, &nb->size));
  CHECK_MPI(MPI_Topo_test(comm, &kind));
  nb->cart = kind == MPI_CART;
  if (kind == MPI_CART) {
    int nd = 0;
    CHECK_MPI(MPI_Cartdim_get(comm, &nd));
    nb->nin = nb->nout = 2 * nd;
    nb->in = alloc_ints(nb->nin);
    nb->out = alloc_ints(nb->nout);
    for (int d = 0; d < nd; ++d) {
      CHECK_MPI(MPI_Cart_shift(comm, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]));
      nb->out[2 * d] = nb->in[2 * d];
      nb->out[2 * d + 1] = nb->in[2 * d + 1];
    }
  } else if (kind == MPI_GRAPH) {
    CHECK_MPI(MPI_Graph_neighbors_count(comm, nb->rank, &nb->nin));
    nb->nout = nb->nin;
    nb->in = alloc_ints(nb->nin);
    nb->out = alloc_ints(nb->nout);
    CHECK_MPI(MPI_Graph_neighbors(comm, nb->rank, nb->nin, nb->in));
    memcpy(nb->out, nb->in, sizeof(int) * (size_t)nb->nin);
  } else {
    CHECK(kind == MPI_DIST_GRAPH);
    int weighted = -1;
    CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, &nb->nin, &nb->nout, &weighted));
    nb->in = alloc_ints(nb->nin);
    nb->out = alloc_ints(nb->nout);
    /* Open MPI writes the weights of a weighted graph whatever the arrays are: pass real ones. */
    int *inw = alloc_ints(nb->nin), *outw = alloc_ints(nb->nout);
    CHECK_MPI(MPI_Dist_graph_neighbors(comm, nb->nin, nb->in, weighted ? inw : MPI_UNWEIGHTED, nb->nout,
                                       nb->out, weighted ? outw : MPI_UNWEIGHTED));
    free(inw);
    free(outw);
  }
  nb->outdeg = alloc_ints(nb->size);
  nb->outdispl = alloc_ints(nb->size);
  CHECK_MPI(MPI_Allgather(&nb->nout, 1, MPI_INT, nb->outdeg, 1, MPI_INT, comm));
  int total = 0;
  for (int r = 0; r < nb->size; ++r) {
    nb->outdispl[r] = total;
    total += nb->outdeg[r];
  }
  nb->allout = alloc_ints(total);
  CHECK_MPI(MPI_Allgatherv(nb->out, nb->nout, MPI_INT, nb->allout, nb->outdeg, nb->outdispl, MPI_INT, comm));
}

static void nb_free(Nb *nb) {
  free(nb->in);
  free(nb->out);
  free(nb->outdeg);
  free(nb->outdispl);
  free(nb->allout);
}

/* The slot of sender in[i] whose message lands in this rank's receive slot i: Cartesian, the opposite
 * direction of the same dimension; graphs, the k-th time the sender lists this rank among its
 * destinations, for the k-th time this rank lists it as a source. */
static int sender_slot(const Nb *nb, int i) {
  if (nb->cart) return i ^ 1;
  const int s = nb->in[i];
  int k = 0;
  for (int q = 0; q < i; ++q) k += nb->in[q] == s;
  const int *o = nb->allout + nb->outdispl[s];
  for (int j = 0; j < nb->outdeg[s]; ++j) {
    if (o[j] == nb->rank && k-- == 0) return j;
  }
  CHECK(!"a source that does not list this rank as often among its destinations");
  return -1;
}

static unsigned seed_of(unsigned salt, int sender, int slot) {
  return salt * 100003u + (unsigned)sender * 131u + (unsigned)slot * 7u + 1u;
}
static int int_of(unsigned seed, int i) {
  return (int)(seed % 100000u) * 1000 + i;
}
/* Items per block of the v and w forms: a function of the sender and its slot, 1..5. */
static int items_of(int sender, int slot) {
  return 1 + (sender + 2 * slot) % 5;
}
/* Items each sender sends in allgatherv: 2..5. */
static int gather_items_of(int sender) {
  return 2 + sender % 4;
}

#define NCOLL 5
#define STRIDE 12 /* ints between the starts of two blocks of the v and w forms (room for gaps) */

typedef struct {
  size_t blk;
  unsigned char *ag_send, *ag_recv, *a2a_send, *a2a_recv;
  int *agv_send, *agv_recv, *agv_counts, *agv_displs;
  int *v_send, *v_recv, *v_scounts, *v_sdispls, *v_rcounts, *v_rdispls;
  int *w_send, *w_recv, *w_scounts, *w_rcounts;
  MPI_Aint *w_sdispls, *w_rdispls;
  MPI_Datatype *w_stypes, *w_rtypes, a2a_type;
} Bufs;

/* Fills the send buffers and the receive sentinels of all five collectives. alltoall sends through a
 * vector type (every other byte of twice the space), so its send buffer is laid out strided. */
static void prepare(const Nb *nb, Bufs *b, size_t blk, unsigned salt) {
  memset(b, 0, sizeof *b);
  b->blk = blk;
  const int nin = nb->nin, nout = nb->nout, me = nb->rank;
  b->ag_send = malloc(blk);
  b->ag_recv = malloc(blk * (size_t)(nin > 0 ? nin : 1));
  fill_pattern(b->ag_send, blk, seed_of(salt, me, 0));
  memset(b->ag_recv, SENTINEL, blk * (size_t)nin);
  /* alltoall: blocks of blk bytes sent from every other byte of 2 * blk bytes */
  CHECK_MPI(MPI_Type_vector((int)blk, 1, 2, MPI_BYTE, &b->a2a_type));
  CHECK_MPI(MPI_Type_commit(&b->a2a_type));
  MPI_Datatype resized;
  CHECK_MPI(MPI_Type_create_resized(b->a2a_type, 0, (MPI_Aint)(2 * blk), &resized));
  CHECK_MPI(MPI_Type_free(&b->a2a_type));
  b->a2a_type = resized;
  CHECK_MPI(MPI_Type_commit(&b->a2a_type));
  b->a2a_send = malloc(2 * blk * (size_t)(nout > 0 ? nout : 1));
  b->a2a_recv = malloc(blk * (size_t)(nin > 0 ? nin : 1));
  unsigned char *tmp = malloc(blk);
  for (int j = 0; j < nout; ++j) {
    fill_pattern(tmp, blk, seed_of(salt + 1, me, j));
    for (size_t x = 0; x < blk; ++x) {
      b->a2a_send[2 * blk * (size_t)j + 2 * x] = tmp[x];
      b->a2a_send[2 * blk * (size_t)j + 2 * x + 1] = 0x55;
    }
  }
  free(tmp);
  memset(b->a2a_recv, SENTINEL, blk * (size_t)nin);
  /* allgatherv: ints; block i at STRIDE * i + 1 */
  const int gi = gather_items_of(me);
  b->agv_send = alloc_ints(gi);
  for (int x = 0; x < gi; ++x) b->agv_send[x] = int_of(seed_of(salt + 2, me, 0), x);
  b->agv_recv = alloc_ints(STRIDE * nin + 1);
  b->agv_counts = alloc_ints(nin);
  b->agv_displs = alloc_ints(nin);
  for (int x = 0; x < STRIDE * nin + 1; ++x) b->agv_recv[x] = INT_SENTINEL;
  for (int i = 0; i < nin; ++i) {
    b->agv_counts[i] = nb->in[i] == MPI_PROC_NULL ? 3 : gather_items_of(nb->in[i]);
    b->agv_displs[i] = STRIDE * i + 1;
  }
  /* alltoallv: ints; send block j at STRIDE * (nout - 1 - j) (reversed), receive block i at STRIDE * i + 2 */
  b->v_send = alloc_ints(STRIDE * nout);
  b->v_scounts = alloc_ints(nout);
  b->v_sdispls = alloc_ints(nout);
  for (int j = 0; j < nout; ++j) {
    b->v_scounts[j] = items_of(me, j);
    b->v_sdispls[j] = STRIDE * (nout - 1 - j);
    for (int x = 0; x < b->v_scounts[j]; ++x)
      b->v_send[b->v_sdispls[j] + x] = int_of(seed_of(salt + 3, me, j), x);
  }
  b->v_recv = alloc_ints(STRIDE * nin + 2);
  b->v_rcounts = alloc_ints(nin);
  b->v_rdispls = alloc_ints(nin);
  for (int x = 0; x < STRIDE * nin + 2; ++x) b->v_recv[x] = INT_SENTINEL;
  for (int i = 0; i < nin; ++i) {
    b->v_rcounts[i] = nb->in[i] == MPI_PROC_NULL ? 4 : items_of(nb->in[i], sender_slot(nb, i));
    b->v_rdispls[i] = STRIDE * i + 2;
  }
  /* alltoallw: MPI_INT blocks sent, each received through a strided vector type (every other int) */
  b->w_send = alloc_ints(STRIDE * nout);
  b->w_scounts = alloc_ints(nout);
  b->w_sdispls = malloc(sizeof(MPI_Aint) * (size_t)(nout > 0 ? nout : 1));
  b->w_stypes = malloc(sizeof(MPI_Datatype) * (size_t)(nout > 0 ? nout : 1));
  for (int j = 0; j < nout; ++j) {
    b->w_scounts[j] = items_of(me, j + 1);
    b->w_sdispls[j] = (MPI_Aint)(sizeof(int) * (size_t)(STRIDE * j));
    b->w_stypes[j] = MPI_INT;
    for (int x = 0; x < b->w_scounts[j]; ++x) b->w_send[STRIDE * j + x] = int_of(seed_of(salt + 4, me, j), x);
  }
  b->w_recv = alloc_ints(STRIDE * nin);
  b->w_rcounts = alloc_ints(nin);
  b->w_rdispls = malloc(sizeof(MPI_Aint) * (size_t)(nin > 0 ? nin : 1));
  b->w_rtypes = malloc(sizeof(MPI_Datatype) * (size_t)(nin > 0 ? nin : 1));
  for (int x = 0; x < STRIDE * nin; ++x) b->w_recv[x] = INT_SENTINEL;
  for (int i = 0; i < nin; ++i) {
    const int n = nb->in[i] == MPI_PROC_NULL ? 2 : items_of(nb->in[i], sender_slot(nb, i) + 1);
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &b->w_rtypes[i]));
    CHECK_MPI(MPI_Type_commit(&b->w_rtypes[i]));
    b->w_rcounts[i] = 1;
    b->w_rdispls[i] = (MPI_Aint)(sizeof(int) * (size_t)(STRIDE * (nin - 1 - i)));
  }
}

static void start(MPI_Comm comm, const Nb *nb, Bufs *b, int nonblocking, MPI_Request *reqs) {
  const int blk = (int)b->blk;
  (void)nb;
  if (!nonblocking) {
    CHECK_MPI(MPI_Neighbor_allgather(b->ag_send, blk, MPI_BYTE, b->ag_recv, blk, MPI_BYTE, comm));
    CHECK_MPI(MPI_Neighbor_allgatherv(b->agv_send, gather_items_of(nb->rank), MPI_INT, b->agv_recv,
                                      b->agv_counts, b->agv_displs, MPI_INT, comm));
    CHECK_MPI(MPI_Neighbor_alltoall(b->a2a_send, 1, b->a2a_type, b->a2a_recv, blk, MPI_BYTE, comm));
    CHECK_MPI(MPI_Neighbor_alltoallv(b->v_send, b->v_scounts, b->v_sdispls, MPI_INT, b->v_recv, b->v_rcounts,
                                     b->v_rdispls, MPI_INT, comm));
    CHECK_MPI(MPI_Neighbor_alltoallw(b->w_send, b->w_scounts, b->w_sdispls, b->w_stypes, b->w_recv,
                                     b->w_rcounts, b->w_rdispls, b->w_rtypes, comm));
    return;
  }
  CHECK_MPI(MPI_Ineighbor_allgather(b->ag_send, blk, MPI_BYTE, b->ag_recv, blk, MPI_BYTE, comm, &reqs[0]));
  CHECK_MPI(MPI_Ineighbor_allgatherv(b->agv_send, gather_items_of(nb->rank), MPI_INT, b->agv_recv,
                                     b->agv_counts, b->agv_displs, MPI_INT, comm, &reqs[1]));
  CHECK_MPI(MPI_Ineighbor_alltoall(b->a2a_send, 1, b->a2a_type, b->a2a_recv, blk, MPI_BYTE, comm, &reqs[2]));
  CHECK_MPI(MPI_Ineighbor_alltoallv(b->v_send, b->v_scounts, b->v_sdispls, MPI_INT, b->v_recv, b->v_rcounts,
                                    b->v_rdispls, MPI_INT, comm, &reqs[3]));
  CHECK_MPI(MPI_Ineighbor_alltoallw(b->w_send, b->w_scounts, b->w_sdispls, b->w_stypes, b->w_recv,
                                    b->w_rcounts, b->w_rdispls, b->w_rtypes, comm, &reqs[4]));
}

/* ints[from, to) are all INT_SENTINEL */
static void check_untouched(const int *v, int from, int to) {
  for (int x = from; x < to; ++x) CHECK(v[x] == INT_SENTINEL);
}

static void verify(const Nb *nb, const Bufs *b, unsigned salt) {
  const size_t blk = b->blk;
  for (int i = 0; i < nb->nin; ++i) {
    const int s = nb->in[i];
    const unsigned char *ag = b->ag_recv + blk * (size_t)i, *a2a = b->a2a_recv + blk * (size_t)i;
    const int *agv = b->agv_recv + STRIDE * i + 1, *v = b->v_recv + STRIDE * i + 2;
    const int *w = b->w_recv + STRIDE * (nb->nin - 1 - i);
    if (s == MPI_PROC_NULL) { /* nothing written */
      for (size_t x = 0; x < blk; ++x) CHECK(ag[x] == SENTINEL && a2a[x] == SENTINEL);
      check_untouched(agv, 0, STRIDE - 1);
      check_untouched(v, 0, STRIDE - 2);
      check_untouched(w, 0, STRIDE);
      continue;
    }
    const int j = sender_slot(nb, i);
    CHECK(check_pattern(ag, blk, seed_of(salt, s, 0)) == -1);
    CHECK(check_pattern(a2a, blk, seed_of(salt + 1, s, j)) == -1);
    const int gi = gather_items_of(s);
    for (int x = 0; x < gi; ++x) CHECK(agv[x] == int_of(seed_of(salt + 2, s, 0), x));
    check_untouched(agv, gi, STRIDE - 1);
    const int vi = items_of(s, j);
    for (int x = 0; x < vi; ++x) CHECK(v[x] == int_of(seed_of(salt + 3, s, j), x));
    check_untouched(v, vi, STRIDE - 2);
    const int wi = items_of(s, j + 1);
    for (int x = 0; x < wi; ++x) {
      CHECK(w[2 * x] == int_of(seed_of(salt + 4, s, j), x));
      if (2 * x + 1 < STRIDE) CHECK(w[2 * x + 1] == INT_SENTINEL); /* the strided type's holes */
    }
    check_untouched(w, 2 * wi, STRIDE);
  }
  check_untouched(b->agv_recv, 0, 1);
  check_untouched(b->v_recv, 0, 2);
}

static void release(Bufs *b, const Nb *nb) {
  for (int i = 0; i < nb->nin; ++i) CHECK_MPI(MPI_Type_free(&b->w_rtypes[i]));
  CHECK_MPI(MPI_Type_free(&b->a2a_type));
  free(b->ag_send), free(b->ag_recv), free(b->a2a_send), free(b->a2a_recv);
  free(b->agv_send), free(b->agv_recv), free(b->agv_counts), free(b->agv_displs);
  free(b->v_send), free(b->v_recv), free(b->v_scounts), free(b->v_sdispls), free(b->v_rcounts),
      free(b->v_rdispls);
  free(b->w_send), free(b->w_recv), free(b->w_scounts), free(b->w_rcounts), free(b->w_sdispls),
      free(b->w_rdispls);
  free(b->w_stypes), free(b->w_rtypes);
}

static void print_list(const char *what, const int *v, int n) {
  printf(" %s [", what);
  for (int i = 0; i < n; ++i) {
    if (v[i] == MPI_PROC_NULL) {
      printf(i ? " -" : "-");
    } else {
      printf(i ? " %d" : "%d", v[i]);
    }
  }
  printf("]");
}

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* Whether a neighbour appears twice among this rank's sources. */
static int repeats(const Nb *nb) {
  for (int i = 0; i < nb->nin; ++i) {
    for (int q = 0; q < i; ++q) {
      if (nb->in[i] != MPI_PROC_NULL && nb->in[q] == nb->in[i]) return 1;
    }
  }
  return 0;
}

/* Every collective on `comm`, blocking then nonblocking, bytes checked. Rank 0 prints its neighbours
 * (sorted when the library chooses the order: `sorted`). */
static void run_all(MPI_Comm comm, const char *name, size_t blk, unsigned salt, int sorted) {
  Nb nb;
  nb_init(comm, &nb);
  /* Open MPI 4.1's nonblocking forms pair a Cartesian neighbour's repeated blocks the MPI-3.1 way
   * (block s into block s, fixed later upstream), so they are checked there only under libtakyon_mpi. */
  int skip = !takyon_mpi() && nb.cart && repeats(&nb), any = 0;
  CHECK_MPI(MPI_Allreduce(&skip, &any, 1, MPI_INT, MPI_MAX, comm));
  for (int nonblocking = 0; nonblocking <= 1 - any; ++nonblocking) {
    Bufs b;
    MPI_Request reqs[NCOLL];
    prepare(&nb, &b, blk, salt + 10u * (unsigned)nonblocking);
    start(comm, &nb, &b, nonblocking, reqs);
    if (nonblocking) CHECK_MPI(MPI_Waitall(NCOLL, reqs, MPI_STATUSES_IGNORE));
    verify(&nb, &b, salt + 10u * (unsigned)nonblocking);
    release(&b, &nb);
  }
  if (world_rank() == 0) {
    int *in = alloc_ints(nb.nin), *out = alloc_ints(nb.nout);
    memcpy(in, nb.in, sizeof(int) * (size_t)nb.nin);
    memcpy(out, nb.out, sizeof(int) * (size_t)nb.nout);
    if (sorted) {
      qsort(in, (size_t)nb.nin, sizeof(int), cmp_int);
      qsort(out, (size_t)nb.nout, sizeof(int), cmp_int);
    }
    printf("%s: rank 0", name);
    print_list("sources", in, nb.nin);
    print_list("destinations", out, nb.nout);
    printf(", %zu-byte blocks: all 5 collectives checked, blocking and nonblocking\n", blk);
    fflush(stdout);
    free(in);
    free(out);
  }
  nb_free(&nb);
}

static void cart_case(const char *name, int nd, const int *dims, const int *periods, size_t blk,
                      unsigned salt) {
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
  run_all(cart, name, blk, salt, 0);
  CHECK_MPI(MPI_Comm_free(&cart));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int size = world_size(), rank = world_rank();

  /* Cartesian */
  int dims[3] = {size, 0, 0}, periods[3] = {1, 0, 0};
  cart_case("cart ring (periodic)", 1, dims, periods, 70000, 1);
  periods[0] = 0;
  cart_case("cart line (PROC_NULL ends)", 1, dims, periods, 40, 2);
  dims[0] = 0;
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  periods[0] = 1, periods[1] = 0;
  cart_case("cart 2-D (periodic x non-periodic)", 2, dims, periods, 24, 3);
  dims[0] = size, dims[1] = 1, dims[2] = 1;
  periods[0] = 0, periods[1] = 1, periods[2] = 0;
  cart_case("cart 3-D (extent-1 periodic and non-periodic dims)", 3, dims, periods, 8, 4);

  /* Graph: a ring (both ways) plus a star around node 0; every edge listed from both ends. */
  int *index = alloc_ints(size), *edges = alloc_ints(4 * size), ne = 0;
  for (int i = 0; i < size; ++i) {
    edges[ne++] = (i + 1) % size;
    edges[ne++] = (i + size - 1) % size;
    if (i == 0) {
      for (int k = 1; k < size; ++k) edges[ne++] = k;
    } else {
      edges[ne++] = 0;
    }
    index[i] = ne;
  }
  MPI_Comm graph;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  run_all(graph, "graph (ring + star)", 16, 5, 0);
  CHECK_MPI(MPI_Comm_free(&graph));
  free(index);
  free(edges);

  /* Distributed graph, adjacent: send to rank + 1 and + 2, receive from rank - 1 and - 2. */
  int srcs[2] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size};
  int dsts[2] = {(rank + 1) % size, (rank + 2) % size};
  int w[2] = {1, 2};
  MPI_Comm dg, dup;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w, MPI_INFO_NULL, 0, &dg));
  run_all(dg, "dist graph adjacent (circulant)", 32, 6, 0);
  CHECK_MPI(MPI_Comm_dup(dg, &dup));
  CHECK_MPI(MPI_Comm_free(&dg));
  run_all(dup, "dist graph adjacent, duplicate", 32, 7, 0);
  CHECK_MPI(MPI_Comm_free(&dup));

  /* Distributed graph from edges named by other ranks: rank r names (r + 1) -> (r + 3), a loop at
   * r + 1 and the edge (r + 2) -> (r + 1); rank 0 names 0 -> 1 once more (a double edge). With 2 ranks
   * or more the last rank names nothing and every edge touching it is left out: it is isolated. */
  const int iso = size > 1 ? size - 1 : -1;
  const int n = size - (size > 1 ? 1 : 0); /* the ranks that take part */
  int esrc[4], edeg[4], edst[4], nsrc = 0;
  if (rank != iso) {
    const int a = (rank + 1) % n, b = (rank + 3) % n, c = (rank + 2) % n;
    esrc[nsrc] = a, edeg[nsrc] = 2, edst[0] = b, edst[1] = a, ++nsrc; /* a -> b, a -> a */
    esrc[nsrc] = c, edeg[nsrc] = 1, edst[2] = a, ++nsrc;              /* c -> a */
    if (rank == 0) esrc[nsrc] = 0, edeg[nsrc] = 1, edst[3] = n > 1 ? 1 : 0, ++nsrc;
  }
  CHECK_MPI(
      MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, esrc, edeg, edst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
  run_all(dg, "dist graph from named edges (loops, a double edge, an isolated rank)", 20, 8, 1);
  CHECK_MPI(MPI_Comm_free(&dg));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
