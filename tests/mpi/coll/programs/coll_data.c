/* SPDX-License-Identifier: MIT */
/* Every collective's data movement: several counts (0, small, and sizes above the algorithm
 * thresholds), roots 0 and size-1, MPI_IN_PLACE where the standard allows it. Every received value
 * is checked against a local computation; rank 0 prints one line per collective. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <time.h>

#include "test_util.h"

static int rank_, size_;
/* Ints per block: 0, small, and above the algorithm thresholds (80 KB); with the argument
 * "flat-sizes" also 8 and 64 KiB (the flat collectives' large buffers, with more ranks than cores). */
static const int kDefaultCounts[] = {0, 1, 7, 300, 20000};
static const int kFlatSizeCounts[] = {0, 1, 7, 300, 2000, 16384, 20000};
static const int *kCounts = kDefaultCounts;
static int NCOUNTS = (int)(sizeof kDefaultCounts / sizeof kDefaultCounts[0]);

static int val(int r, int i) {
  return r * 100003 + i * 7 + 1;
}

static int *ialloc(size_t n) {
  int *p = (int *)malloc((n == 0 ? 1 : n) * sizeof(int));
  CHECK(p != NULL);
  for (size_t i = 0; i < n; ++i) p[i] = -1;
  return p;
}

static void report(const char *name, int cases) {
  PRINT0("%-22s ok (%d cases)\n", name, cases);
}

/* CLOCK_MONOTONIC: one clock for all processes of a machine (these tests' ranks all run on one). */
static double mono_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* MPI_Barrier lets no rank leave before the last one has arrived. Each round makes another rank late
 * (it spins 200 us before the call while the others already wait in it); every rank notes when it
 * entered and left, and every departure must follow every arrival. On `comm`: MPI_COMM_WORLD, and
 * a communicator whose ranks are the world's reversed (its rank 0, which gathers the arrivals where
 * ranks outnumber cores, is the world's last rank). */
static int barrier_rounds(MPI_Comm comm) {
  enum { kRounds = 40 };
  int r = 0, n = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  double t[2 * kRounds];
  for (int i = 0; i < kRounds; ++i) {
    if (i % n == r) {
      const double until = mono_now() + 200e-6;
      while (mono_now() < until) {
      }
    }
    t[2 * i] = mono_now();
    CHECK_MPI(MPI_Barrier(comm));
    t[2 * i + 1] = mono_now();
  }
  double *all = (double *)malloc(sizeof t * (size_t)n);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(t, 2 * kRounds, MPI_DOUBLE, all, 2 * kRounds, MPI_DOUBLE, comm));
  for (int i = 0; i < kRounds; ++i) {
    double last_in = 0, first_out = 1e300;
    int late = 0, early = 0;
    for (int q = 0; q < n; ++q) {
      const double in = all[q * 2 * kRounds + 2 * i], out = all[q * 2 * kRounds + 2 * i + 1];
      if (in > last_in) last_in = in, late = q;
      if (out < first_out) first_out = out, early = q;
    }
    if (first_out < last_in) {
      fprintf(stderr, "rank %d: barrier round %d: rank %d left %.1f us before rank %d arrived\n", r, i, early,
              (last_in - first_out) * 1e6, late);
    }
    CHECK(first_out >= last_in);
  }
  free(all);
  return kRounds;
}

static void test_barrier(void) {
  int cases = barrier_rounds(MPI_COMM_WORLD);
  MPI_Comm reversed;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size_ - 1 - rank_, &reversed));
  cases += barrier_rounds(reversed);
  CHECK_MPI(MPI_Comm_free(&reversed));
  report("barrier", cases);
}

static void test_bcast(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS; ++c) {
    int n = kCounts[c];
    for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
      int *b = ialloc((size_t)n);
      if (rank_ == root)
        for (int i = 0; i < n; ++i) b[i] = val(root, i);
      CHECK_MPI(MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) CHECK(b[i] == val(root, i));
      free(b);
      ++cases;
      if (size_ == 1) break;
    }
  }
  /* bytes, odd sizes (pieces of the scatter-allgather broadcast do not divide evenly) */
  for (int n = 65537; n <= 200003; n += 134466) {
    unsigned char *b = (unsigned char *)malloc((size_t)n);
    if (rank_ == size_ - 1) fill_pattern(b, (size_t)n, 5);
    CHECK_MPI(MPI_Bcast(b, n, MPI_BYTE, size_ - 1, MPI_COMM_WORLD));
    CHECK(check_pattern(b, (size_t)n, 5) == -1);
    free(b);
    ++cases;
  }
  report("MPI_Bcast", cases);
}

