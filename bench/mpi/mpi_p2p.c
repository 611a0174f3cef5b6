/* SPDX-License-Identifier: MIT */
/* MPI point-to-point benchmark: ping-pong latency between ranks 0 and 1 (one-way = RTT/2),
 * windowed bandwidth 0 -> 1 (W Isend/Irecv in flight, Waitall, 4-byte ack), bi-directional
 * bandwidth (both ranks post W Irecv and W Isend at once) and multi-pair bandwidth / message rate
 * (every rank i < n/2 streams windows to rank i + n/2 at once, like OSU's osu_mbw_mr), swept over
 * message sizes, every received buffer validated. As OSU and IMB do, every message of a window uses
 * the same send buffer and every receive the same receive buffer (--buffers slot: one per slot).
 * Plain MPI: built with takyon-mpicc and with Open MPI's mpicc. Prints OSU-format text
 * (# Size  Avg Latency(us) / # Size  Bandwidth (MB/s)); --csv FILE appends one machine-readable
 * line per (test, size). --help: usage. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_WINDOW 1024
/* Window slots get their own buffers up to this much memory per side; beyond it slots share
 * buffers round-robin (a 4 MiB window of 64 would need 256 MiB). */
#define WINDOW_MEMORY_CAP ((size_t)64 << 20)
/* Above this size, iterations shrink in proportion to the size (same bytes per size). */
#define SCALE_ABOVE 8192
#define MAX_SAMPLES 100

typedef struct {
  size_t min_bytes, max_bytes;
  long lat_iters, bw_windows; /* for sizes <= SCALE_ABOVE; scaled down above */
  long min_lat_iters, min_bw_windows;
  double scale;
  int window;
  int slot_buffers; /* 0: one send and one receive buffer for the whole window (OSU's pattern) */
  int do_latency, do_bandwidth, do_bibw, do_msgrate;
  const char *csv_path, *label;
} Options;

typedef struct {
  long iterations; /* timed iterations (latency) or timed windows (bandwidth) */
  int samples;
  double total_s; /* all timed iterations together */
  double sample_s[MAX_SAMPLES];
  long checked, full_checked;
} Result;

static int g_rank;

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: mpi_p2p [options]   (2 ranks or more; only msgrate uses ranks past 1)\n"
      "  -m, --sizes [MIN:]MAX    message sizes, powers of two from MIN to MAX, plus 0 B when\n"
      "                           MIN is 0; K/M suffixes (default 0:4M)\n"
      "  -t, --tests LIST         latency,bandwidth,bibw,msgrate (default latency,bandwidth)\n"
      "  -i, --iterations N       ping-pong iterations per size up to 8 KiB (default 10000);\n"
      "                           above, scaled down by size (at least 100)\n"
      "  -w, --windows N          bandwidth windows per size up to 8 KiB (default 200);\n"
      "                           above, scaled down by size (at least 20)\n"
      "  -s, --scale F            multiply all iteration counts by F (default 1)\n"
      "  -W, --window N           messages in flight per window (default 64)\n"
      "  -b, --buffers MODE       one: every message of a window uses the same send buffer and\n"
      "                           every receive the same receive buffer, as OSU and IMB do\n"
      "                           (default); slot: each window slot its own buffers (up to 64 MiB\n"
      "                           per side, then shared round-robin)\n"
      "  -c, --csv FILE           append one CSV line per result (header if FILE is new)\n"
      "  -l, --label NAME         first CSV column (default: the MPI library version up to its first comma)\n"
      "  -h, --help\n");
}

