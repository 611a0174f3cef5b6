/* SPDX-License-Identifier: MIT */
/* Persistent collectives (MPI-4 MPI_*_init): every one initialized once, then started many times with
 * MPI_Startall or MPI_Start, new data in the buffers before each start (a derived datatype's data is
 * packed again), completed with Waitall, Wait or Test polling, a blocking collective and
 * point-to-point traffic between the start and the completion; every result checked at small and
 * rendezvous sizes. Then the errors: starting an active request, freeing an active one, a bad info,
 * a bad root. Open MPI 4.1 has these only as MPIX_*: not compared, checked here. */
#include "test_util.h"

#define NREQ 19
static int rank_, size_;

static int val(int it, int r, int i) {
  return it * 7919 + r * 1009 + i * 3 + 1;
}

static int *ints(size_t n) {
  int *p = (int *)calloc(n == 0 ? 1 : n, sizeof(int));
  CHECK(p != NULL);
  return p;
}

struct Bufs {
  int n;
  int *bc, *bcv, *gs, *gr, *gvr, *ss, *sr, *svr, *ags, *agr, *agvr, *a2as, *a2ar, *a2vr, *a2wr;
  int *rds, *rdr, *ars, *arr, *arip, *rss, *rsr, *rsbr, *scs, *scr, *exr;
  int *counts, *displs, *a2counts, *a2sd, *a2rd, *wsd, *wrd;
  MPI_Datatype *wtypes;
  int vtotal;
};

/* An int with the extent of two: n of them are every second int of 2n, data the schedule packs
 * (and unpacks) at each start. */
static MPI_Datatype strided_;

static void alloc_bufs(struct Bufs *b, int n) {
  size_t N = (size_t)n, P = (size_t)size_;
  b->n = n;
  b->bc = ints(N);
  b->bcv = ints(2 * N);
  b->gs = ints(N);
  b->gr = ints(N * P);
  b->ss = ints(N * P);
  b->sr = ints(N);
  b->svr = ints(N);
  b->ags = ints(N);
  b->agr = ints(N * P);
  b->a2as = ints(N * P);
  b->a2ar = ints(N * P);
  b->a2vr = ints(N * P);
  b->a2wr = ints(N * P);
  b->rds = ints(N);
  b->rdr = ints(N);
  b->ars = ints(N);
  b->arr = ints(N);
  b->arip = ints(N);
  b->rss = ints(N * P);
  b->rsr = ints(N);
  b->rsbr = ints(N);
  b->scs = ints(N);
  b->scr = ints(N);
  b->exr = ints(N);
  b->counts = ints(P);
  b->displs = ints(P);
  b->a2counts = ints(P);
  b->a2sd = ints(P);
  b->a2rd = ints(P);
  b->wsd = ints(P);
  b->wrd = ints(P);
  b->wtypes = (MPI_Datatype *)calloc(P, sizeof(MPI_Datatype));
  CHECK(b->wtypes != NULL);
  int total = 0;
  for (int q = 0; q < size_; ++q) {
    b->counts[q] = n / (q + 1); /* rank q's block in the v forms */
    b->displs[q] = total;
    total += b->counts[q];
    b->a2counts[q] = n;
    b->a2sd[q] = q * n;
    b->a2rd[q] = (size_ - 1 - q) * n; /* received blocks laid out in reverse */
    b->wsd[q] = b->a2sd[q] * (int)sizeof(int);
    b->wrd[q] = b->a2rd[q] * (int)sizeof(int);
    b->wtypes[q] = MPI_INT;
  }
  b->vtotal = total;
  b->gvr = ints((size_t)total);
  b->agvr = ints((size_t)total);
}

/* New data for iteration `it` in every buffer a collective reads. */
static void fill(struct Bufs *b, int it) {
  size_t N = (size_t)b->n;
  for (int i = 0; i < b->n; ++i) {
    if (rank_ == 0) b->bc[i] = val(it, 0, i);
    if (rank_ == size_ - 1) b->bcv[2 * i] = val(it, 5, i);
    b->gs[i] = b->ags[i] = b->rds[i] = b->ars[i] = b->scs[i] = val(it, rank_, i);
    b->arip[i] = val(it, rank_, i) + 2;
    for (int q = 0; q < size_; ++q) {
      b->ss[(size_t)q * N + (size_t)i] = val(it, q, i) + 11;
      b->a2as[(size_t)q * N + (size_t)i] = val(it, rank_, i) * 3 + q;
      b->rss[(size_t)q * N + (size_t)i] = val(it, rank_, i) + q;
    }
  }
}

