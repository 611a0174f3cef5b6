/* SPDX-License-Identifier: MIT */
/* Process topologies: a table of MPI_Dims_create results; Cartesian grids of 1-3 dimensions over all
 * ranks (periodic and not) with every query (Topo_test, Cartdim_get, Cart_get, Cart_rank with
 * periodic wrap, Cart_coords of every rank) and a halo exchange along each dimension both ways
 * (Cart_shift + Sendrecv, bytes checked, MPI_PROC_NULL at non-periodic edges); a grid smaller than
 * the communicator (MPI_COMM_NULL beyond it); Cart_sub rows, columns, planes and points, each with a
 * barrier and a ring inside; Comm_dup keeping the topology after the original is freed; graph
 * topologies (a ring over all ranks, a star over all but the last) with every graph query and a
 * neighbour exchange, bytes checked. np 1-5. */
#include "test_util.h"

static void print_ints(const char *what, const int *v, int n) {
  if (world_rank() != 0) return;
  printf("%s [", what);
  for (int i = 0; i < n; ++i) printf(i ? " %d" : "%d", v[i]);
  printf("]");
}

/* ---- MPI_Dims_create ---- */
static void dims_table(void) {
  static const struct {
    int nnodes, ndims, in[4];
  } cases[] = {
      {1, 1, {0}},         {7, 1, {0}},        {6, 2, {0, 0}},          {7, 2, {0, 0}},
      {12, 2, {0, 0}},     {16, 2, {0, 0}},    {30, 3, {0, 0, 0}},      {64, 3, {0, 0, 0}},
      {100, 3, {0, 0, 0}}, {27, 3, {0, 0, 0}}, {128, 3, {0, 0, 0}},     {24, 4, {0, 0, 0, 0}},
      {12, 3, {0, 3, 0}},  {60, 3, {0, 0, 5}}, {1000, 4, {4, 0, 0, 1}}, {24, 2, {4, 6}},
      {5, 3, {0, 0, 0}},   {36, 2, {0, 0}},    {2, 4, {0, 0, 0, 0}},    {210, 4, {0, 0, 0, 0}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int d[4];
    memcpy(d, cases[k].in, sizeof d);
    CHECK_MPI(MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d));
    long prod = 1;
    for (int i = 0; i < cases[k].ndims; ++i) {
      CHECK(d[i] >= 1);
      if (cases[k].in[i] != 0) CHECK(d[i] == cases[k].in[i]);
      prod *= d[i];
    }
    CHECK(prod == cases[k].nnodes);
    char what[64];
    snprintf(what, sizeof what, "dims_create(%d, %d,", cases[k].nnodes, cases[k].ndims);
    print_ints(what, cases[k].in, cases[k].ndims);
    print_ints(") =", d, cases[k].ndims);
    PRINT0("\n");
  }
  /* 72 in 2 dimensions: the most balanced split is 9 x 8 (Open MPI 4.1's greedy one gives 12 x 6). */
  int d[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(72, 2, d));
  if (takyon_mpi()) CHECK(d[0] == 9 && d[1] == 8);
  PRINT0("dims_create(72, 2) balanced: checked under libtakyon_mpi\n");
}

/* ---- Cartesian helpers of the test itself (row-major, last dimension fastest) ---- */
static int my_rank_of(int nd, const int *dims, const int *coords) {
  int r = 0;
  for (int i = 0; i < nd; ++i) r = r * dims[i] + coords[i];
  return r;
}
static void my_coords_of(int nd, const int *dims, int r, int *coords) {
  for (int i = nd - 1; i >= 0; --i) {
    coords[i] = r % dims[i];
    r /= dims[i];
  }
}
/* The neighbour at distance disp along dimension d, or MPI_PROC_NULL. */
static int my_shift(int nd, const int *dims, const int *periods, const int *coords, int d, int disp) {
  int c[3];
  memcpy(c, coords, sizeof(int) * (size_t)nd);
  long x = (long)c[d] + disp;
  if (periods[d]) {
    x = ((x % dims[d]) + dims[d]) % dims[d];
  } else if (x < 0 || x >= dims[d]) {
    return MPI_PROC_NULL;
  }
  c[d] = (int)x;
  return my_rank_of(nd, dims, c);
}

