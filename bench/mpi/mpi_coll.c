/* SPDX-License-Identifier: MIT */
/* MPI collective latency benchmark: barrier, bcast, reduce, allreduce, gather, scatter, allgather,
 * alltoall, reduce_scatter, reduce_scatter_block and their nonblocking forms (ibarrier ... each call
 * and its MPI_Wait timed together, as OSU's pure communication time) over MPI_COMM_WORLD (any number
 * of ranks), swept over message sizes (bytes per rank and
 * block; reductions are element-wise MPI_MAX over MPI_UNSIGNED_CHAR, so any byte count works), every
 * result validated. (Not MPI_SUM: Debian 12's Open MPI 4.1.4 sums MPI_UNSIGNED_CHAR wrongly from 16
 * elements on through its op/avx component -- this benchmark's validation caught it; max costs the
 * same one pass.)
 * Plain MPI-3: built with takyon-mpicc and with Open MPI's mpicc.
 *
 * Timing (as OSU's osu_<collective>): each iteration is one timed collective followed by an untimed
 * MPI_Barrier, so rooted collectives do not pipeline; a sample is the mean over a few iterations;
 * a rank's samples are sent to rank 0 with point-to-point messages, which takes per sample the
 * mean over ranks (OSU's "Avg Latency") and prints min/avg/p50/p99/max over samples.
 * Switches/it: the context switches (getrusage: voluntary and involuntary) of all ranks over the
 * timed iterations, per iteration (the collective and the barrier before it). Where ranks outnumber
 * cores, every rank must get a core in every iteration, so this count, not the copies, sets the
 * latency; with a core per rank it is about 0.
 *
 * The library's answer to each collective is taken as given: MPI_ERRORS_RETURN is set on
 * MPI_COMM_WORLD, and a collective that returns an error on any rank (e.g. one the library does not
 * implement) is reported with its error string -- "# FAILED <test>: ..." on stdout -- and skipped;
 * the other collectives still run. --help: usage. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"

#define MAX_SAMPLES 50
#define SCALE_ABOVE 4096

enum {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kScatter,
  kAllgather,
  kAlltoall,
  kReduceScatter,
  kReduceScatterBlock,
  kNumBlocking,
  /* the nonblocking forms, in the same order: call + MPI_Wait, timed together */
  kIbarrier = kNumBlocking,
  kIbcast,
  kIreduce,
  kIallreduce,
  kIgather,
  kIscatter,
  kIallgather,
  kIalltoall,
  kIreduceScatter,
  kIreduceScatterBlock,
  kNumTests
};
static const char *kNames[kNumTests] = {
    "barrier",  "bcast",      "reduce",    "allreduce",       "gather",
    "scatter",  "allgather",  "alltoall",  "reduce_scatter",  "reduce_scatter_block",
    "ibarrier", "ibcast",     "ireduce",   "iallreduce",      "igather",
    "iscatter", "iallgather", "ialltoall", "ireduce_scatter", "ireduce_scatter_block"};
