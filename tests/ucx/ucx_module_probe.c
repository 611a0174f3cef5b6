/* SPDX-License-Identifier: MIT */
/* A program linked with libtakyon (and, built with PROBE_MPI, libtakyon_mpi) that checks when UCX
 * is loaded: not before the first Ucx path, and then without UCX's error-signal handlers.
 *
 *   ucx_module_probe lazy <ID> [options]     UCX is not mapped and SIGSEGV/SIGBUS are the defaults
 *                                             (under a sanitizer: as the sanitizer set them);
 *                                             then a "Ucx -ID=<ID> [options]" path (two threads)
 *                                             carries messages both ways, checked byte by byte;
 *                                             then libucp is mapped and SIGSEGV/SIGBUS still as at
 *                                             the start (unless UCX_ERROR_SIGNALS/UCX_HANDLE_ERRORS)
 *   ucx_module_probe missing <ID>            the module is not beside libtakyon: creating a Ucx
 *                                             path fails at once naming the module; Ucx is still
 *                                             listed as built; InterThreadMemcpy works as ever
 * <ID> "pid" takes one from the process id. Prints "PROBE OK" and exits 0 when every check holds.
 */
#define _GNU_SOURCE

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>
#include <takyon/takyon_providers.h>
#ifdef PROBE_MPI
#include <mpi.h>
#endif

#define MESSAGE_BYTES 20000 /* above UCX's eager threshold for its shared-memory transports */
#define MESSAGES 3
#define TIMEOUT_S 20.0

static int g_failures = 0;

static void fail(const char *what) {
  fprintf(stderr, "PROBE FAILED: %s\n", what);
  g_failures++;
}

/* dl_iterate_phdr: is a library whose file name contains `name` mapped? */
static int find_library(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char **name = (const char **)data;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, *name) != NULL) {
    *name = NULL; /* found */
    return 1;
  }
  return 0;
}

static bool mapped(const char *name) {
  const char *look = name;
  dl_iterate_phdr(find_library, (void *)&look);
  return look == NULL;
}

/* A sanitizer installs its own SIGSEGV/SIGBUS handlers before main(): then the dispositions must
 * stay what they were at the start, else they must be the defaults. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PROBE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PROBE_SANITIZER 1
#endif
#endif

static struct sigaction g_initial[2];
static const int kSignals[2] = {SIGSEGV, SIGBUS};

static void record_initial_dispositions(void) {
  for (int i = 0; i < 2; i++) sigaction(kSignals[i], NULL, &g_initial[i]);
#ifndef PROBE_SANITIZER
  for (int i = 0; i < 2; i++) {
    if ((g_initial[i].sa_flags & SA_SIGINFO) != 0 || g_initial[i].sa_handler != SIG_DFL) {
      fail("SIGSEGV or SIGBUS has a handler at the start of main()");
    }
  }
#endif
}

/* SIGSEGV and SIGBUS are handled as they were at the start of main(). */
static bool dispositions_unchanged(void) {
  for (int i = 0; i < 2; i++) {
    struct sigaction now;
    if (sigaction(kSignals[i], NULL, &now) != 0) return false;
    if ((now.sa_flags & SA_SIGINFO) != (g_initial[i].sa_flags & SA_SIGINFO)) return false;
    if ((now.sa_flags & SA_SIGINFO) != 0 ? now.sa_sigaction != g_initial[i].sa_sigaction
                                         : now.sa_handler != g_initial[i].sa_handler) {
      return false;
    }
  }
  return true;
}

static void expect_no_ucx(const char *when) {
  char text[200];
  if (mapped("libucp") || mapped("libucs") || mapped("libuct") || mapped("libtakyon_ucx")) {
    snprintf(text, sizeof(text), "%s: UCX or the Ucx module is already mapped", when);
    fail(text);
  }
  if (!dispositions_unchanged()) {
    snprintf(text, sizeof(text), "%s: SIGSEGV or SIGBUS is handled by someone else now", when);
    fail(text);
  }
}

static unsigned char pattern(int message, int from_a, uint64_t k) {
  return (unsigned char)((k * 131u + (uint64_t)message * 7u + (from_a ? 0x5a : 0xa5)) & 0xff);
}

typedef struct {
  char interconnect[200];
  bool is_a;
  bool ok;
} Endpoint;

static bool transfer(TakyonPath *path, int message, bool sending) {
  bool timed_out = false;
  const bool is_a = path->attrs.is_endpointA;
  if (sending) {
    unsigned char *out = (unsigned char *)path->attrs.sender_addr_list[0];
    for (uint64_t k = 0; k < MESSAGE_BYTES; k++) out[k] = pattern(message, is_a, k);
    if (!takyonSend(path, 0, MESSAGE_BYTES, 0, 0, &timed_out) || timed_out) {
      fprintf(stderr, "takyonSend: %s\n", timed_out ? "timed out" : path->attrs.error_message);
      return false;
    }
    return true;
  }
  uint64_t bytes = 0;
  uint64_t offset = 0;
  if (!takyonRecv(path, 0, &bytes, &offset, &timed_out) || timed_out) {
    fprintf(stderr, "takyonRecv: %s\n", timed_out ? "timed out" : path->attrs.error_message);
    return false;
  }
  const unsigned char *in = (const unsigned char *)path->attrs.recver_addr_list[0] + offset;
  if (bytes != MESSAGE_BYTES || offset != 0) {
    fprintf(stderr, "received %llu bytes at offset %llu, sent %d at 0\n", (unsigned long long)bytes,
            (unsigned long long)offset, MESSAGE_BYTES);
    return false;
  }
  for (uint64_t k = 0; k < MESSAGE_BYTES; k++) {
    if (in[k] != pattern(message, !is_a, k)) {
      fprintf(stderr, "message %d: byte %llu differs\n", message, (unsigned long long)k);
      return false;
    }
  }
  return true;
}