static void test_reduce(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS; ++c) {
    int n = kCounts[c];
    for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        int *s = ialloc((size_t)n), *r = ialloc((size_t)n);
        for (int i = 0; i < n; ++i) s[i] = val(rank_, i);
        if (inplace && rank_ == root) {
          memcpy(r, s, (size_t)n * sizeof(int));
          CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        }
        if (rank_ == root) {
          for (int i = 0; i < n; ++i) {
            int e = 0;
            for (int q = 0; q < size_; ++q) e += val(q, i);
            CHECK(r[i] == e);
          }
        } else {
          for (int i = 0; i < n; ++i) CHECK(r[i] == -1);
        }
        free(s);
        free(r);
        ++cases;
      }
      if (size_ == 1) break;
    }
  }
  report("MPI_Reduce", cases);
}

static void test_allreduce(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS; ++c) {
    int n = kCounts[c];
    for (int inplace = 0; inplace < 2; ++inplace) {
      int *s = ialloc((size_t)n), *r = ialloc((size_t)n);
      for (int i = 0; i < n; ++i) s[i] = val(rank_, i);
      if (inplace) {
        memcpy(r, s, (size_t)n * sizeof(int));
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      }
      for (int i = 0; i < n; ++i) {
        int e = 0;
        for (int q = 0; q < size_; ++q) e = inplace ? (val(q, i) > e ? val(q, i) : e) : e + val(q, i);
        CHECK(r[i] == e);
      }
      free(s);
      free(r);
      ++cases;
    }
  }
  /* doubles with exact (integer) values, above the large-vector threshold */
  {
    int n = 30001;
    double *s = (double *)malloc((size_t)n * sizeof(double)),
           *r = (double *)malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) s[i] = (double)(rank_ + i);
    CHECK_MPI(MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) CHECK(r[i] == (double)(size_ * i + size_ * (size_ - 1) / 2));
    free(s);
    free(r);
    ++cases;
  }
  report("MPI_Allreduce", cases);
}