/* Checks every query of the Cartesian communicator `cart` against dims/periods. */
static void check_cart(MPI_Comm cart, int nd, const int *dims, const int *periods) {
  int status = -1, n = -1, size = -1, rank = -1;
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART);
  CHECK_MPI(MPI_Cartdim_get(cart, &n));
  CHECK(n == nd);
  CHECK_MPI(MPI_Comm_size(cart, &size));
  CHECK_MPI(MPI_Comm_rank(cart, &rank));
  int cells = 1;
  for (int i = 0; i < nd; ++i) cells *= dims[i];
  CHECK(size == cells);
  int gd[3] = {-1, -1, -1}, gp[3] = {-1, -1, -1}, gc[3] = {-1, -1, -1}, want[3];
  CHECK_MPI(MPI_Cart_get(cart, 3, gd, gp, gc));
  my_coords_of(nd, dims, rank, want);
  for (int i = 0; i < nd; ++i) {
    CHECK(gd[i] == dims[i]);
    CHECK(gp[i] == (periods[i] != 0));
    CHECK(gc[i] == want[i]);
  }
  int r = -1;
  if (nd > 0) {
    CHECK_MPI(MPI_Cart_rank(cart, gc, &r));
    CHECK(r == rank);
  }
  for (int q = 0; q < size && nd > 0; ++q) {
    int c[3];
    CHECK_MPI(MPI_Cart_coords(cart, q, 3, c));
    my_coords_of(nd, dims, q, want);
    for (int i = 0; i < nd; ++i) CHECK(c[i] == want[i]);
    CHECK_MPI(MPI_Cart_rank(cart, c, &r));
    CHECK(r == q);
  }
  /* Periodic dimensions wrap coordinates in Cart_rank (one turn forward and backward). */
  for (int i = 0; i < nd; ++i) {
    if (!periods[i]) continue;
    int c[3];
    memcpy(c, gc, sizeof c);
    c[i] += dims[i];
    CHECK_MPI(MPI_Cart_rank(cart, c, &r));
    CHECK(r == rank);
    c[i] = gc[i] - 2 * dims[i];
    CHECK_MPI(MPI_Cart_rank(cart, c, &r));
    CHECK(r == rank);
  }
}

/* Halo exchange along every dimension both ways: Cart_shift + Sendrecv, bytes checked. The first
 * dimension's messages are large (rendezvous), the others small (eager). Rank 0 prints its
 * neighbours. */
static void halo(MPI_Comm cart, int nd, const int *dims, const int *periods, unsigned salt) {
  int rank, coords[3];
  CHECK_MPI(MPI_Comm_rank(cart, &rank));
  my_coords_of(nd, dims, rank, coords);
  for (int d = 0; d < nd; ++d) {
    for (int sign = -1; sign <= 1; sign += 2) {
      int src = -7, dst = -7;
      CHECK_MPI(MPI_Cart_shift(cart, d, sign, &src, &dst));
      CHECK(dst == my_shift(nd, dims, periods, coords, d, sign));
      CHECK(src == my_shift(nd, dims, periods, coords, d, -sign));
      /* disp beyond the extent: wraps when periodic, leaves the grid otherwise */
      int src2, dst2;
      CHECK_MPI(MPI_Cart_shift(cart, d, sign * (dims[d] + 1), &src2, &dst2));
      CHECK(dst2 == my_shift(nd, dims, periods, coords, d, sign * (dims[d] + 1)));
      CHECK(src2 == my_shift(nd, dims, periods, coords, d, -sign * (dims[d] + 1)));
      if (periods[d]) CHECK(dst2 == dst && src2 == src);
      size_t bytes = d == 0 ? 70000 : (size_t)(100 + 10 * d);
      unsigned tag = (unsigned)(d * 2 + (sign > 0));
      unsigned char *out = malloc(bytes), *in = malloc(bytes);
      fill_pattern(out, bytes, salt * 1000u + (unsigned)rank * 10u + tag);
      memset(in, 0xEE, bytes);
      MPI_Status st;
      CHECK_MPI(MPI_Sendrecv(out, (int)bytes, MPI_BYTE, dst, (int)tag, in, (int)bytes, MPI_BYTE, src,
                             (int)tag, cart, &st));
      int count = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      if (src == MPI_PROC_NULL) {
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0);
        for (size_t i = 0; i < bytes; ++i) CHECK(in[i] == 0xEE);
      } else {
        CHECK(st.MPI_SOURCE == src && st.MPI_TAG == (int)tag && count == (int)bytes);
        CHECK(check_pattern(in, bytes, salt * 1000u + (unsigned)src * 10u + tag) == -1);
      }
      free(out);
      free(in);
      if (world_rank() == 0) {
        char s[16], t[16];
        snprintf(s, sizeof s, src == MPI_PROC_NULL ? "PROC_NULL" : "%d", src);
        snprintf(t, sizeof t, dst == MPI_PROC_NULL ? "PROC_NULL" : "%d", dst);
        printf("  shift dim %d disp %+d: source %s dest %s, %zu bytes checked\n", d, sign, s, t, bytes);
      }
    }
  }
}

