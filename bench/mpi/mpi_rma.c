/* SPDX-License-Identifier: MIT */
/* MPI one-sided (RMA) benchmark, the patterns of the OSU one-sided benchmarks between ranks 0 and 1:
 * one window (MPI_Win_allocate, or MPI_Win_create over malloc'd memory with --flavor create), one
 * origin buffer reused by every operation, every operation aimed at displacement 0 of rank 1's window.
 *   put_latency, get_latency   (osu_put_latency / osu_get_latency, -s flush) rank 0 holds
 *                              MPI_Win_lock(SHARED, 1) and times MPI_Put (MPI_Get) + MPI_Win_flush
 *   put_bw, get_bw             (osu_put_bw / osu_get_bw, -s flush) a window of W puts (gets), then
 *                              one MPI_Win_flush; time per operation
 *   put_bibw                   (osu_put_bibw, -s pscw) both ranks post, start, put W, complete, wait;
 *                              time per operation each way, MB/s over both directions
 *   acc_latency                (osu_acc_latency) MPI_Accumulate(MPI_SUM, MPI_UINT64_T) + flush
 *   fetch_and_op               (osu_fop_latency) MPI_Fetch_and_op(MPI_SUM, MPI_UINT64_T) + flush, 8 B
 *   compare_and_swap           (osu_cas_latency) MPI_Compare_and_swap(MPI_UINT64_T) + flush, 8 B
 *   fence                      one epoch: rank 0 puts 8 B, both ranks call MPI_Win_fence
 *   pscw                       one epoch: rank 0 MPI_Win_start, puts 8 B, MPI_Win_complete; rank 1
 *                              MPI_Win_post, MPI_Win_wait
 * Every result is checked, so a wrong implementation cannot report a fast figure: the latency and
 * bandwidth puts are followed by a get of the first window (every byte) and, after the timed loop,
 * rank 1 compares its whole window with the origin's last buffer; every get is preceded by poisoning
 * three bytes of the origin buffer, checked after the flush; the accumulated sums, every fetched
 * value of fetch-and-op and compare-and-swap (and a compare that must fail), and every fence and
 * PSCW epoch's put (read by rank 1 after its fence or wait) are checked.
 * The library's answer to each call is taken as given: MPI_ERRORS_RETURN on the window and on
 * MPI_COMM_WORLD; a test whose call returns an error on any rank is reported as
 * "# FAILED <test>: ..." on stdout and skipped; the others still run.
 * Plain MPI-3: built with takyon-mpicc and with Open MPI's mpicc. Prints OSU-format text; --csv FILE
 * appends one line per (test, size) in mpi_p2p's format. --help: usage. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_WINDOW 1024
#define SCALE_ABOVE 8192 /* above this size, iterations shrink in proportion to the size */
#define MAX_SAMPLES 100
#define ATOMIC_BYTES 8 /* fetch_and_op, compare_and_swap, fence and pscw move one uint64_t */

enum { kPutLat, kGetLat, kPutBw, kGetBw, kPutBibw, kAccLat, kFop, kCas, kFence, kPscw, kTests };
static const char *const kNames[kTests] = {"put_latency", "get_latency", "put_bw",       "get_bw",
                                           "put_bibw",    "acc_latency", "fetch_and_op", "compare_and_swap",
                                           "fence",       "pscw"};
static const char *const kTitles[kTests] = {
    "MPI_Put Latency (lock, put + flush)",
    "MPI_Get Latency (lock, get + flush)",
    "MPI_Put Bandwidth (lock, window of puts + flush, 1 MB = 1e6 B)",
    "MPI_Get Bandwidth (lock, window of gets + flush, 1 MB = 1e6 B)",
    "MPI_Put Bi-directional Bandwidth (post/start, window of puts, complete/wait; both ways, 1 MB = 1e6 B)",
    "MPI_Accumulate Latency (lock, MPI_SUM over MPI_UINT64_T + flush)",
    "MPI_Fetch_and_op Latency (lock, MPI_SUM over MPI_UINT64_T + flush)",
    "MPI_Compare_and_swap Latency (lock, MPI_UINT64_T + flush)",
    "MPI_Win_fence epoch (one 8 B put from rank 0, fence on both ranks)",
    "PSCW epoch (rank 0 start/put 8 B/complete, rank 1 post/wait)"};
static int is_bandwidth(int t) {
  return t == kPutBw || t == kGetBw || t == kPutBibw;
}
static int is_swept(int t) {
  return t <= kAccLat;
} /* the others move ATOMIC_BYTES */

typedef struct {
  size_t min_bytes, max_bytes;
  long lat_iters, bw_windows, min_lat_iters, min_bw_windows;
  double scale;
  int window;
  int create; /* 0: MPI_Win_allocate, 1: MPI_Win_create */
  int run[kTests];
  const char *csv_path, *label;
} Options;