static const char *kFunctions[kNumTests] = {
    "MPI_Barrier",  "MPI_Bcast",      "MPI_Reduce",    "MPI_Allreduce",       "MPI_Gather",
    "MPI_Scatter",  "MPI_Allgather",  "MPI_Alltoall",  "MPI_Reduce_scatter",  "MPI_Reduce_scatter_block",
    "MPI_Ibarrier", "MPI_Ibcast",     "MPI_Ireduce",   "MPI_Iallreduce",      "MPI_Igather",
    "MPI_Iscatter", "MPI_Iallgather", "MPI_Ialltoall", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block"};
/* The tests run when --tests is not given: the blocking ones. */
#define DEFAULT_TESTS kNumBlocking

typedef struct {
  size_t min_bytes, max_bytes;
  long iters, min_iters;
  double scale;
  int enabled[kNumTests];
  const char *csv_path, *label;
} Options;

static int g_rank, g_size;

static void usage(FILE *f) {
  fprintf(f,
          "usage: mpi_coll [options]   (any number of ranks)\n"
          "  -m, --sizes [MIN:]MAX    bytes per rank/block, powers of two from max(1, MIN) to MAX; K/M\n"
          "                           suffixes (default 1:1M); barrier has no size\n"
          "  -t, --tests LIST         barrier,bcast,reduce,allreduce,gather,scatter,allgather,alltoall,\n"
          "                           reduce_scatter,reduce_scatter_block (the default), their\n"
          "                           nonblocking forms ibarrier,ibcast,...,ireduce_scatter_block\n"
          "                           (each call and its MPI_Wait timed together), all: every one\n"
          "  -i, --iterations N       timed iterations per size up to 4 KiB (default 1000); above,\n"
          "                           scaled down by size (at least 20)\n"
          "  -s, --scale F            multiply all iteration counts by F (default 1)\n"
          "  -c, --csv FILE           append one CSV line per result (header if FILE is new)\n"
          "  -l, --label NAME         first CSV column (default: the MPI library up to its first comma)\n"
          "  -h, --help\n");
}

/* Returns 0 to run, 1 for --help, -1 for a usage error (message printed by rank 0). */
static int parse_options(int argc, char **argv, Options *o) {
  o->min_bytes = 1;
  o->max_bytes = (size_t)1 << 20;
  o->iters = 1000;
  o->min_iters = 20;
  o->scale = 1.0;
  for (int t = 0; t < kNumTests; ++t) o->enabled[t] = t < DEFAULT_TESTS;
  o->csv_path = NULL;
  o->label = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define IS(short_name, long_name) (strcmp(a, short_name) == 0 || strcmp(a, long_name) == 0)
    if (IS("-h", "--help")) return 1;
    if (v == NULL) {
      if (g_rank == 0) fprintf(stderr, "mpi_coll: unknown option or missing value: %s\n", a);
      return -1;
    }
    int bad = 0;
    if (IS("-m", "--sizes")) {
      bad = parse_size_range(v, &o->min_bytes, &o->max_bytes, 1, (size_t)1 << 26);
    } else if (IS("-t", "--tests")) {
      char list[256];
      snprintf(list, sizeof list, "%s", v);
      int any = 0;
      for (int t = 0; t < kNumTests; ++t) o->enabled[t] = 0;
      for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int t = 0; t < kNumTests; ++t) {
          if (strcmp(tok, kNames[t]) == 0 || strcmp(tok, "all") == 0) o->enabled[t] = found = any = 1;
        }
        bad = bad || !found;
      }
      bad = bad || !any;
    } else if (IS("-i", "--iterations")) {
      bad = parse_long(v, &o->iters);
    } else if (IS("-s", "--scale")) {
      o->scale = atof(v);
      bad = !(o->scale > 0);
    } else if (IS("-c", "--csv")) {
      o->csv_path = v;
    } else if (IS("-l", "--label")) {
      o->label = v;
    } else {
      if (g_rank == 0) fprintf(stderr, "mpi_coll: unknown option %s\n", a);
      return -1;
    }
#undef IS
    if (bad) {
      if (g_rank == 0) fprintf(stderr, "mpi_coll: bad value for %s: %s\n", a, v);
      return -1;
    }
    ++i;
  }
  return 0;
}

/* --- data and validation ------------------------------------------------------------------------
 * value(iter, origin, block, i): the byte that rank `origin` contributes at offset i of block
 * `block` (the block meant for rank `block`; 0 where there is one block) in iteration `iter`.
 * Warm-up iterations fill and check every byte (past 64 KiB only the first); timed ones stamp and check three
 * bytes per block (first, last, one that moves), so a stale or shifted block is caught without touching it
 * all. */
static uint8_t value(long iter, int origin, int block, size_t i) {
  uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(iter * 7919 + origin * 131 + block * 17 + 1) * 40503u;
  return (uint8_t)((x >> 24) ^ (x >> 11));
}

