/* SPDX-License-Identifier: MIT */
/* MPI point-to-point soak: rounds of random-size messages between every pair of ranks, every byte checked. */
/*
 * Usage: takyon-run -n <np> takyon-soak-mpi [--messages N] [--seconds S] [--seed N] [--max-bytes B]
 *                                            [--inject-repeat N]
 * (--inject-repeat: message N from rank 0 to rank 1 carries the bytes of the one before it; a self-test,
 * the run must fail naming it.)
 *
 * Each round (all ranks derive the same choices from the seed and the round number) is one of:
 *   blocking:  rank pairs of a round-robin schedule; the lower rank MPI_Sends its batch then MPI_Recvs
 *              the partner's, the higher the other way round; receives name the source, the tag or
 *              MPI_ANY_TAG.
 *   window:    every rank posts an MPI_Irecv per expected message (source and tag named) into its own
 *              slot, then MPI_Isends its batches, then completes with MPI_Waitall, MPI_Waitany,
 *              MPI_Testsome or MPI_Testany; 16 guard bytes on each side of each slot's message.
 *   wildcard:  every rank MPI_Isends its batches, then receives them with a mix of MPI_ANY_SOURCE and
 *              MPI_ANY_TAG (MPI_Recv or MPI_Irecv + MPI_Wait); the status names the message, which must
 *              be one not yet received and, under MPI_ANY_TAG, the earliest unreceived from its source
 *              (MPI's non-overtaking rule).
 * Message k of a batch from s to d has tag k and the pattern of (s, d, its number on that pair): a lost,
 * repeated, misrouted or reordered message fails its check. An MPI_Allreduce ends every round, so no
 * wildcard receive can take the next round's messages. Any failure prints what and MPI_Aborts.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH 16
#define GUARD 16
#define GUARD_BYTE 0xA5

static int g_rank, g_size;
static uint64_t g_seed = 1;
static uint64_t g_max_bytes = 262144;
static uint64_t g_inject_repeat; /* > 0: message N from rank 0 to 1 carries message N-1's bytes (self-test) */

static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

#define FAIL(...)                         \
  do {                                    \
    fprintf(stderr, "rank %d: ", g_rank); \
    fprintf(stderr, __VA_ARGS__);         \
    fprintf(stderr, "\n");                \
    fflush(stderr);                       \
    MPI_Abort(MPI_COMM_WORLD, 3);         \
  } while (0)
