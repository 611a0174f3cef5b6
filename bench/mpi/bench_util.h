/* SPDX-License-Identifier: MIT */
/* What mpi_p2p.c and mpi_coll.c share: option values (sizes with K/M suffixes, positive counts), the
 * library's name and the CSV label, the CSV file with its header, the compiler line of the output
 * header, and the statistics over samples. Plain C99 and standard MPI, so Open MPI's mpicc builds it
 * too; static inline functions, so a program need not use all of them. */
#ifndef TAKYON_BENCH_MPI_UTIL_H_
#define TAKYON_BENCH_MPI_UTIL_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most samples sample_stats takes (each program keeps its own, smaller, MAX_SAMPLES). */
#define BENCH_MAX_SAMPLES 128

/* "64", "4K", "1M", "16KB": bytes (K = 1024). The value may be followed by ':' (MIN:MAX). */
static inline int parse_size(const char *s, size_t *out) {
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return -1;
  if (*end == 'K' || *end == 'k')
    v <<= 10, ++end;
  else if (*end == 'M' || *end == 'm')
    v <<= 20, ++end;
  if (*end == 'B') ++end;
  if (*end != '\0' && *end != ':') return -1;
  *out = (size_t)v;
  return 0;
}

/* "[MIN:]MAX" (-m, --sizes) into *min and *max: MIN defaults to, and is raised to, `floor`; -1 unless
 * MIN <= MAX <= limit. */
static inline int parse_size_range(const char *v, size_t *min, size_t *max, size_t floor, size_t limit) {
  const char *colon = strchr(v, ':');
  int bad;
  if (colon) {
    bad = parse_size(v, min) || parse_size(colon + 1, max);
  } else {
    *min = floor;
    bad = parse_size(v, max);
  }
  if (*min < floor) *min = floor;
  return bad || *min > *max || *max > limit ? -1 : 0;
}

/* A positive decimal count. */
static inline int parse_long(const char *s, long *out) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0) return -1;
  *out = v;
  return 0;
}

/* The MPI library's version string up to its first newline (`library`), and the CSV label: `given`,
 * or the library up to its first comma ("Open MPI v4.1.4", "Takyon MPI 0.1.0"). */
static inline void library_and_label(char library[MPI_MAX_LIBRARY_VERSION_STRING], char *label,
                                     size_t label_size, const char *given) {
  int len = 0;
  MPI_Get_library_version(library, &len);
  char *nl = strchr(library, '\n');
  if (nl) *nl = '\0';
  if (given) {
    snprintf(label, label_size, "%s", given);
  } else {
    size_t n = strcspn(library, ",");
    if (n >= label_size) n = label_size - 1;
    memcpy(label, library, n);
    label[n] = '\0';
  }
}

/* Opens `path` for appending CSV lines, writing `header` first when the file is new; aborts the job
 * when it cannot. */
static inline FILE *open_csv(const char *path, const char *header) {
  FILE *csv = fopen(path, "a+");
  if (!csv) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return NULL;
  }
  fseek(csv, 0, SEEK_END);
  if (ftell(csv) == 0) fputs(header, csv);
  return csv;
}

/* The "# compiler: ..." line of the output header (none for an unknown compiler). */
static inline void print_compiler(void) {
#if defined(__clang__)
  printf("# compiler: %s\n", __VERSION__);
#elif defined(__GNUC__)
  printf("# compiler: gcc %s\n", __VERSION__);
#endif
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline double percentile(const double *sorted, int n, double p) {
  int i = (int)(p * (n - 1) + 0.5);
  return sorted[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

/* Minimum, p50, p99 and maximum of `n` samples (seconds), in microseconds. */
typedef struct {
  double min_us, p50_us, p99_us, max_us;
} SampleStats;

static inline SampleStats sample_stats(const double *sample_s, int n) {
  double sorted[BENCH_MAX_SAMPLES];
  SampleStats st;
  if (n < 1 || n > BENCH_MAX_SAMPLES) {
    fprintf(stderr, "sample_stats: %d samples (1 to %d)\n", n, BENCH_MAX_SAMPLES);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  memcpy(sorted, sample_s, sizeof(double) * (size_t)n);
  qsort(sorted, (size_t)n, sizeof(double), cmp_double);
  st.min_us = sorted[0] * 1e6;
  st.max_us = sorted[n - 1] * 1e6;
  st.p50_us = percentile(sorted, n, 0.5) * 1e6;
  st.p99_us = percentile(sorted, n, 0.99) * 1e6;
  return st;
}

#endif