typedef struct {
  size_t offsets[3];
  int count; /* 3, or bytes when the whole block is checked */
  int full;
} Probe;

static Probe probe(long iter, size_t bytes, int full) {
  Probe p = {{0, bytes - 1, (size_t)(((uint64_t)iter * 2654435761u + 12345u) % bytes)}, 3, full};
  if (full) p.count = (int)bytes;
  return p;
}

static size_t probe_at(const Probe *p, int k) {
  return p->full ? (size_t)k : p->offsets[k];
}

static void fill(uint8_t *block, size_t bytes, long iter, int origin, int blk, int full) {
  Probe p = probe(iter, bytes, full);
  for (int k = 0; k < p.count; ++k) block[probe_at(&p, k)] = value(iter, origin, blk, probe_at(&p, k));
}

static void mismatch(int test, size_t bytes, long iter, int block, size_t offset, unsigned got,
                     unsigned want) {
  fprintf(
      stderr,
      "mpi_coll: VALIDATION FAILED on rank %d: %s, %zu B, iteration %ld, block %d, offset %zu: got 0x%02x, "
      "want 0x%02x\n",
      g_rank, kNames[test], bytes, iter, block, offset, got, want);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Checks a block that should hold rank `origin`'s block `blk`. Returns bytes checked. */
static long check(int test, const uint8_t *block, size_t bytes, long iter, int origin, int blk, int full) {
  Probe p = probe(iter, bytes, full);
  for (int k = 0; k < p.count; ++k) {
    size_t i = probe_at(&p, k);
    uint8_t want = value(iter, origin, blk, i);
    if (block[i] != want) mismatch(test, bytes, iter, blk, i, block[i], want);
  }
  return 1;
}

/* Checks a reduction result: the maximum over ranks of each rank's contribution to block `blk`. */
static long check_max(int test, const uint8_t *block, size_t bytes, long iter, int blk, int full) {
  Probe p = probe(iter, bytes, full);
  for (int k = 0; k < p.count; ++k) {
    size_t i = probe_at(&p, k);
    unsigned want = 0;
    for (int r = 0; r < g_size; ++r) {
      unsigned v = value(iter, r, blk, i);
      want = v > want ? v : want;
    }
    if (block[i] != want) mismatch(test, bytes, iter, blk, i, block[i], want);
  }
  return 1;
}

/* --- one collective call, with its inputs prepared and its outputs checked ---------------------- */
typedef struct {
  uint8_t *send, *recv;
  long validated;
} Buffers;

/* Starts the collective `test` (nonblocking: *req is set; blocking: *req stays MPI_REQUEST_NULL). */
static int start(int test, const Buffers *b, int n, int root, int *counts, MPI_Request *req) {
  const MPI_Comm w = MPI_COMM_WORLD;
  const MPI_Datatype u8 = MPI_UNSIGNED_CHAR;
  switch (test) {
    case kBarrier:
      return MPI_Barrier(w);
    case kBcast:
      return MPI_Bcast(b->recv, n, MPI_BYTE, root, w);
    case kReduce:
      return MPI_Reduce(b->send, b->recv, n, u8, MPI_MAX, root, w);
    case kAllreduce:
      return MPI_Allreduce(b->send, b->recv, n, u8, MPI_MAX, w);
    case kGather:
      return MPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w);
    case kScatter:
      return MPI_Scatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w);
    case kAllgather:
      return MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
    case kAlltoall:
      return MPI_Alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
    case kReduceScatter:
      return MPI_Reduce_scatter(b->send, b->recv, counts, u8, MPI_MAX, w);
    case kReduceScatterBlock:
      return MPI_Reduce_scatter_block(b->send, b->recv, n, u8, MPI_MAX, w);
    case kIbarrier:
      return MPI_Ibarrier(w, req);
    case kIbcast:
      return MPI_Ibcast(b->recv, n, MPI_BYTE, root, w, req);
    case kIreduce:
      return MPI_Ireduce(b->send, b->recv, n, u8, MPI_MAX, root, w, req);
    case kIallreduce:
      return MPI_Iallreduce(b->send, b->recv, n, u8, MPI_MAX, w, req);
    case kIgather:
      return MPI_Igather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w, req);
    case kIscatter:
      return MPI_Iscatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w, req);
    case kIallgather:
      return MPI_Iallgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w, req);
    case kIalltoall:
      return MPI_Ialltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w, req);
    case kIreduceScatter:
      return MPI_Ireduce_scatter(b->send, b->recv, counts, u8, MPI_MAX, w, req);
    case kIreduceScatterBlock:
      return MPI_Ireduce_scatter_block(b->send, b->recv, n, u8, MPI_MAX, w, req);
    default:
      return MPI_ERR_ARG;
  }
}

