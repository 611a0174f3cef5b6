/* SPDX-License-Identifier: MIT */
/* Compiles takyon_providers.h alone as strict C99 and checks the provider table through the C API:
 * every row well formed, pairs symmetric, look-ups by name (bare or a whole interconnect string),
 * out-of-range indices, and the row of an open path. */
#define _POSIX_C_SOURCE 200809L /* getpid() in strict C99 mode; not needed by the header */

#include <takyon/takyon_providers.h> /* first and alone: the header must be self-contained */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <takyon/takyon_extensions.h>

#include "c_headers_check.h"

static int (*const count_fn)(void) = takyonProviderCount;
static const TakyonProviderInfo *(*const info_fn)(int) = takyonProviderInfo;
static const TakyonProviderInfo *(*const find_fn)(const char *) = takyonFindProvider;
static const TakyonProviderInfo *(*const path_fn)(const TakyonPath *) = takyonPathProvider;

typedef struct {
  bool is_endpointA;
  const TakyonProviderInfo *row; /* what takyonPathProvider said of the open path */
  char interconnect[TAKYON_MAX_INTERCONNECT_CHARS];
} Endpoint;

/* Opens endpoint A or B of a path, notes its provider row, destroys it. */
static void *openPath(void *arg) {
  Endpoint *endpoint = (Endpoint *)arg;
  TakyonPathAttributes attrs =
      takyonAllocAttributes(endpoint->is_endpointA, true, 1, 1, 64, 20.0, endpoint->interconnect);
  TakyonPath *path = takyonCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path != NULL) {
    endpoint->row = path_fn(path);
    free(takyonDestroy(&path));
  }
  return NULL;
}

#define PROVIDERS_EXPECT(condition)                                                 \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

int checkProvidersHeader(void) {
  int failures = 0;
  const int n = count_fn();
  PROVIDERS_EXPECT(n >= 10);
  PROVIDERS_EXPECT(info_fn(-1) == NULL);
  PROVIDERS_EXPECT(info_fn(n) == NULL);
  PROVIDERS_EXPECT(find_fn(NULL) == NULL);
  PROVIDERS_EXPECT(find_fn("NoSuchProvider") == NULL);
  PROVIDERS_EXPECT(find_fn("") == NULL);
  for (int i = 0; i < n; ++i) {
    const TakyonProviderInfo *p = info_fn(i);
    PROVIDERS_EXPECT(p != NULL && p->name != NULL && p->peer_name != NULL && p->description != NULL);
    if (p == NULL || p->name == NULL || p->peer_name == NULL) continue;
    PROVIDERS_EXPECT(find_fn(p->name) == p);
    char interconnect[TAKYON_MAX_INTERCONNECT_CHARS];
    snprintf(interconnect, sizeof interconnect, "%s -ID=7", p->name);
    PROVIDERS_EXPECT(find_fn(interconnect) == p);
    const TakyonProviderInfo *peer = find_fn(p->peer_name);
    PROVIDERS_EXPECT(peer != NULL && strcmp(peer->peer_name, p->name) == 0);
    PROVIDERS_EXPECT(p->reach >= TAKYON_REACH_THREADS && p->reach <= TAKYON_REACH_HOSTS);
    PROVIDERS_EXPECT(p->addressing != 0);
    PROVIDERS_EXPECT(p->sends || p->receives);
    /* A pair of one-way providers: one end sends, the other receives. */
    if (peer != NULL && peer != p) PROVIDERS_EXPECT(p->sends != peer->sends && p->receives != peer->receives);
    PROVIDERS_EXPECT(!p->shares_buffers || !p->app_send_buffers); /* a shared buffer is the receiver's */
    PROVIDERS_EXPECT(!p->reliable || p->connected || !p->sends);  /* reliable delivery needs a connection */
  }
  const TakyonProviderInfo *memcpy_row = find_fn("InterThreadMemcpy");
  PROVIDERS_EXPECT(memcpy_row != NULL && memcpy_row->available && memcpy_row->reach == TAKYON_REACH_THREADS);

  /* The row of an open path is the one its interconnect string names (both endpoints). */
  Endpoint endpoints[2] = {{true, NULL, {0}}, {false, NULL, {0}}};
  snprintf(endpoints[0].interconnect, sizeof endpoints[0].interconnect, "InterThreadPointer -ID=%ld",
           900000L + (long)getpid() % 90000L);
  memcpy(endpoints[1].interconnect, endpoints[0].interconnect, sizeof endpoints[1].interconnect);
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i)
    PROVIDERS_EXPECT(pthread_create(&threads[i], NULL, openPath, &endpoints[i]) == 0);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; ++i) {
    PROVIDERS_EXPECT(endpoints[i].row != NULL && endpoints[i].row == find_fn("InterThreadPointer"));
    PROVIDERS_EXPECT(endpoints[i].row != NULL && endpoints[i].row->shares_buffers);
  }
  PROVIDERS_EXPECT(path_fn(NULL) == NULL);
  return failures;
}