static void cart_case(int nd, int periodic_mask, unsigned salt) {
  int size = world_size();
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0};
  CHECK_MPI(MPI_Dims_create(size, nd, dims));
  for (int i = 0; i < nd; ++i) periods[i] = (periodic_mask >> i) & 1;
  MPI_Comm cart = MPI_COMM_NULL;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
  CHECK(cart != MPI_COMM_NULL);
  int rank;
  CHECK_MPI(MPI_Comm_rank(cart, &rank));
  CHECK(rank == world_rank()); /* reorder = 0 keeps the ranks */
  char what[32];
  snprintf(what, sizeof what, "cart %dD dims", nd);
  print_ints(what, dims, nd);
  print_ints(" periods", periods, nd);
  PRINT0("\n");
  check_cart(cart, nd, dims, periods);
  halo(cart, nd, dims, periods, salt);

  /* A duplicate has the same topology, also once the original is freed. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(cart, &dup));
  CHECK_MPI(MPI_Comm_free(&cart));
  check_cart(dup, nd, dims, periods);
  halo(dup, nd, dims, periods, salt + 1);
  CHECK_MPI(MPI_Barrier(dup));
  CHECK_MPI(MPI_Comm_free(&dup));
}

/* A ring inside `comm` (Sendrecv to rank + 1, bytes checked) and a barrier. */
static void ring(MPI_Comm comm, unsigned salt) {
  int r, n;
  CHECK_MPI(MPI_Comm_rank(comm, &r));
  CHECK_MPI(MPI_Comm_size(comm, &n));
  int to = (r + 1) % n, from = (r + n - 1) % n;
  unsigned char out[300], in[300];
  fill_pattern(out, sizeof out, salt * 100u + (unsigned)r);
  memset(in, 0, sizeof in);
  MPI_Status st;
  CHECK_MPI(
      MPI_Sendrecv(out, (int)sizeof out, MPI_BYTE, to, 5, in, (int)sizeof in, MPI_BYTE, from, 5, comm, &st));
  CHECK(st.MPI_SOURCE == from);
  CHECK(check_pattern(in, sizeof in, salt * 100u + (unsigned)from) == -1);
  CHECK_MPI(MPI_Barrier(comm));
}

/* A grid of size - 1 cells: the last rank is beyond it and gets MPI_COMM_NULL. */
static void partial_grid(void) {
  int size = world_size();
  if (size < 2) {
    PRINT0("partial grid: needs 2 ranks\n");
    return;
  }
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  CHECK_MPI(MPI_Dims_create(size - 1, 2, dims));
  MPI_Comm cart = MPI_COMM_NULL;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  if (world_rank() == size - 1) {
    CHECK(cart == MPI_COMM_NULL);
  } else {
    CHECK(cart != MPI_COMM_NULL);
    check_cart(cart, 2, dims, periods);
    halo(cart, 2, dims, periods, 40);
    ring(cart, 41);
    CHECK_MPI(MPI_Comm_free(&cart));
  }
  print_ints("partial grid dims", dims, 2);
  PRINT0(": the last rank has MPI_COMM_NULL\n");
}

