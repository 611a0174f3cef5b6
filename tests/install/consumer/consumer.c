/* SPDX-License-Identifier: MIT */
/* An installed-Takyon consumer in C: two threads move 1 MiB over InterThreadMemcpy and check it.
 * Built twice: with <takyon/takyon.h> (-I<prefix>/include), and with -DGUIDE_STYLE as the user's
 * guide writes it, "takyon.h" (-I<prefix>/include/takyon). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GUIDE_STYLE
#include "takyon.h"
#include "takyon_extensions.h"
#else
#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>
#endif

#define BYTES ((uint64_t)1024 * 1024)

typedef struct {
  const char *interconnect;
  bool is_endpointA;
  bool ok;
} Endpoint;

static unsigned char pattern(uint64_t k) {
  return (unsigned char)((k * 31u + (k >> 10)) & 0xffu);
}

/* A sends the pattern; B checks it and answers with the number of bytes it verified (8 bytes). */
static void *endpointMain(void *arg) {
  Endpoint *endpoint = (Endpoint *)arg;
  TakyonPathAttributes attrs =
      takyonAllocAttributes(endpoint->is_endpointA, true, 1, 1, BYTES, 20.0, endpoint->interconnect);
  TakyonPath *path = takyonCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) {
    fprintf(stderr, "takyonCreate: %s\n", attrs.error_message);
    free(attrs.error_message);
    return NULL;
  }
  bool ok = false;
  bool timed_out = false;
  uint64_t bytes = 0;
  uint64_t offset = 0;
  uint64_t verified = 0;
  if (endpoint->is_endpointA) {
    unsigned char *out = (unsigned char *)path->attrs.sender_addr_list[0];
    for (uint64_t k = 0; k < BYTES; k++) out[k] = pattern(k);
    if (takyonSend(path, 0, BYTES, 0, 0, &timed_out) && !timed_out &&
        takyonRecv(path, 0, &bytes, &offset, &timed_out) && !timed_out && bytes == sizeof(verified)) {
      memcpy(&verified, (const char *)path->attrs.recver_addr_list[0] + offset, sizeof(verified));
      ok = verified == BYTES;
    }
  } else if (takyonRecv(path, 0, &bytes, &offset, &timed_out) && !timed_out) {
    const unsigned char *in = (const unsigned char *)path->attrs.recver_addr_list[0] + offset;
    while (verified < bytes && in[verified] == pattern(verified)) verified++;
    memcpy((void *)path->attrs.sender_addr_list[0], &verified, sizeof(verified));
    ok = takyonSend(path, 0, sizeof(verified), 0, 0, &timed_out) && !timed_out && verified == BYTES;
  }
  if (!ok) {
    fprintf(stderr, "endpoint %s: %s\n", endpoint->is_endpointA ? "A" : "B",
            timed_out                           ? "timed out"
            : path->attrs.error_message != NULL ? path->attrs.error_message
                                                : "wrong data");
  }
  char *error = takyonDestroy(&path);
  if (error != NULL) {
    fprintf(stderr, "takyonDestroy: %s\n", error);
    free(error);
    ok = false;
  }
  endpoint->ok = ok;
  return NULL;
}

int main(void) {
  /* A path ID of its own (from the pid) so concurrent runs never meet. */
  char interconnect[TAKYON_MAX_INTERCONNECT_CHARS];
  snprintf(interconnect, sizeof(interconnect), "InterThreadMemcpy -ID=%ld", (long)getpid());
  Endpoint endpoints[2] = {{interconnect, true, false}, {interconnect, false, false}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) {
    if (pthread_create(&threads[i], NULL, endpointMain, &endpoints[i]) != 0) return 1;
  }
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  if (!endpoints[0].ok || !endpoints[1].ok) {
    printf("C consumer: FAILED\n");
    return 1;
  }
  printf("C consumer: %llu bytes moved and verified over '%s'\n", (unsigned long long)BYTES, interconnect);
  return 0;
}