/* Returns 0 to run, 1 for --help, -1 for a usage error (message printed by rank 0). */
static int parse_options(int argc, char **argv, Options *o) {
  o->min_bytes = 0;
  o->max_bytes = (size_t)4 << 20;
  o->lat_iters = 10000;
  o->bw_windows = 200;
  o->min_lat_iters = 100;
  o->min_bw_windows = 20;
  o->scale = 1.0;
  o->window = 64;
  o->slot_buffers = 0;
  o->do_latency = o->do_bandwidth = 1;
  o->do_bibw = o->do_msgrate = 0;
  o->csv_path = NULL;
  o->label = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define IS(short_name, long_name) (strcmp(a, short_name) == 0 || strcmp(a, long_name) == 0)
    if (IS("-h", "--help")) return 1;
    if (v == NULL) {
      if (g_rank == 0) fprintf(stderr, "mpi_p2p: unknown option or missing value: %s\n", a);
      return -1;
    }
    int bad = 0;
    if (IS("-m", "--sizes")) {
      bad = parse_size_range(v, &o->min_bytes, &o->max_bytes, 0, (size_t)1 << 30);
    } else if (IS("-t", "--tests")) {
      o->do_latency = o->do_bandwidth = o->do_bibw = o->do_msgrate = 0;
      char list[256];
      snprintf(list, sizeof list, "%s", v);
      for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "latency") == 0)
          o->do_latency = 1;
        else if (strcmp(t, "bandwidth") == 0)
          o->do_bandwidth = 1;
        else if (strcmp(t, "bibw") == 0)
          o->do_bibw = 1;
        else if (strcmp(t, "msgrate") == 0)
          o->do_msgrate = 1;
        else
          bad = 1;
      }
      bad = bad || !(o->do_latency || o->do_bandwidth || o->do_bibw || o->do_msgrate);
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
    } else if (IS("-b", "--buffers")) {
      o->slot_buffers = strcmp(v, "slot") == 0;
      bad = !o->slot_buffers && strcmp(v, "one") != 0;
    } else if (IS("-c", "--csv")) {
      o->csv_path = v;
    } else if (IS("-l", "--label")) {
      o->label = v;
    } else {
      if (g_rank == 0) fprintf(stderr, "mpi_p2p: unknown option %s\n", a);
      return -1;
    }
#undef IS
    if (bad) {
      if (g_rank == 0) fprintf(stderr, "mpi_p2p: bad value for %s: %s\n", a, v);
      return -1;
    }
    ++i;
  }
  return 0;
}

/* --- validation ------------------------------------------------------------------------------
 * Warm-up messages (latency: all; windowed tests: the first window) carry a full pattern (every
 * byte checked); the others carry a stamp at the first and last byte and one sampled byte,
 * different for every iteration, so a message that did not arrive (stale buffer) or arrived
 * shifted is caught without touching the whole buffer. */
static uint8_t pattern_byte(size_t i, uint32_t seed) {
  uint32_t x = (uint32_t)i * 2654435761u ^ seed * 40503u;
  return (uint8_t)((x >> 24) ^ (x >> 11));
}

static uint8_t stamp_value(long iter, int buffer, int dir) {
  return (uint8_t)(1 + ((unsigned long)iter * 37u + (unsigned)buffer * 11u + (unsigned)dir * 101u) % 251u);
}

static size_t sample_offset(long iter, size_t bytes) {
  return (size_t)(((uint64_t)iter * 2654435761u + 12345u) % bytes);
}

static uint32_t full_seed(long iter, int buffer, int dir) {
  return (uint32_t)(iter * 7919 + buffer * 131 + dir * 17 + 1);
}

static void fill_full(uint8_t *buf, size_t bytes, uint32_t seed) {
  for (size_t i = 0; i < bytes; ++i) buf[i] = pattern_byte(i, seed);
}

static void stamp(uint8_t *buf, size_t bytes, long iter, int buffer, int dir) {
  if (bytes == 0) return;
  uint8_t v = stamp_value(iter, buffer, dir);
  buf[0] = v;
  buf[bytes - 1] = v;
  buf[sample_offset(iter, bytes)] = v;
}