/* Cart_sub of a 2-D grid into rows and columns and of a 3-D grid into planes; all dimensions
 * dropped gives one-process communicators of 0 dimensions. */
static void cart_sub(void) {
  int size = world_size(), rank = world_rank();
  int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1}, c[3];
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm grid, rows, cols, point;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
  my_coords_of(2, dims, rank, c);
  int keep_row[2] = {0, 1}, keep_col[2] = {1, 0}, keep_none[2] = {0, 0};
  CHECK_MPI(MPI_Cart_sub(grid, keep_row, &rows));
  CHECK_MPI(MPI_Cart_sub(grid, keep_col, &cols));
  int row_dims[1] = {dims[1]}, row_periods[1] = {periods[1]};
  int col_dims[1] = {dims[0]}, col_periods[1] = {periods[0]};
  check_cart(rows, 1, row_dims, row_periods);
  check_cart(cols, 1, col_dims, col_periods);
  int r;
  CHECK_MPI(MPI_Comm_rank(rows, &r));
  CHECK(r == c[1]);
  CHECK_MPI(MPI_Comm_rank(cols, &r));
  CHECK(r == c[0]);
  /* rows and columns at once: messages on one never match the other's */
  ring(rows, 50);
  ring(cols, 51);
  halo(rows, 1, row_dims, row_periods, 52);
  halo(cols, 1, col_dims, col_periods, 53);
  print_ints("cart_sub of grid", dims, 2);
  PRINT0(": rows of %d, columns of %d\n", dims[1], dims[0]);

  CHECK_MPI(MPI_Cart_sub(grid, keep_none, &point));
  int n = -1, status = -1;
  CHECK_MPI(MPI_Comm_size(point, &n));
  CHECK(n == 1);
  CHECK_MPI(MPI_Topo_test(point, &status));
  CHECK(status == MPI_CART);
  CHECK_MPI(MPI_Cartdim_get(point, &n));
  CHECK(n == 0);
  CHECK_MPI(MPI_Barrier(point));
  PRINT0("cart_sub keeping no dimension: 1 process, 0 dimensions\n");
  CHECK_MPI(MPI_Comm_free(&point));
  CHECK_MPI(MPI_Comm_free(&rows));
  CHECK_MPI(MPI_Comm_free(&cols));
  CHECK_MPI(MPI_Comm_free(&grid));

  /* 3-D: keep dimensions 0 and 2 (planes) */
  int d3[3] = {0, 0, 0};
  CHECK_MPI(MPI_Dims_create(size, 3, d3));
  MPI_Comm cube, plane;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, periods, 0, &cube));
  int keep[3] = {1, 0, 1};
  CHECK_MPI(MPI_Cart_sub(cube, keep, &plane));
  int pd[2] = {d3[0], d3[2]}, pp[2] = {periods[0], periods[2]};
  check_cart(plane, 2, pd, pp);
  my_coords_of(3, d3, rank, c);
  int pc[2] = {c[0], c[2]};
  CHECK_MPI(MPI_Comm_rank(plane, &r));
  CHECK(r == my_rank_of(2, pd, pc));
  halo(plane, 2, pd, pp, 54);
  ring(plane, 55);
  print_ints("cart_sub [1 0 1] of cube", d3, 3);
  print_ints(": planes", pd, 2);
  PRINT0("\n");
  CHECK_MPI(MPI_Comm_free(&plane));
  CHECK_MPI(MPI_Comm_free(&cube));
}