static void init_all(struct Bufs *b, MPI_Request *r, MPI_Info info) {
  int n = b->n;
  MPI_Comm w = MPI_COMM_WORLD;
  int root = size_ / 2;
  CHECK_MPI(MPI_Barrier_init(w, info, &r[0]));
  CHECK_MPI(MPI_Bcast_init(b->bc, n, MPI_INT, 0, w, info, &r[1]));
  CHECK_MPI(MPI_Bcast_init(b->bcv, n, strided_, size_ - 1, w, info, &r[2]));
  CHECK_MPI(MPI_Gather_init(b->gs, n, MPI_INT, b->gr, n, MPI_INT, root, w, info, &r[3]));
  CHECK_MPI(MPI_Gatherv_init(b->gs, b->counts[rank_], MPI_INT, b->gvr, b->counts, b->displs, MPI_INT, 0, w,
                             info, &r[4]));
  CHECK_MPI(MPI_Scatter_init(b->ss, n, MPI_INT, b->sr, n, MPI_INT, root, w, info, &r[5]));
  CHECK_MPI(MPI_Scatterv_init(b->ss, b->counts, b->displs, MPI_INT, b->svr, b->counts[rank_], MPI_INT, 0, w,
                              info, &r[6]));
  CHECK_MPI(MPI_Allgather_init(b->ags, n, MPI_INT, b->agr, n, MPI_INT, w, info, &r[7]));
  CHECK_MPI(MPI_Allgatherv_init(b->ags, b->counts[rank_], MPI_INT, b->agvr, b->counts, b->displs, MPI_INT, w,
                                info, &r[8]));
  CHECK_MPI(MPI_Alltoall_init(b->a2as, n, MPI_INT, b->a2ar, n, MPI_INT, w, info, &r[9]));
  CHECK_MPI(MPI_Alltoallv_init(b->a2as, b->a2counts, b->a2sd, MPI_INT, b->a2vr, b->a2counts, b->a2rd, MPI_INT,
                               w, info, &r[10]));
  CHECK_MPI(MPI_Alltoallw_init(b->a2as, b->a2counts, b->wsd, b->wtypes, b->a2wr, b->a2counts, b->wrd,
                               b->wtypes, w, info, &r[11]));
  CHECK_MPI(MPI_Reduce_init(b->rds, b->rdr, n, MPI_INT, MPI_MAX, size_ - 1, w, info, &r[12]));
  CHECK_MPI(MPI_Allreduce_init(b->ars, b->arr, n, MPI_INT, MPI_SUM, w, info, &r[13]));
  CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, b->arip, n, MPI_INT, MPI_BXOR, w, info, &r[14]));
  CHECK_MPI(MPI_Reduce_scatter_init(b->rss, b->rsr, b->a2counts, MPI_INT, MPI_SUM, w, info, &r[15]));
  CHECK_MPI(MPI_Reduce_scatter_block_init(b->rss, b->rsbr, n, MPI_INT, MPI_MIN, w, info, &r[16]));
  CHECK_MPI(MPI_Scan_init(b->scs, b->scr, n, MPI_INT, MPI_SUM, w, info, &r[17]));
  CHECK_MPI(MPI_Exscan_init(b->scs, b->exr, n, MPI_INT, MPI_SUM, w, info, &r[18]));
}

static void check_all(const struct Bufs *b, int it) {
  size_t N = (size_t)b->n;
  int root = size_ / 2;
  for (int i = 0; i < b->n; ++i) {
    CHECK(b->bc[i] == val(it, 0, i));
    CHECK(b->bcv[2 * i] == val(it, 5, i));
    CHECK(rank_ == size_ - 1 || b->bcv[2 * i + 1] == 0); /* the holes stay untouched */
    CHECK(b->sr[i] == val(it, rank_, i) + 11);
    int sum = 0, mx = 0, x = 0, mn = 0, scan = 0;
    for (int q = 0; q < size_; ++q) {
      CHECK(b->agr[(size_t)q * N + (size_t)i] == val(it, q, i));
      CHECK(b->a2ar[(size_t)q * N + (size_t)i] == val(it, q, i) * 3 + rank_);
      CHECK(b->a2vr[(size_t)(size_ - 1 - q) * N + (size_t)i] == val(it, q, i) * 3 + rank_);
      CHECK(b->a2wr[(size_t)(size_ - 1 - q) * N + (size_t)i] == val(it, q, i) * 3 + rank_);
      if (rank_ == root) CHECK(b->gr[(size_t)q * N + (size_t)i] == val(it, q, i));
      int v = val(it, q, i);
      sum += v;
      mx = v > mx ? v : mx;
      x ^= v + 2;
      int rs = val(it, q, i) + rank_;
      mn = q == 0 || rs < mn ? rs : mn;
      if (q < rank_) scan += v;
    }
    CHECK(b->arr[i] == sum);
    CHECK(b->arip[i] == x);
    if (rank_ == size_ - 1) CHECK(b->rdr[i] == mx);
    int rsum = 0;
    for (int q = 0; q < size_; ++q) rsum += val(it, q, i) + rank_;
    CHECK(b->rsr[i] == rsum);
    CHECK(b->rsbr[i] == mn);
    CHECK(b->scr[i] == scan + val(it, rank_, i));
    if (rank_ > 0) CHECK(b->exr[i] == scan);
  }
  for (int q = 0; q < size_; ++q) {
    for (int i = 0; i < b->counts[q]; ++i) {
      CHECK(b->agvr[b->displs[q] + i] == val(it, q, i));
      if (rank_ == 0) CHECK(b->gvr[b->displs[q] + i] == val(it, q, i));
    }
  }
  /* Scatterv's source is the root's ss at displs, which fill() makes the same on every rank. */
  for (int i = 0; i < b->counts[rank_]; ++i) CHECK(b->svr[i] == b->ss[(size_t)b->displs[rank_] + (size_t)i]);
}

