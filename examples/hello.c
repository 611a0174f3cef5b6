/* SPDX-License-Identifier: MIT */
/* hello: the smallest Takyon program. Two threads of one process greet each other over one path. */
/*
 * Usage: hello ["<provider> -ID=<n>"]      (default "InterThreadMemcpy -ID=1")
 *
 * Endpoint A sends "Hello <i> from A" to endpoint B; B checks it and answers "Hello <i> from B".
 * Each greeting is answered before the next one is sent (round trip), so this program needs no
 * extra synchronization: the sender never overwrites a message the receiver is still reading.
 * Any provider that works inside one process will do: InterThreadMemcpy, InterThreadPointer,
 * InterProcessMemcpy, InterProcessPointer.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#define NUM_GREETINGS 3
#define MAX_MESSAGE_BYTES 64
#define TIMEOUT_SECONDS 20.0

typedef struct {
  const char *interconnect;
  bool is_endpointA;
  int result; /* 0: every greeting arrived intact */
} Endpoint;

/* Sends "Hello <i> from <me>" on buffer 0. Returns false on an error or a timeout. */
static bool sendGreeting(TakyonPath *path, int i) {
  const char *me = path->attrs.is_endpointA ? "A" : "B";
  char *message = (char *)path->attrs.sender_addr_list[0]; /* the send buffer Takyon allocated */
  int length = snprintf(message, MAX_MESSAGE_BYTES, "Hello %d from %s", i, me);
  bool timed_out = false;
  /* Send length+1 bytes (with the NUL) from offset 0 of send buffer 0 to offset 0 of the peer's
     receive buffer 0. */
  if (!takyonSend(path, 0, (uint64_t)length + 1, 0, 0, &timed_out)) {
    fprintf(stderr, "%s: takyonSend failed:\n%s\n", me, path->attrs.error_message);
    return false;
  }
  if (timed_out) {
    fprintf(stderr, "%s: takyonSend timed out\n", me);
    return false;
  }
  return true;
}

/* Waits for greeting i on buffer 0 and checks its text. */
static bool recvGreeting(TakyonPath *path, int i) {
  const char *me = path->attrs.is_endpointA ? "A" : "B";
  const char *peer = path->attrs.is_endpointA ? "B" : "A";
  uint64_t bytes = 0;
  uint64_t offset = 0;
  bool timed_out = false;
  if (!takyonRecv(path, 0, &bytes, &offset, &timed_out)) {
    fprintf(stderr, "%s: takyonRecv failed:\n%s\n", me, path->attrs.error_message);
    return false;
  }
  if (timed_out) {
    fprintf(stderr, "%s: takyonRecv timed out\n", me);
    return false;
  }
  /* The message is in this endpoint's receive buffer 0, at the offset the sender chose. */
  const char *message = (const char *)path->attrs.recver_addr_list[0] + offset;
  char expected[MAX_MESSAGE_BYTES];
  snprintf(expected, sizeof(expected), "Hello %d from %s", i, peer);
  if (offset != 0 || bytes != strlen(expected) + 1 || memcmp(message, expected, bytes) != 0) {
    fprintf(stderr, "%s: expected '%s' (%zu bytes at offset 0), got %llu bytes at offset %llu\n", me,
            expected, strlen(expected) + 1, (unsigned long long)bytes, (unsigned long long)offset);
    return false;
  }
  printf("%s received '%s'\n", me, message);
  return true;
}

static void *endpointThread(void *arg) {
  Endpoint *endpoint = (Endpoint *)arg;
  endpoint->result = 1;

  /* One buffer in each direction, MAX_MESSAGE_BYTES each, allocated by Takyon (address 0). */
  TakyonPathAttributes attrs =
      takyonAllocAttributes(endpoint->is_endpointA, false /* event driven */, 1, 1, MAX_MESSAGE_BYTES,
                            TIMEOUT_SECONDS, endpoint->interconnect);
  attrs.verbosity = TAKYON_VERBOSITY_NONE; /* errors: we print path->attrs.error_message ourselves */
  TakyonPath *path = takyonCreate(&attrs); /* returns once the other endpoint exists too */
  takyonFreeAttributes(attrs);             /* takyonCreate() copied what it needs */
  if (path == NULL) {
    fprintf(stderr, "%s: takyonCreate failed:\n%s\n", endpoint->is_endpointA ? "A" : "B",
            attrs.error_message);
    free(attrs.error_message);
    return NULL;
  }

  bool ok = true;
  for (int i = 0; i < NUM_GREETINGS && ok; i++) {
    if (endpoint->is_endpointA) {
      ok = sendGreeting(path, i) && recvGreeting(path, i);
    } else {
      ok = recvGreeting(path, i) && sendGreeting(path, i);
    }
  }

  char *error = takyonDestroy(&path);
  if (error != NULL) {
    fprintf(stderr, "%s: takyonDestroy failed:\n%s\n", endpoint->is_endpointA ? "A" : "B", error);
    free(error);
    ok = false;
  }
  endpoint->result = ok ? 0 : 1;
  return NULL;
}

int main(int argc, char **argv) {
  const char *interconnect = argc > 1 ? argv[1] : "InterThreadMemcpy -ID=1";
  if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
    fprintf(stderr, "usage: %s [\"<provider> -ID=<n>\"]\n", argv[0]);
    return 2;
  }

  Endpoint endpoints[2] = {{interconnect, true, 1}, {interconnect, false, 1}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) {
    if (pthread_create(&threads[i], NULL, endpointThread, &endpoints[i]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);

  if (endpoints[0].result != 0 || endpoints[1].result != 0) {
    fprintf(stderr, "hello over '%s': FAILED\n", interconnect);
    return 1;
  }
  printf("hello over '%s': %d greetings each way, all correct\n", interconnect, NUM_GREETINGS);
  return 0;
}