#define CHECK_MPI(call)                                                                     \
  do {                                                                                      \
    int rc_ = (call);                                                                       \
    if (rc_ != MPI_SUCCESS) FAIL("%s returned %d (%s:%d)", #call, rc_, __FILE__, __LINE__); \
  } while (0)

/* The key of message `seq` on the pair src -> dst: distinct per seq on a pair (mix64 is a bijection). */
static uint64_t key_of(int src, int dst, uint64_t seq) {
  return mix64(mix64(g_seed ^ ((uint64_t)src << 40) ^ ((uint64_t)dst << 20)) ^ mix64(seq));
}

static const uint64_t kStep = 0xD1B54A32D192ED03ull;

static void fill(unsigned char *p, uint64_t n, uint64_t key) {
  uint64_t k = 0, w = key;
  for (; k + 8 <= n; k += 8, w += kStep) memcpy(p + k, &w, 8);
  for (; k < n; ++k) p[k] = (unsigned char)((key + (k >> 3) * kStep) >> ((k & 7u) * 8u));
}

/* Index of the first wrong byte, or -1. */
static long check(const unsigned char *p, uint64_t n, uint64_t key) {
  uint64_t k = 0, w = key;
  for (; k + 8 <= n; k += 8, w += kStep) {
    uint64_t a;
    memcpy(&a, p + k, 8);
    if (a != w) break;
  }
  for (; k < n; ++k) {
    if (p[k] != (unsigned char)((key + (k >> 3) * kStep) >> ((k & 7u) * 8u))) return (long)k;
  }
  return -1;
}

/* A message's size and its offsets in its send and receive slots. */
typedef struct {
  uint64_t bytes, src_offset, dest_offset;
} Shape;

static Shape shape_of(uint64_t key) {
  uint64_t r0 = mix64(key ^ 0x5EED), r1 = mix64(r0), r2 = mix64(r1), r3 = mix64(r2);
  Shape s;
  uint64_t kind = r0 % 100, lo, hi;
  if (kind < 2) {
    lo = 0, hi = 7;
  } else if (kind < 70) {
    lo = 8, hi = 256;
  } else if (kind < 95) {
    lo = 257, hi = 4096;
  } else {
    lo = 4097, hi = g_max_bytes;
  }
  if (hi > g_max_bytes) hi = g_max_bytes;
  if (lo > hi) lo = hi;
  s.bytes = lo + r1 % (hi - lo + 1);
  s.src_offset = r2 % (g_max_bytes - s.bytes + 1);
  s.dest_offset = r3 % (g_max_bytes - s.bytes + 1);
  return s;
}

/* The slot size: a message at any offset plus the guards on both sides. */
static uint64_t slot_bytes(void) {
  return g_max_bytes + 2 * GUARD;
}

typedef struct {
  int mode;     /* 0 blocking, 1 window, 2 wildcard */
  int batch;    /* messages per ordered pair */
  int complete; /* window: 0 Waitall, 1 Waitany, 2 Testsome, 3 Testany */
} Round;

static Round round_of(uint64_t r) {
  uint64_t h = mix64(g_seed ^ mix64(r ^ 0xC0FFEEull));
  Round out;
  out.mode = (int)(h % 3);
  out.batch = 1 + (int)((h >> 8) % MAX_BATCH);
  out.complete = (int)((h >> 16) % 4);
  return out;
}

static uint64_t *g_pair_seq; /* messages sent (row: src) or received (row: dst) per pair so far */
static unsigned char *g_send, *g_recv;
static uint64_t g_bytes;

static uint64_t *pair_seq(int src, int dst) {
  return &g_pair_seq[(size_t)src * (size_t)g_size + (size_t)dst];
}

/* Writes message k of this round to `dst` in send slot `slot`; returns its shape. */
static Shape prepare(int dst, int k, int slot, unsigned char **data) {
  uint64_t seq = *pair_seq(g_rank, dst) + (uint64_t)k;
  uint64_t key = key_of(g_rank, dst, seq);
  Shape s = shape_of(key);
  *data = g_send + (size_t)slot * slot_bytes() + GUARD + s.src_offset;
  int repeat = g_inject_repeat > 0 && g_rank == 0 && dst == 1 && seq == g_inject_repeat;
  fill(*data, s.bytes, repeat ? key_of(g_rank, dst, seq - 1) : key);
  return s;
}

/* Checks message k from `src` (count bytes at data); guards around it when `slot_base` is given. */
static void verify(int src, int k, const unsigned char *data, int count, const unsigned char *slot_base,
                   const char *how) {
  uint64_t seq = *pair_seq(src, g_rank) + (uint64_t)k;
  uint64_t key = key_of(src, g_rank, seq);
  Shape s = shape_of(key);
  if ((uint64_t)count != s.bytes)
    FAIL("%s: message %llu from rank %d has %d bytes, sent %llu", how, (unsigned long long)seq, src, count,
         (unsigned long long)s.bytes);
  long bad = check(data, s.bytes, key);
  if (bad >= 0)
    FAIL("%s: message %llu from rank %d (%llu bytes): byte %ld is wrong", how, (unsigned long long)seq, src,
         (unsigned long long)s.bytes, bad);
  if (slot_base != NULL) {
    const unsigned char *before = slot_base + s.dest_offset,
                        *after = slot_base + GUARD + s.dest_offset + s.bytes;
    for (int i = 0; i < GUARD; ++i) {
      if (before[i] != GUARD_BYTE || after[i] != GUARD_BYTE)
        FAIL("%s: message %llu from rank %d: a byte beside it in the receive buffer was written", how,
             (unsigned long long)seq, src);
    }
  }
  g_bytes += s.bytes;
}

static void blocking_round(const Round *r, uint64_t round) {
  int players = g_size + (g_size & 1), n = players - 1;
  for (int t = 0; t < n; ++t) {
    int partner;
    if (g_rank == players - 1)
      partner = t;
    else if (g_rank == t)
      partner = players - 1;
    else
      partner = ((2 * t - g_rank) % n + n) % n;
    if (partner >= g_size || partner == g_rank) continue;
    for (int phase = 0; phase < 2; ++phase) {
      int sending = (phase == 0) == (g_rank < partner);
      for (int k = 0; k < r->batch; ++k) {
        if (sending) {
          unsigned char *data;
          Shape s = prepare(partner, k, 0, &data);
          CHECK_MPI(MPI_Send(data, (int)s.bytes, MPI_BYTE, partner, k, MPI_COMM_WORLD));
        } else {
          MPI_Status st;
          int count = 0;
          int tag = (mix64(round ^ (uint64_t)k) & 1) ? MPI_ANY_TAG : k;
          unsigned char *data = g_recv + GUARD;
          CHECK_MPI(MPI_Recv(data, (int)g_max_bytes, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
          CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
          if (st.MPI_SOURCE != partner || st.MPI_TAG != k)
            FAIL("blocking: expected message %d from rank %d, status says tag %d from rank %d", k, partner,
                 st.MPI_TAG, st.MPI_SOURCE);
          verify(partner, k, data, count, NULL, "blocking MPI_Recv");
        }
      }
    }
    *pair_seq(g_rank, partner) += (uint64_t)r->batch;
    *pair_seq(partner, g_rank) += (uint64_t)r->batch;
  }
}

static void window_round(const Round *r) {
  int nmsg = (g_size - 1) * r->batch, nr = 0, ns = 0;
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)nmsg * 2);
  int *who = malloc(sizeof(int) * (size_t)nmsg * 2); /* source * MAX_BATCH + k of each receive */
  MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nmsg * 2);
  int *idx = malloc(sizeof(int) * (size_t)nmsg * 2);
  if (req == NULL || who == NULL || st == NULL || idx == NULL) FAIL("out of memory");
  for (int src = 0; src < g_size; ++src) {
    if (src == g_rank) continue;
    for (int k = 0; k < r->batch; ++k, ++nr) {
      Shape s = shape_of(key_of(src, g_rank, *pair_seq(src, g_rank) + (uint64_t)k));
      unsigned char *slot = g_recv + (size_t)nr * slot_bytes();
      memset(slot + s.dest_offset, GUARD_BYTE, GUARD);
      memset(slot + GUARD + s.dest_offset + s.bytes, GUARD_BYTE, GUARD);
      who[nr] = src * MAX_BATCH + k;
      CHECK_MPI(
          MPI_Irecv(slot + GUARD + s.dest_offset, (int)s.bytes, MPI_BYTE, src, k, MPI_COMM_WORLD, &req[nr]));
    }
  }
  for (int d = 1; d < g_size; ++d) {
    int dst = (g_rank + d) % g_size;
    for (int k = 0; k < r->batch; ++k, ++ns) {
      unsigned char *data;
      Shape s = prepare(dst, k, ns, &data);
      CHECK_MPI(MPI_Isend(data, (int)s.bytes, MPI_BYTE, dst, k, MPI_COMM_WORLD, &req[nmsg + ns]));
    }
  }
  int total = nmsg * 2;
  if (r->complete == 0) {
    CHECK_MPI(MPI_Waitall(total, req, st));
  } else {
    MPI_Status *got = malloc(sizeof(MPI_Status) * (size_t)total);
    if (got == NULL) FAIL("out of memory");
    for (int done = 0; done < total;) {
      int outcount = 0, flag = 0, one = MPI_UNDEFINED;
      if (r->complete == 1) {
        CHECK_MPI(MPI_Waitany(total, req, &one, got));
        if (one != MPI_UNDEFINED) st[one] = got[0], done += 1;
      } else if (r->complete == 2) {
        CHECK_MPI(MPI_Testsome(total, req, &outcount, idx, got));
        if (outcount == MPI_UNDEFINED) FAIL("MPI_Testsome: no active request left before all completed");
        for (int i = 0; i < outcount; ++i) st[idx[i]] = got[i];
        done += outcount;
      } else {
        CHECK_MPI(MPI_Testany(total, req, &one, &flag, got));
        if (flag && one != MPI_UNDEFINED) st[one] = got[0], done += 1;
      }
    }
    free(got);
  }
  for (int i = 0; i < nmsg; ++i) {
    int src = who[i] / MAX_BATCH, k = who[i] % MAX_BATCH, count = 0;
    Shape s = shape_of(key_of(src, g_rank, *pair_seq(src, g_rank) + (uint64_t)k));
    unsigned char *slot = g_recv + (size_t)i * slot_bytes();
    CHECK_MPI(MPI_Get_count(&st[i], MPI_BYTE, &count));
    verify(src, k, slot + GUARD + s.dest_offset, count, slot, "window MPI_Irecv");
  }
  for (int p = 0; p < g_size; ++p) {
    if (p == g_rank) continue;
    *pair_seq(g_rank, p) += (uint64_t)r->batch;
    *pair_seq(p, g_rank) += (uint64_t)r->batch;
  }
  free(req), free(who), free(st), free(idx);
}