static void test_reduce_scatter(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS - 1; ++c) {
    for (int block = 0; block < 2; ++block) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        int *counts = ialloc((size_t)size_);
        int total = 0, first = 0;
        for (int q = 0; q < size_; ++q) {
          counts[q] = block ? kCounts[c] : kCounts[c] + q;
          if (q < rank_) first += counts[q];
          total += counts[q];
        }
        int *s = ialloc((size_t)total), *r = ialloc((size_t)total);
        for (int i = 0; i < total; ++i) s[i] = val(rank_, i);
        const void *sb = s;
        if (inplace) {
          memcpy(r, s, (size_t)total * sizeof(int));
          sb = MPI_IN_PLACE;
        }
        if (block) {
          CHECK_MPI(MPI_Reduce_scatter_block(sb, r, counts[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Reduce_scatter(sb, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        }
        for (int i = 0; i < counts[rank_]; ++i) {
          int e = 0;
          for (int q = 0; q < size_; ++q) e += val(q, first + i);
          CHECK(r[i] == e);
        }
        free(counts);
        free(s);
        free(r);
        ++cases;
      }
    }
  }
  report("MPI_Reduce_scatter(_block)", cases);
}

static void test_scan(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS; ++c) {
    int n = kCounts[c];
    for (int ex = 0; ex < 2; ++ex) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        int *s = ialloc((size_t)n), *r = ialloc((size_t)n);
        for (int i = 0; i < n; ++i) s[i] = val(rank_, i);
        const void *sb = s;
        if (inplace) {
          memcpy(r, s, (size_t)n * sizeof(int));
          sb = MPI_IN_PLACE;
        }
        if (ex) {
          CHECK_MPI(MPI_Exscan(sb, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Scan(sb, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        }
        if (!(ex && rank_ == 0)) {
          for (int i = 0; i < n; ++i) {
            int e = 0;
            for (int q = 0; q < rank_ + (ex ? 0 : 1); ++q) e += val(q, i);
            CHECK(r[i] == e);
          }
        }
        free(s);
        free(r);
        ++cases;
      }
    }
  }
  report("MPI_Scan/Exscan", cases);
}

/* Gather(v) and Scatter(v): rank q's block has n + q (v) or n items, at reversed displacements. */
static void test_gather_scatter(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS - 1; ++c) {
    int n = kCounts[c];
    for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
      for (int v = 0; v < 2; ++v) {
        for (int inplace = 0; inplace < 2; ++inplace) {
          int *counts = ialloc((size_t)size_), *displs = ialloc((size_t)size_);
          int total = 0;
          for (int q = size_ - 1; q >= 0; --q) {
            counts[q] = v ? n + q : n;
            displs[q] = v ? total : q * n;
            total += counts[q];
          }
          int mine = counts[rank_];
          int *s = ialloc((size_t)mine), *all = ialloc((size_t)total);
          for (int i = 0; i < mine; ++i) s[i] = val(rank_, i);
          int ip = inplace && rank_ == root;
          if (ip) memcpy(all + displs[root], s, (size_t)mine * sizeof(int));
          const void *sb = ip ? MPI_IN_PLACE : (const void *)s;
          if (v) {
            CHECK_MPI(MPI_Gatherv(sb, mine, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
          } else {
            CHECK_MPI(MPI_Gather(sb, mine, MPI_INT, all, n, MPI_INT, root, MPI_COMM_WORLD));
          }
          if (rank_ == root) {
            for (int q = 0; q < size_; ++q)
              for (int i = 0; i < counts[q]; ++i) CHECK(all[displs[q] + i] == val(q, i));
          }
          /* scatter back, shifted values */
          if (rank_ == root)
            for (int q = 0; q < size_; ++q)
              for (int i = 0; i < counts[q]; ++i) all[displs[q] + i] = val(q, i) + 5;
          int *r = ialloc((size_t)mine);
          void *rb = ip ? MPI_IN_PLACE : (void *)r;
          if (v) {
            CHECK_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, rb, mine, MPI_INT, root, MPI_COMM_WORLD));
          } else {
            CHECK_MPI(MPI_Scatter(all, n, MPI_INT, rb, mine, MPI_INT, root, MPI_COMM_WORLD));
          }
          const int *got = ip ? all + displs[root] : r;
          for (int i = 0; i < mine; ++i) CHECK(got[i] == val(rank_, i) + 5);
          free(counts);
          free(displs);
          free(s);
          free(all);
          free(r);
          ++cases;
        }
      }
      if (size_ == 1) break;
    }
  }
  report("MPI_Gather(v)/Scatter(v)", cases);
}

static void test_allgather(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS; ++c) {
    int n = kCounts[c];
    for (int v = 0; v < 2; ++v) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        int *counts = ialloc((size_t)size_), *displs = ialloc((size_t)size_);
        int total = 0;
        for (int q = size_ - 1; q >= 0; --q) {
          counts[q] = v ? n / (q + 1) : n;
          displs[q] = v ? total : q * n;
          total += counts[q];
        }
        int mine = counts[rank_];
        int *s = ialloc((size_t)mine), *all = ialloc((size_t)total);
        for (int i = 0; i < mine; ++i) s[i] = val(rank_, i);
        if (inplace) memcpy(all + displs[rank_], s, (size_t)mine * sizeof(int));
        const void *sb = inplace ? MPI_IN_PLACE : (const void *)s;
        if (v) {
          CHECK_MPI(MPI_Allgatherv(sb, mine, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Allgather(sb, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD));
        }
        for (int q = 0; q < size_; ++q)
          for (int i = 0; i < counts[q]; ++i) CHECK(all[displs[q] + i] == val(q, i));
        free(counts);
        free(displs);
        free(s);
        free(all);
        ++cases;
      }
    }
  }
  report("MPI_Allgather(v)", cases);
}