typedef struct {
  long iterations; /* timed operations (latency, epochs) or timed windows (bandwidth) */
  int samples;
  double total_s;
  double sample_s[MAX_SAMPLES];
  long validated;
} Result;

/* What a test runs on. */
typedef struct {
  MPI_Win win;
  uint8_t *base; /* this rank's window memory */
  size_t win_bytes;
  uint8_t *obuf; /* the origin buffer */
  uint8_t *cbuf; /* check buffer: what a get brought back, what rank 1 expects */
  MPI_Group peer_group;
} Ctx;

static int g_rank;
/* The first failed call of the running test: its error code and the call. */
static int g_err;
static char g_err_call[96];

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: mpi_rma [options]   (exactly 2 ranks: rank 0 is the origin, rank 1 the target)\n"
      "  -m, --sizes [MIN:]MAX    sizes of put/get latency and bandwidth, put_bibw and acc_latency,\n"
      "                           powers of two from MIN to MAX, K/M suffixes (default 8:4M; acc_latency\n"
      "                           from 8); fetch_and_op, compare_and_swap, fence and pscw move 8 B\n"
      "  -t, --tests LIST         put_latency,get_latency,put_bw,get_bw,put_bibw,acc_latency,\n"
      "                           fetch_and_op,compare_and_swap,fence,pscw, or all (default all)\n"
      "  -i, --iterations N       operations (epochs) per size up to 8 KiB (default 10000); above,\n"
      "                           scaled down by size (at least 100)\n"
      "  -w, --windows N          bandwidth windows per size up to 8 KiB (default 200); above, scaled\n"
      "                           down by size (at least 20)\n"
      "  -s, --scale F            multiply all iteration counts by F (default 1)\n"
      "  -W, --window N           operations per bandwidth window (default 64)\n"
      "  -f, --flavor F           allocate: MPI_Win_allocate (default); create: MPI_Win_create over\n"
      "                           malloc'd memory\n"
      "  -c, --csv FILE           append one CSV line per result (header if FILE is new)\n"
      "  -l, --label NAME         first CSV column (default: the MPI library version up to its first comma)\n"
      "  -h, --help\n");
}

static int parse_tests(const char *v, Options *o) {
  for (int t = 0; t < kTests; ++t) o->run[t] = 0;
  char list[512];
  snprintf(list, sizeof list, "%s", v);
  int any = 0;
  for (char *save = NULL, *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int t = 0; t < kTests; ++t) {
      if (strcmp(s, kNames[t]) == 0 || strcmp(s, "all") == 0) o->run[t] = found = 1;
    }
    if (!found) return -1;
    any = 1;
  }
  return any ? 0 : -1;
}

/* Returns 0 to run, 1 for --help, -1 for a usage error (message printed by rank 0). */
static int parse_options(int argc, char **argv, Options *o) {
  o->min_bytes = 8;
  o->max_bytes = (size_t)4 << 20;
  o->lat_iters = 10000;
  o->bw_windows = 200;
  o->min_lat_iters = 100;
  o->min_bw_windows = 20;
  o->scale = 1.0;
  o->window = 64;
  o->create = 0;
  for (int t = 0; t < kTests; ++t) o->run[t] = 1;
  o->csv_path = NULL;
  o->label = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define IS(short_name, long_name) (strcmp(a, short_name) == 0 || strcmp(a, long_name) == 0)
    if (IS("-h", "--help")) return 1;
    if (v == NULL) {
      if (g_rank == 0) fprintf(stderr, "mpi_rma: unknown option or missing value: %s\n", a);
      return -1;
    }
    int bad = 0;
    if (IS("-m", "--sizes")) {
      bad = parse_size_range(v, &o->min_bytes, &o->max_bytes, 1, (size_t)1 << 30);
    } else if (IS("-t", "--tests")) {
      bad = parse_tests(v, o);
    } else if (IS("-i", "--iterations")) {
      bad = parse_long(v, &o->lat_iters);
    } else if (IS("-w", "--windows")) {
      bad = parse_long(v, &o->bw_windows);
    } else if (IS("-s", "--scale")) {
      o->scale = atof(v);
      bad = !(o->scale > 0);
    } else if (IS("-W", "--window")) {
      long w = 0;
      bad = parse_long(v, &w) || w > MAX_WINDOW;
      o->window = (int)w;
    } else if (IS("-f", "--flavor")) {
      o->create = strcmp(v, "create") == 0;
      bad = !o->create && strcmp(v, "allocate") != 0;
    } else if (IS("-c", "--csv")) {
      o->csv_path = v;
    } else if (IS("-l", "--label")) {
      o->label = v;
    } else {
      if (g_rank == 0) fprintf(stderr, "mpi_rma: unknown option %s\n", a);
      return -1;
    }
#undef IS
    if (bad) {
      if (g_rank == 0) fprintf(stderr, "mpi_rma: bad value for %s: %s\n", a, v);
      return -1;
    }
    ++i;
  }
  return 0;
}