/* One call of `test`: inputs prepared, the collective (nonblocking: started and waited for), outputs
 * checked. */
static int call(int test, size_t bytes, long iter, int full, Buffers *b) {
  const int n = (int)bytes, root = 0;
  const int base = test >= kNumBlocking ? test - kNumBlocking : test;
  static int *counts = NULL; /* reduce_scatter: bytes for every rank */
  if (counts == NULL) {
    counts = malloc(sizeof(int) * (size_t)g_size);
    if (counts == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int r = 0; r < g_size; ++r) counts[r] = n;
  switch (base) { /* inputs */
    case kBcast:
      if (g_rank == root) fill(b->recv, bytes, iter, root, 0, full);
      break;
    case kReduce:
    case kAllreduce:
    case kGather:
    case kAllgather:
      fill(b->send, bytes, iter, g_rank, 0, full);
      break;
    case kScatter:
      if (g_rank == root) {
        for (int r = 0; r < g_size; ++r) fill(b->send + (size_t)r * bytes, bytes, iter, root, r, full);
      }
      break;
    case kAlltoall:
    case kReduceScatter:
    case kReduceScatterBlock:
      for (int r = 0; r < g_size; ++r) fill(b->send + (size_t)r * bytes, bytes, iter, g_rank, r, full);
      break;
    default:
      break;
  }
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = start(test, b, n, root, counts, &req);
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  switch (base) { /* outputs */
    case kBcast:
      if (g_rank != root) b->validated += check(test, b->recv, bytes, iter, root, 0, full);
      break;
    case kReduce:
    case kAllreduce:
      if (base == kAllreduce || g_rank == root)
        b->validated += check_max(test, b->recv, bytes, iter, 0, full);
      break;
    case kReduceScatter:
    case kReduceScatterBlock:
      b->validated += check_max(test, b->recv, bytes, iter, g_rank, full);
      break;
    case kGather:
    case kAllgather:
      if (base == kAllgather || g_rank == root) {
        for (int r = 0; r < g_size; ++r)
          b->validated += check(test, b->recv + (size_t)r * bytes, bytes, iter, r, 0, full);
      }
      break;
    case kScatter:
      b->validated += check(test, b->recv, bytes, iter, root, g_rank, full);
      break;
    case kAlltoall:
      for (int r = 0; r < g_size; ++r)
        b->validated += check(test, b->recv + (size_t)r * bytes, bytes, iter, r, g_rank, full);
      break;
    default:
      break;
  }
  return MPI_SUCCESS;
}

/* Every rank's return code goes to rank 0 (point-to-point: the collectives may be what failed);
 * rank 0 sends back the first failure (or MPI_SUCCESS) so that all ranks skip the test together. */
static int agree(int rc) {
  const int tag = 77;
  if (g_rank == 0) {
    int first = rc;
    for (int r = 1; r < g_size; ++r) {
      int other = MPI_SUCCESS;
      MPI_Recv(&other, 1, MPI_INT, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (first == MPI_SUCCESS) first = other;
    }
    for (int r = 1; r < g_size; ++r) MPI_Send(&first, 1, MPI_INT, r, tag, MPI_COMM_WORLD);
    return first;
  }
  MPI_Send(&rc, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
  MPI_Recv(&rc, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return rc;
}

/* --- statistics and output --------------------------------------------------------------------- */
static const char *kCsvHeader =
    "label,test,bytes,iterations,samples,avg_us,min_us,p50_us,p99_us,max_us,avg_MBps,p50_MBps,validated,"
    "ranks,"
    "switches_per_iter\n";

static long scaled(long base, long minimum, size_t bytes, double scale) {
  double n = (double)base;
  if (bytes > SCALE_ABOVE) n = n * SCALE_ABOVE / (double)bytes;
  n *= scale;
  /* The minimum shrinks with --scale only down to 0.5 of itself (10 iterations at least): fewer samples
   * make a p50 that one preemption decides. */
  double floor_n = (double)minimum * (scale < 0.5 ? 0.5 : (scale < 1 ? scale : 1));
  if (n < floor_n) n = floor_n;
  return n < 2 ? 2 : (long)n;
}

/* Runs one test at one size. Returns MPI_SUCCESS, or the (agreed) error code of the collective. */
static int run(int test, size_t bytes, const Options *o, Buffers *b, FILE *csv, const char *label) {
  long iters = scaled(o->iters, o->min_iters, bytes, o->scale);
  long warm = iters / 10 < 5 ? 5 : (iters / 10 > 50 ? 50 : iters / 10);
  int samples = iters < MAX_SAMPLES ? (int)iters : MAX_SAMPLES;
  long per_sample = iters / samples;
  iters = per_sample * samples;
  double sample_s[MAX_SAMPLES];
  long iter = 0;
  b->validated = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = agree(call(test, bytes, iter++, 1, b));
  if (rc != MPI_SUCCESS) return rc;
  /* The first warm-up call checks every byte; the others too up to 64 KiB (beyond, filling and
   * checking all of p blocks took longer than the timed calls themselves). */
  for (long w = 1; w < warm; ++w, ++iter) {
    MPI_Barrier(MPI_COMM_WORLD);
    call(test, bytes, iter, bytes <= 65536, b);
  }
  struct rusage u0, u1;
  getrusage(RUSAGE_SELF, &u0);
  for (int s = 0; s < samples; ++s) {
    double t = 0;
    for (long k = 0; k < per_sample; ++k, ++iter) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      int r = call(test, bytes, iter, 0, b);
      t += MPI_Wtime() - t0;
      if (r != MPI_SUCCESS) {
        fprintf(stderr, "mpi_coll: rank %d: %s failed in iteration %ld after succeeding before\n", g_rank,
                kFunctions[test], iter);
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
    }
    sample_s[s] = t / (double)per_sample;
  }
  getrusage(RUSAGE_SELF, &u1);
  /* Rank 0 averages each sample over the ranks and sums the validated counts and the switches. */
  long counts[2] = {b->validated, (u1.ru_nvcsw - u0.ru_nvcsw) + (u1.ru_nivcsw - u0.ru_nivcsw)};
  if (g_rank == 0) {
    double other[MAX_SAMPLES];
    for (int r = 1; r < g_size; ++r) {
      long v[2] = {0, 0};
      MPI_Recv(other, samples, MPI_DOUBLE, r, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(v, 2, MPI_LONG, r, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int s = 0; s < samples; ++s) sample_s[s] += other[s];
      counts[0] += v[0];
      counts[1] += v[1];
    }
    for (int s = 0; s < samples; ++s) sample_s[s] /= g_size;
    b->validated = counts[0];
  } else {
    MPI_Send(sample_s, samples, MPI_DOUBLE, 0, 78, MPI_COMM_WORLD);
    MPI_Send(counts, 2, MPI_LONG, 0, 79, MPI_COMM_WORLD);
  }
  const long validated = counts[0];
  const double switches = (double)counts[1] / (double)iters;
  double all_total = 0;
  if (g_rank == 0) {
    for (int s = 0; s < samples; ++s) all_total += sample_s[s] * (double)per_sample;
    double avg_us = all_total / (double)iters * 1e6;
    SampleStats st = sample_stats(sample_s, samples);
    size_t shown = test == kBarrier || test == kIbarrier ? 0 : bytes;
    printf("%-10zu%18.2f%18.2f%18.2f%18.2f%18.2f%12ld%13.2f\n", shown, avg_us, st.min_us, st.p50_us,
           st.p99_us, st.max_us, iters, switches);
    fflush(stdout);
    if (csv) {
      double mbps = avg_us > 0 ? (double)shown / avg_us : 0,
             p50_mbps = st.p50_us > 0 ? (double)shown / st.p50_us : 0;
      fprintf(csv, "%s,%s,%zu,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%ld,%d,%.4g\n", label, kNames[test],
              shown, iters, samples, avg_us, st.min_us, st.p50_us, st.p99_us, st.max_us, mbps, p50_mbps,
              validated, g_size, switches);
      fflush(csv);
    }
  }
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Options o;
  int parsed = parse_options(argc, argv, &o);
  if (parsed != 0) {
    if (g_rank == 0) usage(parsed == 1 ? stdout : stderr);
    MPI_Finalize();
    return parsed == 1 ? 0 : 2;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  char library[MPI_MAX_LIBRARY_VERSION_STRING], label[64];
  library_and_label(library, label, sizeof label, o.label);
  FILE *csv = g_rank == 0 && o.csv_path ? open_csv(o.csv_path, kCsvHeader) : NULL;

  size_t block_bytes = o.max_bytes * (size_t)g_size;
  Buffers b = {malloc(block_bytes), malloc(block_bytes), 0};
  if (!b.send || !b.recv) {
    fprintf(stderr, "mpi_coll: cannot allocate 2 x %zu bytes\n", block_bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  memset(b.send, 0, block_bytes);
  memset(b.recv, 0, block_bytes);

  if (g_rank == 0) {
    printf("# Takyon MPI collective latency benchmark (bench/mpi/mpi_coll.c), OSU-format output\n");
    printf("# library: %s\n", library);
    print_compiler();
    printf("# ranks: %d, root 0, scale %g; latency = mean over ranks of the time in the call\n", g_size,
           o.scale);
  }
  int failures = 0;
  long validated = 0;
  for (int t = 0; t < kNumTests; ++t) {
    if (!o.enabled[t]) continue;
    if (g_rank == 0) {
      printf("# OSU MPI %s Latency Test\n", kFunctions[t] + 4);
      printf(
          "# Size       Avg Latency(us)   Min Latency(us)   P50 Latency(us)   P99 Latency(us)   Max "
          "Latency(us)  Iterations  Switches/it\n");
    }
    for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes <<= 1) {
      int rc = run(t, bytes, &o, &b, csv, label);
      if (rc != MPI_SUCCESS) {
        if (g_rank == 0) {
          char msg[MPI_MAX_ERROR_STRING];
          int msg_len = 0;
          if (MPI_Error_string(rc, msg, &msg_len) != MPI_SUCCESS)
            snprintf(msg, sizeof msg, "error code %d", rc);
          printf("# FAILED %s: %s returned %d: %s\n", kNames[t], kFunctions[t], rc, msg);
          fflush(stdout);
        }
        ++failures;
        break;
      }
      validated += b.validated;
      if (t == kBarrier || t == kIbarrier) break; /* no size */
    }
  }
  if (g_rank == 0) {
    printf("# validated: %ld results (all ranks), %d collective(s) failed\n", validated, failures);
    if (csv) fclose(csv);
  }
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}
