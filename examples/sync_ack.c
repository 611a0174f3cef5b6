/* SPDX-License-Identifier: MIT */
/* sync_ack: the guide's CORRECT METHOD: send, then wait for the receiver's zero-byte ack. */
/*
 * Takyon transfers are one way: the sender does not know when the receiver is done with a
 * message. Here the sender blocks after each send until the receiver has processed the data and
 * answered with a zero-byte message:
 *
 *   Sender (A)                    Receiver (B)
 *   while (1) {                   while (1) {
 *     prepareData(data, bytes)      recv(&bytes)
 *     send(bytes)                   processData(data, bytes)
 *     recv(NULL)  // wait here      send(0)  // 0 byte message
 *   }                             }
 *
 * This is correct for every provider, including shared-memory ones (InterThreadPointer,
 * InterProcessPointer) where sender and receiver use the very same buffer. The B->A direction
 * only carries zero-byte acks, so it gets no buffer memory at all.
 *
 * Usage: sync_ack [-fork | -A | -B] [-event] [-n <iterations>] ["<provider> -ID=<n>"]
 */
#include <stdio.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#include "example_common.h"

#define MAX_BYTES ((uint64_t)64 * 1024)

static int syncAckEndpoint(const ExampleOptions *options, bool is_endpointA) {
  /* One buffer A->B of MAX_BYTES; one buffer B->A that only carries zero-byte acks. */
  TakyonPathAttributes attrs = takyonAllocAttributes(is_endpointA, options->is_polling, 1, 1, MAX_BYTES,
                                                     EXAMPLE_TIMEOUT, options->interconnect);
  if (attrs.sender_max_bytes_list == NULL || attrs.recver_max_bytes_list == NULL) return 1;
  if (is_endpointA) {
    attrs.recver_max_bytes_list[0] = 0; /* A receives only acks */
  } else {
    attrs.sender_max_bytes_list[0] = 0; /* B sends only acks */
  }
  TakyonPath *path = exampleCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) return 1;

  bool ok = true;
  bool timed_out = false;
  for (uint32_t i = 0; ok && i < (uint32_t)options->iterations; i++) {
    uint64_t bytes = exampleMessageBytes(i, MAX_BYTES);
    if (is_endpointA) {
      /* prepareData(): only now, because B acknowledged the previous message. */
      exampleFill((void *)path->attrs.sender_addr_list[0], bytes, i);
      if (!takyonSend(path, 0, bytes, 0, 0, &timed_out) || timed_out) {
        exampleReport(path, "takyonSend", timed_out);
        ok = false;
        break;
      }
      uint64_t ack_bytes = 1;
      if (!takyonRecv(path, 0, &ack_bytes, NULL, &timed_out) || timed_out) { /* wait here */
        exampleReport(path, "takyonRecv (ack)", timed_out);
        ok = false;
        break;
      }
      if (ack_bytes != 0) {
        fprintf(stderr, "A: the ack for message %u has %llu bytes, expected 0\n", i,
                (unsigned long long)ack_bytes);
        ok = false;
      }
    } else {
      uint64_t received = 0;
      uint64_t offset = 0;
      if (!takyonRecv(path, 0, &received, &offset, &timed_out) || timed_out) {
        exampleReport(path, "takyonRecv", timed_out);
        ok = false;
        break;
      }
      /* processData(): the message lies in receive buffer 0 at the returned offset. */
      if (received != bytes || offset != 0) {
        fprintf(stderr, "B: message %u has %llu bytes at offset %llu, expected %llu at 0\n", i,
                (unsigned long long)received, (unsigned long long)offset, (unsigned long long)bytes);
        ok = false;
        break;
      }
      ok = exampleVerify((const char *)path->attrs.recver_addr_list[0] + offset, received, i, "B");
      /* Done with the data: tell A it may prepare the next message (a zero-byte message). */
      if (ok && (!takyonSend(path, 0, 0, 0, 0, &timed_out) || timed_out)) {
        exampleReport(path, "takyonSend (ack)", timed_out);
        ok = false;
      }
    }
  }

  if (!exampleDestroy(&path)) ok = false;
  if (ok) {
    printf("sync_ack %s: %d messages %s over '%s' (%s)\n", is_endpointA ? "A" : "B", options->iterations,
           is_endpointA ? "sent and acknowledged" : "received and verified", options->interconnect,
           options->is_polling ? "polling" : "event driven");
  }
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  ExampleOptions options;
  if (!exampleParseArgs(argc, argv, "InterThreadMemcpy -ID=1", 200, &options)) return 2;
  int result = exampleRun(&options, syncAckEndpoint);
  printf("sync_ack: %s\n", result == 0 ? "PASSED" : "FAILED");
  return result;
}