/* --- errors and validation ------------------------------------------------------------------ */
/* TRY(call): on an error, remembers it (the first of the test) and leaves the test (goto out). */
#define TRY(call)                                                \
  do {                                                           \
    int rc_ = (call);                                            \
    if (rc_ != MPI_SUCCESS) {                                    \
      if (g_err == MPI_SUCCESS) {                                \
        g_err = rc_;                                             \
        snprintf(g_err_call, sizeof g_err_call, "%.90s", #call); \
        char *paren_ = strchr(g_err_call, '(');                  \
        if (paren_) *paren_ = '\0';                              \
      }                                                          \
      goto out;                                                  \
    }                                                            \
  } while (0)

static void fail(const char *test, size_t bytes, long iter, const char *what, size_t offset,
                 unsigned long long got, unsigned long long want) {
  fprintf(stderr,
          "mpi_rma: VALIDATION FAILED on rank %d: %s, %zu B, iteration %ld: %s at offset %zu: got 0x%llx, "
          "want 0x%llx\n",
          g_rank, test, bytes, iter, what, offset, got, want);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static uint8_t pattern_byte(size_t i, uint32_t seed) {
  uint32_t x = (uint32_t)i * 2654435761u ^ seed * 40503u;
  return (uint8_t)((x >> 24) ^ (x >> 11));
}

static void fill_full(uint8_t *buf, size_t bytes, uint32_t seed) {
  for (size_t i = 0; i < bytes; ++i) buf[i] = pattern_byte(i, seed);
}

static void check_full(const char *test, const uint8_t *buf, size_t bytes, long iter, uint32_t seed) {
  for (size_t i = 0; i < bytes; ++i) {
    if (buf[i] != pattern_byte(i, seed))
      fail(test, bytes, iter, "full pattern", i, buf[i], pattern_byte(i, seed));
  }
}

static size_t sample_offset(long iter, size_t bytes) {
  return (size_t)(((uint64_t)iter * 2654435761u + 12345u) % bytes);
}

/* Stamps the first, last and one sampled byte with a value of this iteration (1..251). */
static void stamp(uint8_t *buf, size_t bytes, long iter, int dir) {
  uint8_t v = (uint8_t)(1 + ((unsigned long)iter * 37u + (unsigned)dir * 101u) % 251u);
  buf[0] = v;
  buf[bytes - 1] = v;
  buf[sample_offset(iter, bytes)] = v;
}

static void check_stamp(const char *test, const uint8_t *buf, size_t bytes, long iter, int dir) {
  uint8_t v = (uint8_t)(1 + ((unsigned long)iter * 37u + (unsigned)dir * 101u) % 251u);
  size_t s = sample_offset(iter, bytes);
  if (buf[0] != v) fail(test, bytes, iter, "stamp (first byte)", 0, buf[0], v);
  if (buf[bytes - 1] != v) fail(test, bytes, iter, "stamp (last byte)", bytes - 1, buf[bytes - 1], v);
  if (buf[s] != v) fail(test, bytes, iter, "stamp (sampled byte)", s, buf[s], v);
}

/* The bytes a get must bring: the first, last and one sampled byte of the target's pattern are
 * overwritten with their complement first, so a get that did not happen is caught. */
static void poison(uint8_t *buf, size_t bytes, long iter, uint32_t seed) {
  size_t s = sample_offset(iter, bytes);
  buf[0] = (uint8_t)~pattern_byte(0, seed);
  buf[bytes - 1] = (uint8_t)~pattern_byte(bytes - 1, seed);
  buf[s] = (uint8_t)~pattern_byte(s, seed);
}

static void check_poisoned(const char *test, const uint8_t *buf, size_t bytes, long iter, uint32_t seed) {
  size_t s = sample_offset(iter, bytes);
  const size_t at[3] = {0, bytes - 1, s};
  for (int k = 0; k < 3; ++k) {
    if (buf[at[k]] != pattern_byte(at[k], seed))
      fail(test, bytes, iter, "fetched byte", at[k], buf[at[k]], pattern_byte(at[k], seed));
  }
}

static uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void store64(uint8_t *p, uint64_t v) {
  memcpy(p, &v, sizeof v);
}

/* Rank 1 writes (fill) or reads its own window memory: under an exclusive lock of itself, so the
 * access is ordered with the RMA operations in either memory model. */
static int local_access_begin(Ctx *c) {
  return MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, c->win);
}
static int local_access_end(Ctx *c) {
  return MPI_Win_unlock(1, c->win);
}

/* After a put test: rank 0 sends its origin buffer's final content, rank 1 compares its window. */
static int check_target(Ctx *c, const char *test, size_t bytes, long iter, long *validated) {
  if (g_rank == 0) {
    return MPI_Send(c->obuf, (int)bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
  }
  int rc = MPI_Recv(c->cbuf, (int)bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if ((rc = local_access_begin(c)) != MPI_SUCCESS) return rc;
  for (size_t i = 0; i < bytes; ++i) {
    if (c->base[i] != c->cbuf[i])
      fail(test, bytes, iter, "target window after the timed loop", i, c->base[i], c->cbuf[i]);
  }
  ++*validated;
  return local_access_end(c);
}

/* --- iteration counts ------------------------------------------------------------------------ */
static long scaled(long base, long minimum, size_t bytes, double scale) {
  double n = (double)base;
  if (bytes > SCALE_ABOVE) n = n * SCALE_ABOVE / (double)bytes;
  n *= scale;
  double floor_n = (double)minimum * (scale < 0.25 ? 0.25 : (scale < 1 ? scale : 1));
  if (n < floor_n) n = floor_n;
  return n < 1 ? 1 : (long)n;
}

/* Splits `iters` into samples of per_sample each (iters rounded down to a multiple). */
static void plan(long *iters, int *samples, long *per_sample) {
  *samples = *iters < MAX_SAMPLES ? (int)*iters : MAX_SAMPLES;
  *per_sample = *iters / *samples;
  *iters = *per_sample * *samples;
}

static long warmup_of(long iters) {
  long warm = iters / 10 < 10 ? 10 : iters / 10;
  return warm > 100 ? 100 : warm;
}

/* --- the tests -------------------------------------------------------------------------------- */
/* put_latency, get_latency, acc_latency: rank 0 times op + flush under one shared lock. */
static void op_latency(Ctx *c, int t, size_t bytes, long iters, Result *r) {
  const char *test = kNames[t];
  const int n = (int)bytes, count = (int)(bytes / 8);
  const uint32_t seed = (uint32_t)bytes * 31u + 7u;
  long warm = warmup_of(iters), per_sample = 0, it = 0;
  int samples = 0, locked = 0;
  plan(&iters, &samples, &per_sample);
  r->iterations = iters;
  r->samples = samples;
  /* The target's starting content: a pattern (get), zeros (accumulate). */
  if (g_rank == 1 && (t == kGetLat || t == kAccLat)) {
    TRY(local_access_begin(c));
    if (t == kGetLat)
      fill_full(c->base, bytes, seed);
    else
      memset(c->base, 0, bytes);
    TRY(local_access_end(c));
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 0) {
    uint64_t *acc = (uint64_t *)(void *)c->obuf;
    if (t == kAccLat) {
      for (int i = 0; i < count; ++i) acc[i] = (uint64_t)i + 1;
    }
    TRY(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->win));
    locked = 1;
    for (long i = 0; i < warm; ++i) { /* every byte checked */
      if (t == kPutLat) {
        fill_full(c->obuf, bytes, seed + (uint32_t)i);
        TRY(MPI_Put(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
        TRY(MPI_Win_flush(1, c->win));
        memset(c->cbuf, 0, bytes);
        TRY(MPI_Get(c->cbuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
        TRY(MPI_Win_flush(1, c->win));
        check_full(test, c->cbuf, bytes, i, seed + (uint32_t)i);
      } else if (t == kGetLat) {
        memset(c->obuf, 0, bytes);
        TRY(MPI_Get(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
        TRY(MPI_Win_flush(1, c->win));
        check_full(test, c->obuf, bytes, i, seed);
      } else {
        TRY(MPI_Accumulate(acc, count, MPI_UINT64_T, 1, 0, count, MPI_UINT64_T, MPI_SUM, c->win));
        TRY(MPI_Win_flush(1, c->win));
      }
      r->validated++;
    }
    double start = MPI_Wtime();
    for (int s = 0; s < samples; ++s) {
      double t0 = MPI_Wtime();
      for (long k = 0; k < per_sample; ++k, ++it) {
        if (t == kPutLat) {
          stamp(c->obuf, bytes, it, 0);
          TRY(MPI_Put(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
          TRY(MPI_Win_flush(1, c->win));
        } else if (t == kGetLat) {
          poison(c->obuf, bytes, it, seed);
          TRY(MPI_Get(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
          TRY(MPI_Win_flush(1, c->win));
          check_poisoned(test, c->obuf, bytes, it, seed);
        } else {
          TRY(MPI_Accumulate(acc, count, MPI_UINT64_T, 1, 0, count, MPI_UINT64_T, MPI_SUM, c->win));
          TRY(MPI_Win_flush(1, c->win));
        }
      }
      r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample;
    }
    r->total_s = MPI_Wtime() - start;
    locked = 0;
    TRY(MPI_Win_unlock(1, c->win));
    if (t == kGetLat) r->validated += iters;
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (t == kPutLat) {
    TRY(check_target(c, test, bytes, it, &r->validated));
    r->validated += iters; /* the last put's content holds every iteration's stamps */
  } else if (t == kAccLat && g_rank == 1) {
    /* every element i: (warm + iters) x (i + 1) */
    uint64_t times = (uint64_t)(warm + iters);
    TRY(local_access_begin(c));
    for (int i = 0; i < count; ++i) {
      uint64_t got = load64(c->base + (size_t)i * 8), want = times * ((uint64_t)i + 1);
      if (got != want) fail(test, bytes, warm + iters, "accumulated sum", (size_t)i * 8, got, want);
    }
    TRY(local_access_end(c));
    r->validated += warm + iters;
  }
out:
  if (locked) MPI_Win_unlock(1, c->win);
}

/* put_bw, get_bw: rank 0 issues W operations, then one flush, under one shared lock. */
static void op_bandwidth(Ctx *c, int t, size_t bytes, long windows, int window, Result *r) {
  const char *test = kNames[t];
  const int n = (int)bytes;
  const uint32_t seed = (uint32_t)bytes * 17u + 3u;
  long per_sample = 0, it = 0;
  int samples = 0, locked = 0;
  plan(&windows, &samples, &per_sample);
  r->iterations = windows;
  r->samples = samples;
  if (g_rank == 1 && t == kGetBw) {
    TRY(local_access_begin(c));
    fill_full(c->base, bytes, seed);
    TRY(local_access_end(c));
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 0) {
    TRY(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->win));
    locked = 1;
    /* Warm-up: two windows; the first one's data checked in full. */
    for (long w = 0; w < 2; ++w) {
      if (t == kPutBw)
        fill_full(c->obuf, bytes, seed + (uint32_t)w);
      else
        memset(c->obuf, 0, bytes);
      for (int k = 0; k < window; ++k) {
        if (t == kPutBw)
          TRY(MPI_Put(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
        else
          TRY(MPI_Get(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
      }
      TRY(MPI_Win_flush(1, c->win));
      if (w == 0) {
        if (t == kPutBw) {
          memset(c->cbuf, 0, bytes);
          TRY(MPI_Get(c->cbuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
          TRY(MPI_Win_flush(1, c->win));
          check_full(test, c->cbuf, bytes, w, seed);
        } else {
          check_full(test, c->obuf, bytes, w, seed);
        }
        r->validated++;
      }
    }
    double start = MPI_Wtime();
    for (int s = 0; s < samples; ++s) {
      double t0 = MPI_Wtime();
      for (long k = 0; k < per_sample; ++k, ++it) {
        if (t == kPutBw) {
          stamp(c->obuf, bytes, it, 0);
          for (int w = 0; w < window; ++w) TRY(MPI_Put(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
          TRY(MPI_Win_flush(1, c->win));
        } else {
          poison(c->obuf, bytes, it, seed);
          for (int w = 0; w < window; ++w) TRY(MPI_Get(c->obuf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, c->win));
          TRY(MPI_Win_flush(1, c->win));
          check_poisoned(test, c->obuf, bytes, it, seed);
        }
      }
      r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample / window;
    }
    r->total_s = MPI_Wtime() - start;
    locked = 0;
    TRY(MPI_Win_unlock(1, c->win));
    if (t == kGetBw) r->validated += windows;
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (t == kPutBw) {
    TRY(check_target(c, test, bytes, it, &r->validated));
    r->validated += windows;
  }
out:
  if (locked) MPI_Win_unlock(1, c->win);
}

/* put_bibw: both ranks expose their window to the other and put W times into the other's, one
 * PSCW epoch per window (as osu_put_bibw); after MPI_Win_wait each rank checks the peer's stamps. */
static void put_bibw(Ctx *c, size_t bytes, long windows, int window, Result *r) {
  const char *test = kNames[kPutBibw];
  const int n = (int)bytes, peer = 1 - g_rank;
  long per_sample = 0, it = 0;
  int samples = 0;
  plan(&windows, &samples, &per_sample);
  r->iterations = windows;
  r->samples = samples;
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  double start = 0;
  for (int s = -1; s < samples; ++s) { /* s == -1: two warm-up windows, the first checked in full */
    long count = s < 0 ? 2 : per_sample;
    double t0 = MPI_Wtime();
    if (s == 0) start = t0;
    for (long k = 0; k < count; ++k, ++it) {
      const int full = s < 0 && k == 0;
      if (full)
        fill_full(c->obuf, bytes, (uint32_t)(g_rank * 1000 + 11));
      else
        stamp(c->obuf, bytes, it, g_rank);
      TRY(MPI_Win_post(c->peer_group, 0, c->win));
      TRY(MPI_Win_start(c->peer_group, 0, c->win));
      for (int w = 0; w < window; ++w) TRY(MPI_Put(c->obuf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, c->win));
      TRY(MPI_Win_complete(c->win));
      TRY(MPI_Win_wait(c->win));
      if (full)
        check_full(test, c->base, bytes, it, (uint32_t)(peer * 1000 + 11));
      else
        check_stamp(test, c->base, bytes, it, peer);
      r->validated++;
    }
    if (s >= 0) r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample / window;
  }
  r->total_s = MPI_Wtime() - start;
out:;
}

/* fetch_and_op, compare_and_swap: rank 0 times one atomic + flush; every fetched value checked. */
static void atomic_latency(Ctx *c, int t, long iters, Result *r) {
  const char *test = kNames[t];
  long warm = warmup_of(iters), per_sample = 0;
  int samples = 0, locked = 0;
  plan(&iters, &samples, &per_sample);
  r->iterations = iters;
  r->samples = samples;
  if (g_rank == 1) {
    TRY(local_access_begin(c));
    store64(c->base, 0);
    TRY(local_access_end(c));
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 0) {
    const uint64_t one = 1;
    uint64_t fetched = 0, value = 0, compare = 0;
    TRY(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->win));
    locked = 1;
    long i = 0; /* the target holds i before operation i */
    double start = 0;
    for (int s = -1; s < samples; ++s) { /* s == -1: warm-up */
      long count = s < 0 ? warm : per_sample;
      double t0 = MPI_Wtime();
      if (s == 0) start = t0;
      for (long k = 0; k < count; ++k, ++i) {
        fetched = ~(uint64_t)0;
        if (t == kFop) {
          TRY(MPI_Fetch_and_op(&one, &fetched, MPI_UINT64_T, 1, 0, MPI_SUM, c->win));
        } else {
          value = (uint64_t)i + 1;
          compare = (uint64_t)i;
          TRY(MPI_Compare_and_swap(&value, &compare, &fetched, MPI_UINT64_T, 1, 0, c->win));
        }
        TRY(MPI_Win_flush(1, c->win));
        if (fetched != (uint64_t)i) fail(test, 8, i, "fetched value", 0, fetched, (uint64_t)i);
      }
      if (s >= 0) r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample;
    }
    r->total_s = MPI_Wtime() - start;
    if (t == kCas) { /* a compare that does not match: the target keeps its value, the fetch returns it */
      value = 12345;
      compare = (uint64_t)i + 7;
      TRY(MPI_Compare_and_swap(&value, &compare, &fetched, MPI_UINT64_T, 1, 0, c->win));
      TRY(MPI_Win_flush(1, c->win));
      if (fetched != (uint64_t)i)
        fail(test, 8, i, "fetched value of a failed compare", 0, fetched, (uint64_t)i);
    }
    locked = 0;
    TRY(MPI_Win_unlock(1, c->win));
    r->validated = warm + iters;
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 1) { /* warm + iters operations, each adding one */
    uint64_t want = (uint64_t)(warm + iters);
    TRY(local_access_begin(c));
    uint64_t got = load64(c->base);
    TRY(local_access_end(c));
    if (got != want) fail(test, 8, warm + iters, "target value after the timed loop", 0, got, want);
  }
out:
  if (locked) MPI_Win_unlock(1, c->win);
}

/* fence, pscw: one epoch per iteration with one 8-byte put from rank 0, timed at rank 0; rank 1
 * checks the put's value after every epoch. */
static void epoch(Ctx *c, int t, long iters, Result *r) {
  const char *test = kNames[t];
  long warm = warmup_of(iters), per_sample = 0;
  int samples = 0, fenced = 0;
  plan(&iters, &samples, &per_sample);
  r->iterations = iters;
  r->samples = samples;
  if (g_rank == 1) {
    TRY(local_access_begin(c));
    store64(c->base, 0);
    store64(c->base + ATOMIC_BYTES, 0);
    TRY(local_access_end(c));
  }
  TRY(MPI_Barrier(MPI_COMM_WORLD));
  if (t == kFence) {
    TRY(MPI_Win_fence(MPI_MODE_NOPRECEDE, c->win));
    fenced = 1;
  }
  long i = 0;
  double start = 0;
  for (int s = -1; s < samples; ++s) { /* s == -1: warm-up */
    long count = s < 0 ? warm : per_sample;
    double t0 = MPI_Wtime();
    if (s == 0) start = t0;
    for (long k = 0; k < count; ++k, ++i) {
      const uint64_t want = ((uint64_t)i << 8) | 0x5a;
      /* fence: the put of epoch i goes to slot i % 2, so the next epoch's put (to the other slot) cannot
       * race rank 1's read; the one after waits for rank 1's next fence, which follows the read. */
      const MPI_Aint slot = t == kFence ? (MPI_Aint)(i % 2) * ATOMIC_BYTES : 0;
      if (t == kFence) {
        if (g_rank == 0) {
          store64(c->obuf, want);
          TRY(MPI_Put(c->obuf, ATOMIC_BYTES, MPI_BYTE, 1, slot, ATOMIC_BYTES, MPI_BYTE, c->win));
        }
        TRY(MPI_Win_fence(0, c->win));
      } else if (g_rank == 0) {
        store64(c->obuf, want);
        TRY(MPI_Win_start(c->peer_group, 0, c->win));
        TRY(MPI_Put(c->obuf, ATOMIC_BYTES, MPI_BYTE, 1, 0, ATOMIC_BYTES, MPI_BYTE, c->win));
        TRY(MPI_Win_complete(c->win));
      } else if (g_rank == 1) {
        TRY(MPI_Win_post(c->peer_group, 0, c->win));
        TRY(MPI_Win_wait(c->win));
      }
      if (g_rank == 1) {
        uint64_t got = load64(c->base + slot);
        if (got != want) fail(test, ATOMIC_BYTES, i, "put value after the epoch", (size_t)slot, got, want);
      }
    }
    if (s >= 0) r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample;
  }
  r->total_s = MPI_Wtime() - start;
  if (t == kFence) {
    fenced = 0;
    TRY(MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win));
  }
  r->validated = g_rank == 1 ? warm + iters : 0;
out:
  if (fenced) MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win);
}

/* --- reporting --------------------------------------------------------------------------------- */
static void write_csv(FILE *csv, const char *label, const char *test, size_t bytes, const Result *r,
                      long ops_per_iter, double avg_us, int directions) {
  SampleStats st = sample_stats(r->sample_s, r->samples);
  double mbps = avg_us > 0 ? (double)bytes * directions / avg_us : 0,
         p50_mbps = st.p50_us > 0 ? (double)bytes * directions / st.p50_us : 0;
  fprintf(csv, "%s,%s,%zu,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%ld\n", label, test, bytes,
          r->iterations * ops_per_iter, r->samples, avg_us, st.min_us, st.p50_us, st.p99_us, st.max_us, mbps,
          p50_mbps, r->validated);
}

static const char *kCsvHeader =
    "label,test,bytes,iterations,samples,avg_us,min_us,p50_us,p99_us,max_us,avg_MBps,p50_MBps,validated\n";

/* Whether any rank's call failed in the test just run; rank 0 prints "# FAILED ..." with the first
 * failing rank's error, and every rank clears the error. */
static int test_failed(const char *test) {
  int mine = g_err != MPI_SUCCESS ? g_rank + 1 : 0, first = 0;
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "mpi_rma: MPI_Allreduce failed after %s\n", test);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  if (first == 0) return 0;
  char msg[MPI_MAX_ERROR_STRING + 128] = "";
  if (g_rank == first - 1) {
    char es[MPI_MAX_ERROR_STRING] = "";
    int es_len = 0;
    if (MPI_Error_string(g_err, es, &es_len) != MPI_SUCCESS) snprintf(es, sizeof es, "error %d", g_err);
    snprintf(msg, sizeof msg, "%s returned %d on rank %d: %s", g_err_call, g_err, g_rank, es);
  }
  if (first - 1 != 0) {
    if (g_rank == first - 1) MPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
    if (g_rank == 0)
      MPI_Recv(msg, (int)sizeof msg, MPI_CHAR, first - 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (g_rank == 0) {
    printf("# FAILED %s: %s\n", test, msg);
    fflush(stdout);
  }
  g_err = MPI_SUCCESS;
  g_err_call[0] = '\0';
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  int parsed = parse_options(argc, argv, &o);
  if (parsed != 0 || size != 2) {
    if (g_rank == 0) {
      if (parsed >= 0 && size != 2) fprintf(stderr, "mpi_rma: needs exactly 2 ranks (got %d)\n", size);
      usage(parsed == 1 ? stdout : stderr);
    }
    MPI_Finalize();
    return parsed == 1 ? 0 : 2;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  char library[MPI_MAX_LIBRARY_VERSION_STRING], label[64];
  library_and_label(library, label, sizeof label, o.label);
  FILE *csv = g_rank == 0 && o.csv_path ? open_csv(o.csv_path, kCsvHeader) : NULL;

  /* Sizes of the swept tests: powers of two from MIN to MAX. */
  size_t sizes[40];
  int nsizes = 0;
  for (size_t b = 1; b <= o.max_bytes && nsizes < 40; b <<= 1) {
    if (b >= o.min_bytes) sizes[nsizes++] = b;
  }
  Ctx c;
  memset(&c, 0, sizeof c);
  c.win_bytes = o.max_bytes > 64 ? o.max_bytes : 64;
  c.obuf = malloc(c.win_bytes);
  c.cbuf = malloc(c.win_bytes);
  uint8_t *created = NULL;
  if (!c.obuf || !c.cbuf || (o.create && !(created = malloc(c.win_bytes)))) {
    fprintf(stderr, "mpi_rma: cannot allocate 3 x %zu bytes\n", c.win_bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  memset(c.obuf, 0, c.win_bytes);
  memset(c.cbuf, 0, c.win_bytes);
  int rc;
  if (o.create) {
    memset(created, 0, c.win_bytes);
    c.base = created;
    rc = MPI_Win_create(created, (MPI_Aint)c.win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
  } else {
    rc = MPI_Win_allocate((MPI_Aint)c.win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.base, &c.win);
  }
  if (rc != MPI_SUCCESS) {
    char es[MPI_MAX_ERROR_STRING] = "";
    int es_len = 0;
    MPI_Error_string(rc, es, &es_len);
    fprintf(stderr, "mpi_rma: %s of %zu bytes failed on rank %d: %s\n",
            o.create ? "MPI_Win_create" : "MPI_Win_allocate", c.win_bytes, g_rank, es);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Win_set_errhandler(c.win, MPI_ERRORS_RETURN);
  {
    MPI_Group world;
    int peer = 1 - g_rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &c.peer_group);
    MPI_Group_free(&world);
  }

  if (g_rank == 0) {
    printf("# Takyon MPI one-sided benchmark (bench/mpi/mpi_rma.c), OSU-format output\n");
    printf("# library: %s\n", library);
    print_compiler();
    printf("# ranks: %d (0 -> 1), window %s of %zu B, bandwidth window %d, scale %g\n", size,
           o.create ? "MPI_Win_create" : "MPI_Win_allocate", c.win_bytes, o.window, o.scale);
  }
  long validated = 0;
  int failed_tests = 0;
  for (int t = 0; t < kTests; ++t) {
    if (!o.run[t]) continue;
    if (g_rank == 0) {
      if (is_bandwidth(t))
        printf("# OSU %s\n# Size      Bandwidth (MB/s)\n", kTitles[t]);
      else
        printf("# OSU %s\n# Size          Latency (us)\n", kTitles[t]);
      fflush(stdout);
    }
    const int n = is_swept(t) ? nsizes : 1;
    for (int k = 0; k < n; ++k) {
      size_t bytes = is_swept(t) ? sizes[k] : ATOMIC_BYTES;
      if (t == kAccLat && bytes < 8) continue; /* whole uint64_t elements */
      Result r;
      memset(&r, 0, sizeof r);
      long iters = scaled(o.lat_iters, o.min_lat_iters, bytes, o.scale);
      long windows = scaled(o.bw_windows, o.min_bw_windows, bytes, o.scale);
      {
        if (t == kPutLat || t == kGetLat || t == kAccLat)
          op_latency(&c, t, bytes, iters, &r);
        else if (t == kPutBw || t == kGetBw)
          op_bandwidth(&c, t, bytes, windows, o.window, &r);
        else if (t == kPutBibw)
          put_bibw(&c, bytes, windows, o.window, &r);
        else if (t == kFop || t == kCas)
          atomic_latency(&c, t, iters, &r);
        else
          epoch(&c, t, iters, &r);
      }
      if (test_failed(kNames[t])) {
        ++failed_tests;
        break;
      }
      long all = 0;
      MPI_Reduce(&r.validated, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      if (g_rank == 0) {
        validated += all;
        r.validated = all;
        const long ops = is_bandwidth(t) ? o.window : 1;
        double avg_us = r.total_s / (double)r.iterations / (double)ops * 1e6;
        int directions = t == kPutBibw ? 2 : 1;
        if (is_bandwidth(t))
          printf("%-10zu%20.2f\n", bytes, avg_us > 0 ? (double)bytes * directions / avg_us : 0.0);
        else
          printf("%-10zu%18.2f\n", bytes, avg_us);
        fflush(stdout);
        if (csv)
          write_csv(csv, label, kNames[t], bytes, &r, (t == kPutBibw ? 2 : 1) * ops, avg_us, directions);
      }
    }
  }
  if (g_rank == 0) {
    printf("# validated: %ld checks, 0 errors%s\n", validated,
           failed_tests ? "; some tests FAILED (above)" : "");
    if (csv) fclose(csv);
  }
  MPI_Group_free(&c.peer_group);
  MPI_Win_free(&c.win);
  free(created);
  free(c.obuf);
  free(c.cbuf);
  MPI_Finalize();
  return 0;
}
