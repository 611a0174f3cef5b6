/* SPDX-License-Identifier: MIT */
/* Compiles takyon_extensions.h alone as strict C99 and checks its declarations and behaviour. */
#define _POSIX_C_SOURCE 200809L /* getpid() in strict C99 mode; not needed by the header */

#include <takyon/takyon_extensions.h> /* first and alone: the header must be self-contained */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "c_headers_check.h"

/* The guide's extension signatures, exactly. */
static TakyonPathAttributes (*const alloc_attributes_fn)(bool, bool, int, int, uint64_t, double,
                                                         const char *) = takyonAllocAttributes;
static void (*const free_attributes_fn)(TakyonPathAttributes) = takyonFreeAttributes;
static double (*const time_fn)(void) = takyonTime;
static void (*const sleep_fn)(double) = takyonSleep;
static bool (*const endian_is_big_fn)(void) = takyonEndianIsBig;
static void (*const swap2_fn)(void *, uint64_t) = takyonEndianSwap2Byte;
static void (*const swap4_fn)(void *, uint64_t) = takyonEndianSwap4Byte;
static void (*const swap8_fn)(void *, uint64_t) = takyonEndianSwap8Byte;
static void (*const mmap_alloc_fn)(const char *, uint64_t, void **, TakyonMmapHandle *) = takyonMmapAlloc;
static void (*const mmap_free_fn)(TakyonMmapHandle) = takyonMmapFree;

typedef char check_mmap_name_chars[(TAKYON_MAX_MMAP_NAME_CHARS >= 32) ? 1 : -1];

#define EXPECT(condition)                                                           \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      failures++;                                                                   \
    }                                                                               \
  } while (0)

int checkExtensionsHeader(void) {
  int failures = 0;

  /* takyonAllocAttributes: a symmetric path, all lists allocated, addresses 0. */
  TakyonPathAttributes attrs = alloc_attributes_fn(true, false, 2, 3, 4096, 2.5, "InterThreadMemcpy -ID=7");
  EXPECT(strcmp(attrs.interconnect, "InterThreadMemcpy -ID=7") == 0);
  EXPECT(attrs.is_endpointA && !attrs.is_polling && !attrs.abort_on_failure);
  EXPECT(attrs.nbufs_AtoB == 2 && attrs.nbufs_BtoA == 3);
  EXPECT(attrs.path_create_timeout == 2.5 && attrs.path_destroy_timeout == 2.5);
  EXPECT(attrs.send_start_timeout == 2.5 && attrs.recv_finish_timeout == 2.5);
  EXPECT(attrs.send_completion_method == TAKYON_BLOCKING && attrs.recv_completion_method == TAKYON_BLOCKING);
  EXPECT(attrs.sender_max_bytes_list != NULL && attrs.recver_max_bytes_list != NULL);
  EXPECT(attrs.sender_addr_list != NULL && attrs.recver_addr_list != NULL);
  if (attrs.sender_max_bytes_list != NULL && attrs.sender_addr_list != NULL) {
    /* Endpoint A sends on the AtoB buffers... */
    for (int i = 0; i < 2; i++)
      EXPECT(attrs.sender_max_bytes_list[i] == 4096 && attrs.sender_addr_list[i] == 0);
  }
  if (attrs.recver_max_bytes_list != NULL && attrs.recver_addr_list != NULL) {
    /* ...and receives on the BtoA ones. */
    for (int i = 0; i < 3; i++)
      EXPECT(attrs.recver_max_bytes_list[i] == 4096 && attrs.recver_addr_list[i] == 0);
  }
  EXPECT(attrs.error_message == NULL);
  free_attributes_fn(attrs);

  /* Time: monotonic, and takyonSleep sleeps at least as long as asked. */
  double start = time_fn();
  sleep_fn(0.01);
  double elapsed = time_fn() - start;
  EXPECT(start >= 0.0 && elapsed >= 0.009 && elapsed < 5.0);

  /* Endian: swapping twice restores; swapping once reverses the bytes. */
  uint16_t v2[2] = {0x0102u, 0xa0b0u};
  uint32_t v4[1] = {0x01020304u};
  uint64_t v8[1] = {0x0102030405060708ull};
  swap2_fn(v2, 2);
  swap4_fn(v4, 1);
  swap8_fn(v8, 1);
  EXPECT(v2[0] == 0x0201u && v2[1] == 0xb0a0u && v4[0] == 0x04030201u && v8[0] == 0x0807060504030201ull);
  uint32_t one = 1;
  unsigned char first_byte = 0;
  memcpy(&first_byte, &one, 1);
  EXPECT(endian_is_big_fn() == (first_byte == 0));

  /* Named memory: allocate, write, free. */
  void *addr = NULL;
  TakyonMmapHandle handle = NULL;
  char name[TAKYON_MAX_MMAP_NAME_CHARS];
  snprintf(name, sizeof(name), "c-headers-check-%ld", (long)getpid());
  mmap_alloc_fn(name, 8192, &addr, &handle);
  EXPECT(addr != NULL && handle != NULL);
  if (addr != NULL) memset(addr, 0x5a, 8192);
  mmap_free_fn(handle);
  mmap_free_fn(NULL); /* ignored */

  return failures;
}
