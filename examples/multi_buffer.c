/* SPDX-License-Identifier: MIT */
/* multi_buffer: the guide's triple buffering: 3 buffers, one synchronization per round. */
/*
 * Buffers are independent: while one message is in flight or being processed, the sender fills
 * the next buffer. Synchronization is needed only once all buffers have been used, so one
 * zero-byte message per round of NBUFS messages keeps the sender from overwriting a receive
 * buffer the receiver has not processed yet:
 *
 *   Sender (A)                             Receiver (B)
 *   buf = 0                                buf = 0
 *   while (1) {                            while (1) {
 *     prepareData(data[buf], bytes)          if (buf == 0) send(0, 0)
 *     if (buf == 0) recv(0, NULL)            recv(buf, &bytes)
 *     send(buf, bytes)                       processData(data[buf], bytes)
 *     buf = (buf + 1) % NBUFS                buf = (buf + 1) % NBUFS
 *   }                                      }
 *
 * Each message also goes to its own offset inside the buffer (src_offset = dest_offset = 16*buf)
 * to show that offsets travel with the message. Like sync_better, this relies on sender and
 * receiver having their own buffers: the "Pointer" (shared-memory) providers are refused.
 *
 * Usage: multi_buffer [-fork | -A | -B] [-event] [-n <iterations>] ["<provider> -ID=<n>"]
 */
#include <stdio.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#include "example_common.h"

#define NBUFS 3
#define BUFFER_BYTES ((uint64_t)32 * 1024)
#define OFFSET_STEP 16
#define MAX_MESSAGE_BYTES (BUFFER_BYTES - (uint64_t)OFFSET_STEP * (NBUFS - 1))

static int multiBufferEndpoint(const ExampleOptions *options, bool is_endpointA) {
  /* NBUFS buffers A->B for data; one buffer B->A for the zero-byte sync messages. */
  TakyonPathAttributes attrs = takyonAllocAttributes(is_endpointA, options->is_polling, NBUFS, 1,
                                                     BUFFER_BYTES, EXAMPLE_TIMEOUT, options->interconnect);
  if (attrs.sender_max_bytes_list == NULL || attrs.recver_max_bytes_list == NULL) return 1;
  if (is_endpointA) {
    attrs.recver_max_bytes_list[0] = 0; /* B->A: zero-byte messages only, no memory */
  } else {
    attrs.sender_max_bytes_list[0] = 0;
  }
  TakyonPath *path = exampleCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) return 1;

  bool ok = true;
  bool timed_out = false;
  int syncs = 0;
  for (uint32_t i = 0; ok && i < (uint32_t)options->iterations; i++) {
    int buf = (int)(i % NBUFS);
    uint64_t offset = (uint64_t)OFFSET_STEP * (uint64_t)buf;
    uint64_t bytes = exampleMessageBytes(i, MAX_MESSAGE_BYTES);
    if (is_endpointA) {
      exampleFill((char *)path->attrs.sender_addr_list[buf] + offset, bytes, i); /* prepareData */
      if (buf == 0) {
        uint64_t sync_bytes = 1;
        if (!takyonRecv(path, 0, &sync_bytes, NULL, &timed_out) || timed_out) { /* the round's sync */
          exampleReport(path, "takyonRecv (sync)", timed_out);
          ok = false;
          break;
        }
        if (sync_bytes != 0) {
          fprintf(stderr, "A: sync message has %llu bytes, expected 0\n", (unsigned long long)sync_bytes);
          ok = false;
          break;
        }
        syncs++;
      }
      if (!takyonSend(path, buf, bytes, offset, offset, &timed_out) || timed_out) {
        exampleReport(path, "takyonSend", timed_out);
        ok = false;
      }
    } else {
      if (buf == 0) {
        /* All NBUFS receive buffers are processed: A may refill them. */
        if (!takyonSend(path, 0, 0, 0, 0, &timed_out) || timed_out) {
          exampleReport(path, "takyonSend (sync)", timed_out);
          ok = false;
          break;
        }
        syncs++;
      }
      uint64_t received = 0;
      uint64_t received_offset = 0;
      if (!takyonRecv(path, buf, &received, &received_offset, &timed_out) || timed_out) {
        exampleReport(path, "takyonRecv", timed_out);
        ok = false;
        break;
      }
      if (received != bytes || received_offset != offset) {
        fprintf(stderr, "B: message %u in buffer %d has %llu bytes at offset %llu, expected %llu at %llu\n",
                i, buf, (unsigned long long)received, (unsigned long long)received_offset,
                (unsigned long long)bytes, (unsigned long long)offset);
        ok = false;
        break;
      }
      ok = exampleVerify((const char *)path->attrs.recver_addr_list[buf] + received_offset, received, i,
                         "B"); /* processData */
    }
  }

  if (!exampleDestroy(&path)) ok = false;
  if (ok) {
    printf("multi_buffer %s: %d messages through %d buffers with %d syncs over '%s' (%s)\n",
           is_endpointA ? "A" : "B", options->iterations, NBUFS, syncs, options->interconnect,
           options->is_polling ? "polling" : "event driven");
  }
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  ExampleOptions options;
  if (!exampleParseArgs(argc, argv, "InterThreadMemcpy -ID=1", 300, &options)) return 2;
  if (exampleIsSharedMemoryProvider(options.interconnect)) {
    fprintf(stderr,
            "multi_buffer: '%s' shares one buffer between sender and receiver; the sender would fill a "
            "buffer the receiver may still be processing. Use a Memcpy provider.\n",
            options.interconnect);
    return 2;
  }
  int result = exampleRun(&options, multiBufferEndpoint);
  printf("multi_buffer: %s\n", result == 0 ? "PASSED" : "FAILED");
  return result;
}
