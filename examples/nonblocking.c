/* SPDX-License-Identifier: MIT */
/* nonblocking: start a send, do useful work while it is in flight, then finish it. */
/*
 * With send_completion_method = TAKYON_USE_IS_SEND_FINISHED, takyonSend() only starts the
 * transfer (S1) and takyonIsSendFinished() completes it (S2):
 *
 *   Sender (A)                          Receiver (B)
 *   prepareData(buf 0)
 *   while (1) {                         while (1) {
 *     sendStart(buf, bytes)               recv(buf, &bytes)
 *     prepareData(next buf)  // overlap   processData(buf, bytes)
 *     sendIsFinished(buf)                 send(0)  // ack, also non-blocking
 *     recv(NULL)  // ack                  sendIsFinished()  (spelled takyonSendTest here)
 *     buf = (buf + 1) % 2               }
 *   }
 *
 * A has two send buffers and fills the next one while the current one is being sent. That is
 * safe even with the shared-memory "Pointer" providers: the buffer A fills held message i-1,
 * which B acknowledged before A started message i.
 * A's send_finish_timeout is 0: each takyonIsSendFinished() call checks once and returns with
 * timed_out = true while the transfer is still going, so A can interleave more work.
 *
 * Usage: nonblocking [-fork | -A | -B] [-event] [-n <iterations>] ["<provider> -ID=<n>"]
 */
#include <stdio.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#include "example_common.h"

#define NBUFS_AtoB 2
#define MAX_BYTES ((uint64_t)128 * 1024)

/* Finishes the non-blocking send on buffer `buf`, counting how many checks it took. */
static bool finishSend(TakyonPath *path, int buf, uint64_t *checks) {
  bool timed_out = true;
  while (timed_out) {
    (*checks)++;
    if (!takyonIsSendFinished(path, buf, &timed_out)) {
      exampleReport(path, "takyonIsSendFinished", false);
      return false;
    }
    /* timed_out == true: still in flight; an application would do more work here. */
  }
  return true;
}

static int nonblockingEndpoint(const ExampleOptions *options, bool is_endpointA) {
  TakyonPathAttributes attrs = takyonAllocAttributes(is_endpointA, options->is_polling, NBUFS_AtoB, 1,
                                                     MAX_BYTES, EXAMPLE_TIMEOUT, options->interconnect);
  if (attrs.sender_max_bytes_list == NULL || attrs.recver_max_bytes_list == NULL) return 1;
  attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED; /* both sides send non-blocking */
  if (is_endpointA) {
    attrs.send_finish_timeout = 0;      /* takyonIsSendFinished() only checks, never waits */
    attrs.recver_max_bytes_list[0] = 0; /* B->A: zero-byte acks only */
  } else {
    attrs.sender_max_bytes_list[0] = 0;
  }
  TakyonPath *path = exampleCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) return 1;

  uint32_t n = (uint32_t)options->iterations;
  bool ok = true;
  bool timed_out = false;
  uint64_t finish_checks = 0;
  uint64_t bytes_prepared_in_flight = 0;
  if (is_endpointA) {
    exampleFill((void *)path->attrs.sender_addr_list[0], exampleMessageBytes(0, MAX_BYTES), 0);
  }
  for (uint32_t i = 0; ok && i < n; i++) {
    int buf = (int)(i % NBUFS_AtoB);
    uint64_t bytes = exampleMessageBytes(i, MAX_BYTES);
    if (is_endpointA) {
      if (!takyonSend(path, buf, bytes, 0, 0, &timed_out) || timed_out) { /* S1: start */
        exampleReport(path, "takyonSend", timed_out);
        ok = false;
        break;
      }
      /* Overlapped work: prepare message i+1 in the other buffer while message i is sent. */
      if (i + 1 < n) {
        uint64_t next_bytes = exampleMessageBytes(i + 1, MAX_BYTES);
        exampleFill((void *)path->attrs.sender_addr_list[(i + 1) % NBUFS_AtoB], next_bytes, i + 1);
        bytes_prepared_in_flight += next_bytes;
      }
      if (!finishSend(path, buf, &finish_checks)) { /* S2: finish before reusing anything */
        ok = false;
        break;
      }
      uint64_t ack_bytes = 1;
      if (!takyonRecv(path, 0, &ack_bytes, NULL, &timed_out) || timed_out) {
        exampleReport(path, "takyonRecv (ack)", timed_out);
        ok = false;
        break;
      }
      if (ack_bytes != 0) {
        fprintf(stderr, "A: ack %u has %llu bytes, expected 0\n", i, (unsigned long long)ack_bytes);
        ok = false;
      }
    } else {
      uint64_t received = 0;
      uint64_t offset = 0;
      if (!takyonRecv(path, buf, &received, &offset, &timed_out) || timed_out) {
        exampleReport(path, "takyonRecv", timed_out);
        ok = false;
        break;
      }
      if (received != bytes || offset != 0) {
        fprintf(stderr, "B: message %u in buffer %d has %llu bytes at offset %llu, expected %llu at 0\n", i,
                buf, (unsigned long long)received, (unsigned long long)offset, (unsigned long long)bytes);
        ok = false;
        break;
      }
      ok = exampleVerify((const char *)path->attrs.recver_addr_list[buf] + offset, received, i, "B");
      if (!ok) break;
      if (!takyonSend(path, 0, 0, 0, 0, &timed_out) || timed_out) {
        exampleReport(path, "takyonSend (ack)", timed_out);
        ok = false;
        break;
      }
      /* takyonSendTest() is the guide's other name for takyonIsSendFinished(); B's finish
         timeout is EXAMPLE_TIMEOUT, so this waits until the ack is out. */
      if (!takyonSendTest(path, 0, &timed_out) || timed_out) {
        exampleReport(path, "takyonSendTest (ack)", timed_out);
        ok = false;
      }
    }
  }

  if (!exampleDestroy(&path)) ok = false;
  if (ok && is_endpointA) {
    printf(
        "nonblocking A: %u messages over '%s' (%s); %llu bytes prepared while sends were in flight; "
        "%llu takyonIsSendFinished checks\n",
        n, options->interconnect, options->is_polling ? "polling" : "event driven",
        (unsigned long long)bytes_prepared_in_flight, (unsigned long long)finish_checks);
  } else if (ok) {
    printf("nonblocking B: %u messages received and verified\n", n);
  }
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  ExampleOptions options;
  if (!exampleParseArgs(argc, argv, "InterThreadMemcpy -ID=1", 200, &options)) return 2;
  int result = exampleRun(&options, nonblockingEndpoint);
  printf("nonblocking: %s\n", result == 0 ? "PASSED" : "FAILED");
  return result;
}