static void wildcard_round(const Round *r, uint64_t round) {
  int nmsg = (g_size - 1) * r->batch, ns = 0;
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)nmsg);
  unsigned char got[64][MAX_BATCH]; /* per source: received message k? (at most 64 ranks) */
  int next[64];                     /* per source: its earliest unreceived k */
  if (req == NULL) FAIL("out of memory");
  if (g_size > 64) FAIL("the wildcard rounds handle at most 64 ranks");
  memset(got, 0, sizeof(got));
  memset(next, 0, sizeof(next));
  for (int d = 1; d < g_size; ++d) {
    int dst = (g_rank + d) % g_size;
    for (int k = 0; k < r->batch; ++k, ++ns) {
      unsigned char *data;
      Shape s = prepare(dst, k, ns, &data);
      CHECK_MPI(MPI_Isend(data, (int)s.bytes, MPI_BYTE, dst, k, MPI_COMM_WORLD, &req[ns]));
    }
  }
  for (int i = 0; i < nmsg; ++i) {
    uint64_t h = mix64(g_seed ^ mix64(round) ^ (uint64_t)i * 0x9E37ull);
    /* A source with messages left, and one of its unreceived tags. */
    int src = -1, k = -1;
    for (int tries = 0; src < 0; ++tries) {
      int c = (int)(((h >> 8) + (uint64_t)tries) % (uint64_t)g_size);
      if (c != g_rank && next[c] < r->batch) src = c;
    }
    for (int j = (int)((h >> 24) % (uint64_t)r->batch);; j = (j + 1) % r->batch) {
      if (!got[src][j]) {
        k = j;
        break;
      }
    }
    int want_src = (h & 1) ? MPI_ANY_SOURCE : src, want_tag = (h & 2) ? MPI_ANY_TAG : k;
    MPI_Status st;
    int count = 0;
    /* Any offset of the receive area, room for the largest message after it (16 slots are there). */
    unsigned char *data = g_recv + GUARD + (h >> 32) % (g_max_bytes + 1);
    int room = (int)g_max_bytes;
    if (h & 4) {
      CHECK_MPI(MPI_Recv(data, room, MPI_BYTE, want_src, want_tag, MPI_COMM_WORLD, &st));
    } else {
      MPI_Request rq;
      CHECK_MPI(MPI_Irecv(data, room, MPI_BYTE, want_src, want_tag, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Wait(&rq, &st));
    }
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    int s = st.MPI_SOURCE, t = st.MPI_TAG;
    if (s < 0 || s >= g_size || s == g_rank || t < 0 || t >= r->batch || got[s][t])
      FAIL("wildcard (source %d, tag %d): status says tag %d from rank %d: repeated or from nowhere",
           want_src, want_tag, t, s);
    if ((want_src != MPI_ANY_SOURCE && s != want_src) || (want_tag != MPI_ANY_TAG && t != want_tag))
      FAIL("wildcard (source %d, tag %d): matched tag %d from rank %d", want_src, want_tag, t, s);
    if (want_tag == MPI_ANY_TAG && t != next[s])
      FAIL("wildcard (source %d, MPI_ANY_TAG): took message %d from rank %d before its earlier message %d",
           want_src, t, s, next[s]);
    verify(s, t, data, count, NULL, "wildcard receive");
    got[s][t] = 1;
    while (next[s] < r->batch && got[s][next[s]]) ++next[s];
  }
  CHECK_MPI(MPI_Waitall(nmsg, req, MPI_STATUSES_IGNORE));
  for (int p = 0; p < g_size; ++p) {
    if (p == g_rank) continue;
    *pair_seq(g_rank, p) += (uint64_t)r->batch;
    *pair_seq(p, g_rank) += (uint64_t)r->batch;
  }
  free(req);
}