static void *run_endpoint(void *arg) {
  Endpoint *ep = (Endpoint *)arg;
  TakyonPathAttributes attrs =
      takyonAllocAttributes(ep->is_a, true, 1, 1, MESSAGE_BYTES, TIMEOUT_S, ep->interconnect);
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  TakyonPath *path = takyonCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) {
    fprintf(stderr, "endpoint %c: takyonCreate('%s') failed:\n%s\n", ep->is_a ? 'A' : 'B', ep->interconnect,
            attrs.error_message);
    free(attrs.error_message);
    return NULL;
  }
  bool ok = true;
  for (int i = 0; i < MESSAGES && ok; i++) {
    ok = transfer(path, i, ep->is_a) && transfer(path, i, !ep->is_a);
  }
  char *error = takyonDestroy(&path);
  if (error != NULL) {
    fprintf(stderr, "takyonDestroy: %s\n", error);
    free(error);
    ok = false;
  }
  ep->ok = ok;
  return NULL;
}

/* Both endpoints of `interconnect` as two threads; true when every message arrived intact. */
static bool run_path(const char *interconnect) {
  Endpoint eps[2];
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) {
    snprintf(eps[i].interconnect, sizeof(eps[i].interconnect), "%s", interconnect);
    eps[i].is_a = i == 0;
    eps[i].ok = false;
    if (pthread_create(&threads[i], NULL, run_endpoint, &eps[i]) != 0) return false;
  }
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  return eps[0].ok && eps[1].ok;
}

static int lazy(const char *interconnect) {
  expect_no_ucx("at start");
  const TakyonProviderInfo *ucx = takyonFindProvider("Ucx");
  if (ucx == NULL || !ucx->available) fail("Ucx is not listed as built");
  /* Another provider first: only a Ucx path may load UCX. */
  char other[64];
  snprintf(other, sizeof(other), "InterThreadMemcpy -ID=%d", (int)getpid());
  if (!run_path(other)) fail("the InterThreadMemcpy path failed");
  expect_no_ucx("after an InterThreadMemcpy path");
  if (!run_path(interconnect)) fail("the Ucx path failed");
  if (!mapped("libucp")) fail("libucp is not mapped after a Ucx path was created");
  if (!mapped("libtakyon_ucx")) fail("the Ucx module is not mapped after a Ucx path was created");
  if (getenv("UCX_ERROR_SIGNALS") == NULL && getenv("UCX_HANDLE_ERRORS") == NULL &&
      !dispositions_unchanged()) {
    fail("UCX's handler for SIGSEGV or SIGBUS stayed installed after the Ucx path");
  }
  /* A second Ucx path reuses the loaded module. */
  if (!run_path(interconnect)) fail("a second Ucx path failed");
  return 0;
}

static int missing(const char *interconnect) {
  expect_no_ucx("at start");
  const TakyonProviderInfo *ucx = takyonFindProvider("Ucx");
  if (ucx == NULL || !ucx->available) fail("Ucx is not listed as built");
  TakyonPathAttributes attrs = takyonAllocAttributes(true, true, 1, 1, 64, TIMEOUT_S, interconnect);
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  const double start = takyonTime();
  TakyonPath *path = takyonCreate(&attrs);
  const double took = takyonTime() - start;
  takyonFreeAttributes(attrs);
  if (path != NULL) {
    fail("a Ucx path was created without the module");
    (void)takyonDestroy(&path);
  } else {
    const char *text = attrs.error_message != NULL ? attrs.error_message : "";
    printf("error: %s\n", text);
    if (strstr(text, "Ucx provider: cannot load ") == NULL || strstr(text, "libtakyon_ucx.so") == NULL) {
      fail("the error does not say which module could not be loaded");
    }
    if (took > TIMEOUT_S / 2) fail("the missing module was reported only after waiting for the peer");
    free(attrs.error_message);
  }
  char other[64];
  snprintf(other, sizeof(other), "InterThreadMemcpy -ID=%d", (int)getpid());
  if (!run_path(other)) fail("InterThreadMemcpy failed after the Ucx module could not be loaded");
  expect_no_ucx("after the failed Ucx path");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s lazy|missing <ID>|pid [options]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  record_initial_dispositions();
#ifdef PROBE_MPI
  expect_no_ucx("before MPI_Init");
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) fail("MPI_Init");
  expect_no_ucx("after MPI_Init");
#endif
  unsigned long id =
      strcmp(argv[2], "pid") == 0 ? 7000000ul + (unsigned long)getpid() : strtoul(argv[2], NULL, 10);
  char interconnect[200];
  snprintf(interconnect, sizeof(interconnect), "Ucx -ID=%lu%s%s", id, argc > 3 ? " " : "",
           argc > 3 ? argv[3] : "");
  if (strcmp(argv[1], "lazy") == 0) {
    lazy(interconnect);
  } else if (strcmp(argv[1], "missing") == 0) {
    missing(interconnect);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", argv[1]);
    return 2;
  }
#ifdef PROBE_MPI
  MPI_Finalize();
#endif
  if (g_failures != 0) return 1;
  printf("PROBE OK (%s)\n", interconnect);
  return 0;
}