static void free_bufs(struct Bufs *b) {
  int *all[] = {b->bc,   b->bcv,  b->gs,   b->gr,   b->ss,  b->sr,  b->svr,    b->ags,    b->agr,
                b->a2as, b->a2ar, b->a2vr, b->a2wr, b->rds, b->rdr, b->ars,    b->arr,    b->arip,
                b->rss,  b->rsr,  b->rsbr, b->scs,  b->scr, b->exr, b->counts, b->displs, b->a2counts,
                b->a2sd, b->a2rd, b->wsd,  b->wrd,  b->gvr, b->agvr};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
  free(b->wtypes);
}

static void run(int n, int iterations) {
  struct Bufs b;
  alloc_bufs(&b, n);
  MPI_Request r[NREQ];
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided_));
  CHECK_MPI(MPI_Type_commit(&strided_));
  init_all(&b, r, MPI_INFO_NULL);
  CHECK_MPI(MPI_Type_free(&strided_)); /* the requests keep using it (MPI-4: freed, not gone) */
  int right = (rank_ + 1) % size_, left = (rank_ - 1 + size_) % size_;
  for (int it = 0; it < iterations; ++it) {
    fill(&b, it);
    if (it % 3 == 0) {
      CHECK_MPI(MPI_Startall(NREQ, r));
    } else {
      for (int k = 0; k < NREQ; ++k) CHECK_MPI(MPI_Start(&r[k]));
    }
    /* Other traffic while they are in flight: a blocking collective and a message round the ring. */
    int mine = it + rank_, got = -1, total = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(total == it * size_ + size_ * (size_ - 1) / 2);
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == it + left);
    if (it % 3 == 0) {
      CHECK_MPI(MPI_Waitall(NREQ, r, MPI_STATUSES_IGNORE));
    } else if (it % 3 == 1) {
      for (int k = NREQ - 1; k >= 0; --k) {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r[k], &st));
        CHECK(r[k] != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
      }
    } else {
      int done = 0;
      while (!done) CHECK_MPI(MPI_Testall(NREQ, r, &done, MPI_STATUSES_IGNORE));
    }
    check_all(&b, it);
  }
  /* Inactive requests: Wait and Test return at once with an empty status. */
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&r[1], &st));
  int flag = 0;
  CHECK_MPI(MPI_Test(&r[2], &flag, &st));
  CHECK(flag == 1);
  for (int k = 0; k < NREQ; ++k) {
    CHECK_MPI(MPI_Request_free(&r[k]));
    CHECK(r[k] == MPI_REQUEST_NULL);
  }
  free_bufs(&b);
  PRINT0("persistent collectives: %d items, %d starts each: ok\n", n, iterations);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[4] = {rank_ + 1, 2, 0, 0}, bb[2] = {rank_, rank_};
  MPI_Request r;
  CHECK_MPI(MPI_Bcast_init(bb, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_MPI(MPI_Start(&r));
  expect_class("MPI_Start of an active persistent collective", MPI_Start(&r), MPI_ERR_REQUEST);
  expect_class("MPI_Request_free of an active persistent collective", MPI_Request_free(&r), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(bb[0] == 0 && bb[1] == 0);
  expect_class("MPI_Cancel of a persistent collective", MPI_Cancel(&r), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Request_free(&r));
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "takyon_unknown_hint", "1")); /* hints are accepted and ignored */
  CHECK_MPI(MPI_Allreduce_init(buf, buf + 2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &r));
  MPI_Info freed = info;
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(buf[2] == size_ * (size_ + 1) / 2 && buf[3] == 2 * size_);
  CHECK_MPI(MPI_Request_free(&r));
  expect_class("MPI_Allreduce_init with a freed info",
               MPI_Allreduce_init(buf, buf + 2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, freed, &r),
               MPI_ERR_INFO);
  expect_class("MPI_Bcast_init with root = size",
               MPI_Bcast_init(buf, 4, MPI_INT, size_, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_ROOT);
  expect_class("MPI_Barrier_init with request NULL", MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL),
               MPI_ERR_ARG);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  run(3, 7);
  run(20000, 4); /* 80 KB blocks: the rendezvous protocols */
  errors();
  MPI_Finalize();
  return 0;
}
