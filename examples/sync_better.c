/* SPDX-License-Identifier: MIT */
/* sync_better: the guide's BETTER METHOD: block before sending, so both sides work concurrently. */
/*
 * With sync_ack the sender waits after each send, idle while the receiver processes. When sender
 * and receiver have their own buffers (the Memcpy providers), the sender may instead prepare the
 * next message first and only then wait for "the receiver is ready":
 *
 *   Sender (A)                    Receiver (B)
 *   while (1) {                   while (1) {
 *     prepareData(data, bytes)      send(0)  // 0 byte message: ready
 *     recv(NULL)  // wait here      recv(&bytes)
 *     send(bytes)                   processData(data, bytes)
 *   }                             }
 *
 * A prepares message i+1 in its own send buffer while B processes message i in its own receive
 * buffer. This is NOT correct for shared-memory providers (the "Pointer" ones), where A's send
 * buffer is B's receive buffer: A would overwrite the message B is still processing. Use
 * sync_ack there; this program refuses them.
 *
 * Usage: sync_better [-fork | -A | -B] [-event] [-n <iterations>] ["<provider> -ID=<n>"]
 */
#include <stdio.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#include "example_common.h"

#define MAX_BYTES ((uint64_t)64 * 1024)

static int syncBetterEndpoint(const ExampleOptions *options, bool is_endpointA) {
  TakyonPathAttributes attrs = takyonAllocAttributes(is_endpointA, options->is_polling, 1, 1, MAX_BYTES,
                                                     EXAMPLE_TIMEOUT, options->interconnect);
  if (attrs.sender_max_bytes_list == NULL || attrs.recver_max_bytes_list == NULL) return 1;
  if (is_endpointA) {
    attrs.recver_max_bytes_list[0] = 0; /* B->A carries only zero-byte "ready" messages */
  } else {
    attrs.sender_max_bytes_list[0] = 0;
  }
  TakyonPath *path = exampleCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) return 1;

  bool ok = true;
  bool timed_out = false;
  for (uint32_t i = 0; ok && i < (uint32_t)options->iterations; i++) {
    uint64_t bytes = exampleMessageBytes(i, MAX_BYTES);
    if (is_endpointA) {
      /* prepareData() while B may still be processing the previous message in its own buffer. */
      exampleFill((void *)path->attrs.sender_addr_list[0], bytes, i);
      uint64_t ready_bytes = 1;
      if (!takyonRecv(path, 0, &ready_bytes, NULL, &timed_out) || timed_out) { /* wait here */
        exampleReport(path, "takyonRecv (ready)", timed_out);
        ok = false;
        break;
      }
      if (ready_bytes != 0) {
        fprintf(stderr, "A: 'ready' message %u has %llu bytes, expected 0\n", i,
                (unsigned long long)ready_bytes);
        ok = false;
        break;
      }
      if (!takyonSend(path, 0, bytes, 0, 0, &timed_out) || timed_out) {
        exampleReport(path, "takyonSend", timed_out);
        ok = false;
      }
    } else {
      /* Ready for the next message: the previous one has been processed. */
      if (!takyonSend(path, 0, 0, 0, 0, &timed_out) || timed_out) {
        exampleReport(path, "takyonSend (ready)", timed_out);
        ok = false;
        break;
      }
      uint64_t received = 0;
      uint64_t offset = 0;
      if (!takyonRecv(path, 0, &received, &offset, &timed_out) || timed_out) {
        exampleReport(path, "takyonRecv", timed_out);
        ok = false;
        break;
      }
      if (received != bytes || offset != 0) {
        fprintf(stderr, "B: message %u has %llu bytes at offset %llu, expected %llu at 0\n", i,
                (unsigned long long)received, (unsigned long long)offset, (unsigned long long)bytes);
        ok = false;
        break;
      }
      ok = exampleVerify((const char *)path->attrs.recver_addr_list[0] + offset, received, i, "B");
    }
  }

  if (!exampleDestroy(&path)) ok = false;
  if (ok) {
    printf("sync_better %s: %d messages %s over '%s' (%s)\n", is_endpointA ? "A" : "B", options->iterations,
           is_endpointA ? "prepared ahead and sent" : "received and verified", options->interconnect,
           options->is_polling ? "polling" : "event driven");
  }
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  ExampleOptions options;
  if (!exampleParseArgs(argc, argv, "InterThreadMemcpy -ID=1", 200, &options)) return 2;
  if (exampleIsSharedMemoryProvider(options.interconnect)) {
    fprintf(stderr,
            "sync_better: '%s' shares one buffer between sender and receiver; blocking before sending "
            "is not safe there (see the guide's 'Synchronization with Shared Memory'). Use sync_ack.\n",
            options.interconnect);
    return 2;
  }
  int result = exampleRun(&options, syncBetterEndpoint);
  printf("sync_better: %s\n", result == 0 ? "PASSED" : "FAILED");
  return result;
}