static void fail(const char *test, size_t bytes, long iter, const char *what, size_t offset, unsigned got,
                 unsigned want) {
  fprintf(stderr,
          "mpi_p2p: VALIDATION FAILED on rank %d: %s, %zu B, iteration %ld: %s at offset %zu: got 0x%02x, "
          "want 0x%02x\n",
          g_rank, test, bytes, iter, what, offset, got, want);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void check_count(const char *test, size_t bytes, long iter, MPI_Status *st) {
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  if ((size_t)count != bytes)
    fail(test, bytes, iter, "wrong received count", 0, (unsigned)count, (unsigned)bytes);
}

static void check_full(const char *test, const uint8_t *buf, size_t bytes, long iter, uint32_t seed) {
  for (size_t i = 0; i < bytes; ++i) {
    if (buf[i] != pattern_byte(i, seed))
      fail(test, bytes, iter, "full pattern", i, buf[i], pattern_byte(i, seed));
  }
}

static void check_stamp(const char *test, const uint8_t *buf, size_t bytes, long iter, int buffer, int dir) {
  if (bytes == 0) return;
  uint8_t v = stamp_value(iter, buffer, dir);
  size_t s = sample_offset(iter, bytes);
  if (buf[0] != v) fail(test, bytes, iter, "stamp (first byte)", 0, buf[0], v);
  if (buf[bytes - 1] != v) fail(test, bytes, iter, "stamp (last byte)", bytes - 1, buf[bytes - 1], v);
  if (buf[s] != v) fail(test, bytes, iter, "stamp (sampled byte)", s, buf[s], v);
}

/* The windowed tests: a window's W messages use min(W, nbuf) buffers round-robin, so slots sharing a
 * buffer send identical data and each buffer has one expected value. The first warm-up window
 * (`full`) fills and checks every byte, the others stamp. */
static void fill_window(uint8_t *sbuf, size_t bytes, size_t nbuf, int window, long it, int dir, int full) {
  for (size_t b = 0; b < nbuf && b < (size_t)window; ++b) {
    if (full)
      fill_full(sbuf + b * bytes, bytes, full_seed(it, (int)b, dir));
    else
      stamp(sbuf + b * bytes, bytes, it, (int)b, dir);
  }
}

/* Checks a received window (sts: its W receive statuses) sent in direction `dir`; counts it in r. */
static void check_window(const char *test, const uint8_t *rbuf, size_t bytes, size_t nbuf, int window,
                         long it, int dir, int full, MPI_Status *sts, Result *r) {
  for (int w = 0; w < window; ++w) check_count(test, bytes, it, &sts[w]);
  for (size_t b = 0; b < nbuf && b < (size_t)window; ++b) {
    if (full)
      check_full(test, rbuf + b * bytes, bytes, it, full_seed(it, (int)b, dir));
    else
      check_stamp(test, rbuf + b * bytes, bytes, it, (int)b, dir);
  }
  if (full)
    r->full_checked += window;
  else
    r->checked += window;
}

/* --- the tests -------------------------------------------------------------------------------- */
static long scaled(long base, long minimum, size_t bytes, double scale) {
  double n = (double)base;
  if (bytes > SCALE_ABOVE) n = n * SCALE_ABOVE / (double)bytes;
  n *= scale;
  /* The minimum shrinks with --scale only down to 0.25 of itself (5 windows, 25 ping-pongs at least): fewer
   * samples make a p50 that one preemption decides. */
  double floor_n = (double)minimum * (scale < 0.25 ? 0.25 : (scale < 1 ? scale : 1));
  if (n < floor_n) n = floor_n;
  return n < 1 ? 1 : (long)n;
}

/* Ping-pong: rank 0 sends, rank 1 answers with a message of the same size; one-way = RTT / 2. */
static void latency(size_t bytes, long iters, uint8_t *sbuf, uint8_t *rbuf, Result *r) {
  const char *test = "latency";
  const int peer = 1 - g_rank;
  const int n = (int)bytes;
  long warm = iters / 10 < 10 ? 10 : iters / 10;
  if (warm > 200) warm = 200;
  int samples = iters < MAX_SAMPLES ? (int)iters : MAX_SAMPLES;
  long per_sample = iters / samples;
  iters = per_sample * samples;
  MPI_Status st;
  memset(r, 0, sizeof *r);
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < warm; ++i) { /* full pattern both ways */
    if (g_rank == 0) {
      fill_full(sbuf, bytes, full_seed(i, 0, 0));
      MPI_Send(sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
      check_count(test, bytes, i, &st);
      check_full(test, rbuf, bytes, i, full_seed(i, 0, 1));
    } else {
      MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
      check_count(test, bytes, i, &st);
      check_full(test, rbuf, bytes, i, full_seed(i, 0, 0));
      fill_full(sbuf, bytes, full_seed(i, 0, 1));
      MPI_Send(sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
    r->full_checked++;
  }
  long it = 0;
  double start = MPI_Wtime();
  for (int s = 0; s < samples; ++s) {
    double t0 = MPI_Wtime();
    for (long k = 0; k < per_sample; ++k, ++it) {
      if (g_rank == 0) {
        stamp(sbuf, bytes, it, 0, 0);
        MPI_Send(sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
        check_stamp(test, rbuf, bytes, it, 0, 1);
      } else {
        MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
        check_stamp(test, rbuf, bytes, it, 0, 0);
        stamp(sbuf, bytes, it, 0, 1);
        MPI_Send(sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      }
    }
    r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample / 2; /* one-way */
  }
  r->total_s = (MPI_Wtime() - start) / 2;
  check_count(test, bytes, it, &st);
  r->iterations = iters;
  r->samples = samples;
  r->checked = iters;
}

/* Windowed: the sender posts W Isends, its peer W Irecvs; Waitall; the receiver acks with 4 bytes. A
 * sample is one window; its time per message is window time / W. Every rank calls it (or only its
 * barrier): bandwidth runs ranks 0 -> 1, msgrate every pair i -> i + pairs at once. */
static void bandwidth(const char *test, int peer, int sender, size_t bytes, long windows, int window,
                      uint8_t *sbuf, uint8_t *rbuf, size_t nbuf, Result *r) {
  const int n = (int)bytes;
  long warm = 2;
  int samples = windows < MAX_SAMPLES ? (int)windows : MAX_SAMPLES;
  long per_sample = windows / samples;
  windows = per_sample * samples;
  MPI_Request reqs[MAX_WINDOW];
  static MPI_Status sts[MAX_WINDOW];
  uint8_t ack[4] = {0, 0, 0, 0};
  memset(r, 0, sizeof *r);
  MPI_Barrier(MPI_COMM_WORLD);
  long it = 0;
  double start = 0;
  for (int s = -1; s < samples; ++s) { /* s == -1: warm-up windows */
    long count = s < 0 ? warm : per_sample;
    double t0 = MPI_Wtime();
    if (s == 0) start = t0;
    for (long k = 0; k < count; ++k, ++it) {
      const int full = s < 0 && k == 0; /* the first warm-up window: every byte */
      if (sender) {
        fill_window(sbuf, bytes, nbuf, window, it, 0, full);
        for (int w = 0; w < window; ++w) {
          MPI_Isend(sbuf + (size_t)w % nbuf * bytes, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
        }
        MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < window; ++w) {
          MPI_Irecv(rbuf + (size_t)w % nbuf * bytes, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
        }
        MPI_Waitall(window, reqs, sts);
        MPI_Send(ack, 4, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
        check_window(test, rbuf, bytes, nbuf, window, it, 0, full, sts, r);
      }
    }
    if (s >= 0) r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample / window;
  }
  r->total_s = MPI_Wtime() - start;
  r->iterations = windows;
  r->samples = samples;
}

/* Bi-directional: both ranks post W Irecvs and W Isends, then Waitall on all 2W; each rank
 * validates what it received. A sample is one window; its time per message (each direction) is
 * window time / W, so the bandwidth over both directions is 2 x bytes / that. */
static void bibw(size_t bytes, long windows, int window, uint8_t *sbuf, uint8_t *rbuf, size_t nbuf,
                 Result *r) {
  const char *test = "bibw";
  const int peer = 1 - g_rank;
  const int n = (int)bytes;
  long warm = 2;
  int samples = windows < MAX_SAMPLES ? (int)windows : MAX_SAMPLES;
  long per_sample = windows / samples;
  windows = per_sample * samples;
  static MPI_Request reqs[2 * MAX_WINDOW];
  static MPI_Status sts[2 * MAX_WINDOW];
  memset(r, 0, sizeof *r);
  MPI_Barrier(MPI_COMM_WORLD);
  long it = 0;
  double start = 0;
  for (int s = -1; s < samples; ++s) { /* s == -1: warm-up windows */
    long count = s < 0 ? warm : per_sample;
    double t0 = MPI_Wtime();
    if (s == 0) start = t0;
    for (long k = 0; k < count; ++k, ++it) {
      const int full = s < 0 && k == 0; /* the first warm-up window: every byte */
      fill_window(sbuf, bytes, nbuf, window, it, g_rank, full);
      for (int w = 0; w < window; ++w)
        MPI_Irecv(rbuf + (size_t)w % nbuf * bytes, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &reqs[w]);
      for (int w = 0; w < window; ++w)
        MPI_Isend(sbuf + (size_t)w % nbuf * bytes, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &reqs[window + w]);
      MPI_Waitall(2 * window, reqs, sts);
      check_window(test, rbuf, bytes, nbuf, window, it, peer, full, sts, r);
    }
    if (s >= 0) r->sample_s[s] = (MPI_Wtime() - t0) / (double)per_sample / window;
  }
  r->total_s = MPI_Wtime() - start;
  r->iterations = windows;
  r->samples = samples;
}

/* --- reporting --------------------------------------------------------------------------------- */
/* One CSV line; *_us are one-way latency (latency) or time per message (bandwidth, msgrate; bibw:
 * per message each way); MB/s count `directions` streams (2 for bibw). */
static void write_csv(FILE *csv, const char *label, const char *test, size_t bytes, const Result *r,
                      long messages_per_iter, double avg_us, int directions) {
  SampleStats st = sample_stats(r->sample_s, r->samples);
  double mbps = avg_us > 0 ? (double)bytes * directions / avg_us : 0,
         p50_mbps = st.p50_us > 0 ? (double)bytes * directions / st.p50_us : 0;
  fprintf(csv, "%s,%s,%zu,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%ld\n", label, test, bytes,
          r->iterations * messages_per_iter, r->samples, avg_us, st.min_us, st.p50_us, st.p99_us, st.max_us,
          mbps, p50_mbps, r->checked + r->full_checked);
}

static const char *kCsvHeader =
    "label,test,bytes,iterations,samples,avg_us,min_us,p50_us,p99_us,max_us,avg_MBps,p50_MBps,validated\n";

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  int parsed = parse_options(argc, argv, &o);
  if (parsed != 0 || size < 2) {
    if (g_rank == 0) {
      if (parsed >= 0 && size < 2) fprintf(stderr, "mpi_p2p: needs 2 ranks (got %d)\n", size);
      usage(parsed == 1 ? stdout : stderr);
    }
    MPI_Finalize();
    return parsed == 1 ? 0 : 2;
  }

  char library[MPI_MAX_LIBRARY_VERSION_STRING], label[64];
  library_and_label(library, label, sizeof label, o.label);
  FILE *csv = g_rank == 0 && o.csv_path ? open_csv(o.csv_path, kCsvHeader) : NULL;

  /* Sizes: 0 (when min is 0), then powers of two from max(1, min) to max. */
  size_t sizes[40];
  int nsizes = 0;
  if (o.min_bytes == 0) sizes[nsizes++] = 0;
  for (size_t b = 1; b <= o.max_bytes && nsizes < 40; b <<= 1) {
    if (b >= o.min_bytes) sizes[nsizes++] = b;
  }
  size_t max_bytes = nsizes ? sizes[nsizes - 1] : 0;
  size_t slots = o.slot_buffers ? (size_t)o.window : 1;
  if (max_bytes > 0 && slots * max_bytes > WINDOW_MEMORY_CAP) slots = WINDOW_MEMORY_CAP / max_bytes;
  if (slots == 0) slots = 1;
  size_t buf_bytes = (max_bytes > 0 ? max_bytes : 1) * slots;
  uint8_t *sbuf = NULL, *rbuf = NULL;
  if (g_rank < (o.do_msgrate ? 2 * (size / 2) : 2)) {
    sbuf = malloc(buf_bytes);
    rbuf = malloc(buf_bytes);
    if (!sbuf || !rbuf) {
      fprintf(stderr, "mpi_p2p: cannot allocate 2 x %zu bytes\n", buf_bytes);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(sbuf, 0, buf_bytes);
    memset(rbuf, 0, buf_bytes);
  }

  if (g_rank == 0) {
    printf("# Takyon MPI point-to-point benchmark (bench/mpi/mpi_p2p.c), OSU-format output\n");
    printf("# library: %s\n", library);
    print_compiler();
    printf("# ranks: %d, window %d (%s), scale %g\n", size, o.window,
           o.slot_buffers ? "a buffer per slot" : "one send and one receive buffer", o.scale);
  }
  long validated = 0;
  Result r;
  if (o.do_latency) {
    if (g_rank == 0)
      printf(
          "# OSU MPI Latency Test (one-way = RTT/2, p50 of samples in the CSV)\n# Size          Avg "
          "Latency(us)\n");
    for (int k = 0; k < nsizes; ++k) {
      long iters = scaled(o.lat_iters, o.min_lat_iters, sizes[k], o.scale);
      if (g_rank < 2) {
        latency(sizes[k], iters, sbuf, rbuf, &r);
        validated += r.checked + r.full_checked;
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
      if (g_rank == 0) {
        double avg_us = r.total_s / (double)r.iterations * 1e6;
        printf("%-10zu%18.2f\n", sizes[k], avg_us);
        fflush(stdout);
        if (csv) write_csv(csv, label, "latency", sizes[k], &r, 1, avg_us, 1);
      }
    }
  }
  const int pairs = size / 2;            /* msgrate: rank i < pairs sends to rank i + pairs */
  for (int kind = 0; kind < 3; ++kind) { /* 0 bandwidth, 1 bibw, 2 msgrate */
    static const char *names[3] = {"bandwidth", "bibw", "msgrate"};
    if (!(kind == 0 ? o.do_bandwidth : kind == 1 ? o.do_bibw : o.do_msgrate)) continue;
    if (g_rank == 0) {
      if (kind == 0)
        printf("# OSU MPI Bandwidth Test (window %d, 1 MB = 1e6 B)\n# Size      Bandwidth (MB/s)\n",
               o.window);
      else if (kind == 1)
        printf(
            "# OSU MPI Bi-Directional Bandwidth Test (window %d, 1 MB = 1e6 B)\n# Size      Bandwidth "
            "(MB/s)\n",
            o.window);
      else
        printf(
            "# OSU MPI Multiple Bandwidth / Message Rate Test (%d pair%s at once, rank i -> i + %d, window "
            "%d;\n"
            "# the pairs' bytes together over the slowest pair's time)\n"
            "# Size                  MB/s        Messages/s\n",
            pairs, pairs == 1 ? "" : "s", pairs, o.window);
    }
    /* This rank's part: msgrate every rank of a pair; the others ranks 0 and 1. */
    const int in_pair = kind == 2 ? g_rank < 2 * pairs : g_rank < 2;
    const int half = kind == 2 ? pairs : 1;
    const int peer = g_rank < half ? g_rank + half : g_rank - half;
    const int streams = kind == 2 ? pairs : 1;
    for (int k = 0; k < nsizes; ++k) {
      long windows = scaled(o.bw_windows, o.min_bw_windows, sizes[k], o.scale);
      size_t nbuf = !o.slot_buffers ? 1 : sizes[k] == 0 ? (size_t)o.window : buf_bytes / sizes[k];
      if (nbuf > (size_t)o.window) nbuf = (size_t)o.window;
      memset(&r, 0, sizeof r);
      if (in_pair) {
        if (kind == 1)
          bibw(sizes[k], windows, o.window, sbuf, rbuf, nbuf, &r);
        else
          bandwidth(names[kind], peer, g_rank < half, sizes[k], windows, o.window, sbuf, rbuf, nbuf, &r);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
      /* The receivers (bibw: each rank) validated; their counts add up at rank 0, with the slowest
       * stream's time (msgrate: the pairs' windows overlap, so bytes / slowest time). */
      long checked[2] = {r.checked, r.full_checked}, all[2] = {0, 0};
      MPI_Reduce(checked, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      double slowest = 0;
      MPI_Reduce(&r.total_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (g_rank == 0) {
        r.checked = all[0];
        r.full_checked = all[1];
        r.total_s = slowest;
        validated += r.checked + r.full_checked;
        /* time per message of one stream (per direction for bibw); MB/s counts every stream */
        double avg_us = r.total_s / (double)r.iterations / o.window * 1e6;
        double mbps = avg_us > 0 ? (double)sizes[k] * streams / avg_us : 0.0;
        if (kind == 2)
          printf("%-10zu%18.2f%18.2f\n", sizes[k], mbps, avg_us > 0 ? streams * 1e6 / avg_us : 0.0);
        else
          printf("%-10zu%20.2f\n", sizes[k], kind == 1 ? 2 * mbps : mbps);
        fflush(stdout);
        if (csv)
          write_csv(csv, label, names[kind], sizes[k], &r, (kind == 1 ? 2L : streams) * o.window, avg_us,
                    kind == 1 ? 2 : streams);
      }
    }
  }
  if (g_rank == 0) {
    printf("# validated: %ld received messages, 0 errors\n", validated);
    if (csv) fclose(csv);
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