/* ---- graphs ---- */
static void check_graph(MPI_Comm g, int nnodes, const int *index, const int *edges, unsigned salt) {
  int status = -1, n = -1, ne = -1, rank;
  CHECK_MPI(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH);
  CHECK_MPI(MPI_Graphdims_get(g, &n, &ne));
  int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  CHECK(n == nnodes && ne == nedges);
  int gi[16], ge[32];
  CHECK_MPI(MPI_Graph_get(g, 16, 32, gi, ge));
  for (int i = 0; i < nnodes; ++i) CHECK(gi[i] == index[i]);
  for (int i = 0; i < nedges; ++i) CHECK(ge[i] == edges[i]);
  for (int node = 0; node < nnodes; ++node) {
    int first = node == 0 ? 0 : index[node - 1], count = -1, nb[16];
    CHECK_MPI(MPI_Graph_neighbors_count(g, node, &count));
    CHECK(count == index[node] - first);
    CHECK_MPI(MPI_Graph_neighbors(g, node, 16, nb));
    for (int i = 0; i < count; ++i) CHECK(nb[i] == edges[first + i]);
  }
  /* Every node sends to each neighbour and receives from each (the edges here are symmetric). */
  CHECK_MPI(MPI_Comm_rank(g, &rank));
  int count, nb[16];
  CHECK_MPI(MPI_Graph_neighbors_count(g, rank, &count));
  CHECK_MPI(MPI_Graph_neighbors(g, rank, 16, nb));
  unsigned char out[16][200], in[16][200];
  MPI_Request rq[32];
  for (int i = 0; i < count; ++i) {
    fill_pattern(out[i], 200, salt * 1000u + (unsigned)rank * 16u + (unsigned)nb[i]);
    memset(in[i], 0, 200);
    CHECK_MPI(MPI_Irecv(in[i], 200, MPI_BYTE, nb[i], 9, g, &rq[2 * i]));
    CHECK_MPI(MPI_Isend(out[i], 200, MPI_BYTE, nb[i], 9, g, &rq[2 * i + 1]));
  }
  CHECK_MPI(MPI_Waitall(2 * count, rq, MPI_STATUSES_IGNORE));
  for (int i = 0; i < count; ++i) {
    CHECK(check_pattern(in[i], 200, salt * 1000u + (unsigned)nb[i] * 16u + (unsigned)rank) == -1);
  }
  CHECK_MPI(MPI_Barrier(g));
}

static void graphs(void) {
  int size = world_size(), rank = world_rank();
  /* a ring over every rank (no edges for one rank, one neighbour each for two) */
  int index[8], edges[16], ne = 0;
  for (int i = 0; i < size; ++i) {
    int right = (i + 1) % size, left = (i + size - 1) % size;
    if (right != i) edges[ne++] = right;
    if (left != i && left != right) edges[ne++] = left;
    index[i] = ne;
  }
  MPI_Comm ring_graph, dup;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &ring_graph));
  CHECK(ring_graph != MPI_COMM_NULL);
  check_graph(ring_graph, size, index, edges, 60);
  CHECK_MPI(MPI_Comm_dup(ring_graph, &dup));
  CHECK_MPI(MPI_Comm_free(&ring_graph));
  check_graph(dup, size, index, edges, 61);
  CHECK_MPI(MPI_Comm_free(&dup));
  print_ints("graph ring: index", index, size);
  print_ints(" edges", edges, ne);
  PRINT0("\n");

  /* a star around node 0 over all ranks but the last, which gets MPI_COMM_NULL */
  if (size < 2) {
    PRINT0("graph star: needs 2 ranks\n");
    return;
  }
  int n = size - 1;
  ne = 0;
  for (int i = 1; i < n; ++i) edges[ne++] = i;
  index[0] = ne;
  for (int i = 1; i < n; ++i) {
    edges[ne++] = 0;
    index[i] = ne;
  }
  MPI_Comm star;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &star));
  if (rank == n) {
    CHECK(star == MPI_COMM_NULL);
  } else {
    CHECK(star != MPI_COMM_NULL);
    check_graph(star, n, index, edges, 62);
    CHECK_MPI(MPI_Comm_free(&star));
  }
  print_ints("graph star: index", index, n);
  print_ints(" edges", edges, ne);
  PRINT0("\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int status = -1;
  PRINT0("np %d\n", world_size());

  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);
  MPI_Comm plain;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &plain));
  CHECK_MPI(MPI_Topo_test(plain, &status));
  CHECK(status == MPI_UNDEFINED);
  CHECK_MPI(MPI_Comm_free(&plain));
  PRINT0("topo_test of MPI_COMM_WORLD and of a split: MPI_UNDEFINED\n");

  dims_table();
  cart_case(1, 0, 1);
  cart_case(1, 1, 3);
  cart_case(2, 0, 5);
  cart_case(2, 1, 7);
  cart_case(2, 3, 9);
  cart_case(3, 5, 11);
  partial_grid();
  cart_sub();
  graphs();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