int main(int argc, char **argv) {
  uint64_t messages = 100000;
  double seconds = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (i + 1 < argc && strcmp(a, "--messages") == 0)
      messages = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && strcmp(a, "--seconds") == 0)
      seconds = strtod(argv[++i], NULL);
    else if (i + 1 < argc && strcmp(a, "--seed") == 0)
      g_seed = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && strcmp(a, "--max-bytes") == 0)
      g_max_bytes = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && strcmp(a, "--inject-repeat") == 0)
      g_inject_repeat = strtoull(argv[++i], NULL, 0);
    else {
      if (g_rank == 0)
        fprintf(stderr,
                "usage: %s [--messages N] [--seconds S] [--seed N] [--max-bytes B (8..2^30)] "
                "[--inject-repeat N]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (g_max_bytes < 8 || g_max_bytes > (1u << 30)) FAIL("--max-bytes must be 8 .. 2^30");
  if (g_size < 2) FAIL("run with at least 2 ranks");
  size_t slots = (size_t)(g_size - 1) * MAX_BATCH;
  g_send = malloc(slots * slot_bytes());
  g_recv = malloc(slots * slot_bytes());
  g_pair_seq = calloc((size_t)g_size * (size_t)g_size, sizeof(uint64_t));
  if (g_send == NULL || g_recv == NULL || g_pair_seq == NULL) FAIL("out of memory for %zu slots", slots);

  double t0 = MPI_Wtime();
  uint64_t sent_total = 0, next_report = 1000000, round = 0;
  int counts[3] = {0, 0, 0};
  for (;; ++round) {
    Round r = round_of(round);
    if (r.mode == 0)
      blocking_round(&r, round);
    else if (r.mode == 1)
      window_round(&r);
    else
      wildcard_round(&r, round);
    counts[r.mode]++;
    sent_total += (uint64_t)g_size * (uint64_t)(g_size - 1) * (uint64_t)r.batch;
    /* Ends the round everywhere (no wildcard receive can meet the next round's messages) and agrees
       on stopping. */
    int stop = sent_total >= messages || (g_rank == 0 && seconds > 0 && MPI_Wtime() - t0 >= seconds), any = 0;
    CHECK_MPI(MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (g_rank == 0 && sent_total >= next_report) {
      printf("  ... %llu messages\n", (unsigned long long)sent_total);
      fflush(stdout);
      next_report += 1000000;
    }
    if (any) break;
  }
  double elapsed = MPI_Wtime() - t0;
  unsigned long long bytes = 0, mine = g_bytes;
  CHECK_MPI(MPI_Reduce(&mine, &bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (g_rank == 0) {
    printf(
        "soak MPI np %d: PASSED, %llu messages checked (%.1f MB) in %llu rounds (%d blocking, %d window, "
        "%d wildcard), %.2f s, %.0f messages/s, seed %llu\n",
        g_size, (unsigned long long)sent_total, (double)bytes / 1e6, (unsigned long long)round + 1, counts[0],
        counts[1], counts[2], elapsed, (double)sent_total / elapsed, (unsigned long long)g_seed);
  }
  free(g_send), free(g_recv), free(g_pair_seq);
  MPI_Finalize();
  return 0;
}