/* Block from rank a to rank b, item i. */
static int a2a(int a, int b, int i) {
  return a * 1000003 + b * 10007 + i;
}
static int a2a_val(int a, int b, int i) {
  return a2a(a, b, i);
}

static void test_alltoall(void) {
  int cases = 0;
  for (int c = 0; c < NCOUNTS - 1; ++c) {
    int n = kCounts[c];
    for (int kind = 0; kind < 3; ++kind) { /* alltoall, alltoallv, alltoallw */
      for (int inplace = 0; inplace < 2; ++inplace) {
        int *sc = ialloc((size_t)size_), *sd = ialloc((size_t)size_);
        int *rc = ialloc((size_t)size_), *rd = ialloc((size_t)size_);
        MPI_Datatype *types = (MPI_Datatype *)malloc((size_t)size_ * sizeof(MPI_Datatype));
        int stotal = 0, rtotal = 0;
        for (int q = size_ - 1; q >= 0; --q) {
          /* v: rank a sends n + a + b items to rank b (so symmetric for in place) */
          sc[q] = kind ? n + rank_ + q : n;
          rc[q] = kind ? n + q + rank_ : n;
          sd[q] = kind ? stotal : q * n;
          rd[q] = kind ? rtotal : q * n;
          stotal += sc[q];
          rtotal += rc[q];
          types[q] = MPI_INT;
        }
        int *s = ialloc((size_t)stotal), *r = ialloc((size_t)rtotal);
        for (int q = 0; q < size_; ++q)
          for (int i = 0; i < sc[q]; ++i) s[sd[q] + i] = a2a(rank_, q, i);
        if (inplace) memcpy(r, s, (size_t)stotal * sizeof(int));
        const void *sb = inplace ? MPI_IN_PLACE : (const void *)s;
        if (kind == 0) {
          CHECK_MPI(MPI_Alltoall(sb, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
        } else if (kind == 1) {
          CHECK_MPI(MPI_Alltoallv(sb, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
        } else {
          int *sdb = ialloc((size_t)size_), *rdb = ialloc((size_t)size_);
          for (int q = 0; q < size_; ++q) {
            sdb[q] = sd[q] * (int)sizeof(int);
            rdb[q] = rd[q] * (int)sizeof(int);
          }
          CHECK_MPI(MPI_Alltoallw(sb, sc, sdb, types, r, rc, rdb, types, MPI_COMM_WORLD));
          free(sdb);
          free(rdb);
        }
        for (int q = 0; q < size_; ++q)
          for (int i = 0; i < rc[q]; ++i) CHECK(r[rd[q] + i] == a2a(q, rank_, i));
        free(sc);
        free(sd);
        free(rc);
        free(rd);
        free(types);
        free(s);
        free(r);
        ++cases;
      }
    }
  }
  report("MPI_Alltoall(v,w)", cases);
}

/* Derived datatypes on either side: a vector of 2 blocks of 2 ints, stride 3 (extent 5 ints, a hole
 * at offset 2). */
static int in_vec(int k, int j) {
  return (j % 5) != 2 && j < 5 * k;
}

static void test_derived(void) {
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(2, 2, 3, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  {
    for (int k = 1; k <= 400; k += 399) {
      int n5 = 5 * k, n4 = 4 * k;
      /* Bcast of k vectors */
      int *b = ialloc((size_t)n5);
      if (rank_ == size_ - 1)
        for (int j = 0; j < n5; ++j) b[j] = in_vec(k, j) ? val(7, j) : -1;
      CHECK_MPI(MPI_Bcast(b, k, vec, size_ - 1, MPI_COMM_WORLD));
      for (int j = 0; j < n5; ++j) CHECK(b[j] == (in_vec(k, j) ? val(7, j) : -1));
      free(b);
      /* Gather: 4k contiguous ints each, k vectors per rank at the root */
      int *s = ialloc((size_t)n4), *g = ialloc((size_t)n5 * (size_t)size_);
      for (int i = 0; i < n4; ++i) s[i] = val(rank_, i);
      CHECK_MPI(MPI_Gather(s, n4, MPI_INT, g, k, vec, 0, MPI_COMM_WORLD));
      if (rank_ == 0) {
        for (int q = 0; q < size_; ++q) {
          int i = 0;
          for (int j = 0; j < n5; ++j) CHECK(g[q * n5 + j] == (in_vec(k, j) ? val(q, i++) : -1));
        }
      }
      /* Gather in place at the root into vectors (the root's own block stays where it is) */
      if (rank_ == 0) {
        for (int j = 0; j < n5 * size_; ++j) g[j] = -1;
        for (int j = 0, i = 0; j < n5; ++j)
          if (in_vec(k, j)) g[j] = val(0, i++);
        CHECK_MPI(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, k, vec, 0, MPI_COMM_WORLD));
        for (int q = 0; q < size_; ++q) {
          int i = 0;
          for (int j = 0; j < n5; ++j) CHECK(g[q * n5 + j] == (in_vec(k, j) ? val(q, i++) : -1));
        }
      } else {
        CHECK_MPI(MPI_Gather(s, n4, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
      }
      /* Scatter from vectors at the last rank: 4k contiguous ints each */
      {
        int *sv = ialloc((size_t)n5 * (size_t)size_), *sr = ialloc((size_t)n4);
        if (rank_ == size_ - 1) {
          for (int q = 0; q < size_; ++q) {
            int i = 0;
            for (int j = 0; j < n5; ++j) sv[q * n5 + j] = in_vec(k, j) ? val(q + 50, i++) : -9;
          }
        }
        CHECK_MPI(MPI_Scatter(sv, k, vec, sr, n4, MPI_INT, size_ - 1, MPI_COMM_WORLD));
        for (int i = 0; i < n4; ++i) CHECK(sr[i] == val(rank_ + 50, i));
        free(sv);
        free(sr);
      }
      /* Alltoall: k vectors to each rank, 4k contiguous ints from each */
      int *vs = ialloc((size_t)n5 * (size_t)size_), *cr = ialloc((size_t)n4 * (size_t)size_);
      for (int q = 0; q < size_; ++q) {
        int i = 0;
        for (int j = 0; j < n5; ++j) vs[q * n5 + j] = in_vec(k, j) ? a2a_val(rank_, q, i++) : -7;
      }
      CHECK_MPI(MPI_Alltoall(vs, k, vec, cr, n4, MPI_INT, MPI_COMM_WORLD));
      for (int q = 0; q < size_; ++q)
        for (int i = 0; i < n4; ++i) CHECK(cr[q * n4 + i] == a2a_val(q, rank_, i));
      /* Allgather into vectors, in place */
      int *ag = ialloc((size_t)n5 * (size_t)size_);
      {
        int i = 0;
        for (int j = 0; j < n5; ++j) ag[rank_ * n5 + j] = in_vec(k, j) ? val(rank_, i++) : -1;
      }
      CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, k, vec, MPI_COMM_WORLD));
      for (int q = 0; q < size_; ++q) {
        int i = 0;
        for (int j = 0; j < n5; ++j) CHECK(ag[q * n5 + j] == (in_vec(k, j) ? val(q, i++) : -1));
      }
      free(s);
      free(g);
      free(vs);
      free(cr);
      free(ag);
    }
    CHECK_MPI(MPI_Type_free(&vec));
  }
  PRINT0("derived datatypes      ok\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "flat-sizes") == 0) {
    kCounts = kFlatSizeCounts;
    NCOUNTS = (int)(sizeof kFlatSizeCounts / sizeof kFlatSizeCounts[0]);
  }
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  PRINT0("coll_data: %d ranks\n", size_);
  for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_barrier();
  test_bcast();
  test_reduce();
  test_allreduce();
  test_reduce_scatter();
  test_scan();
  test_gather_scatter();
  test_allgather();
  test_alltoall();
  test_derived();
  /* MPI_COMM_SELF: a one-rank communicator */
  {
    int s[3] = {1, 2, 3}, r[3] = {0, 0, 0};
    CHECK_MPI(MPI_Allreduce(s, r, 3, MPI_INT, MPI_SUM, MPI_COMM_SELF));
    CHECK(r[0] == 1 && r[1] == 2 && r[2] == 3);
    CHECK_MPI(MPI_Bcast(r, 3, MPI_INT, 0, MPI_COMM_SELF));
    CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
    PRINT0("MPI_COMM_SELF          ok\n");
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
