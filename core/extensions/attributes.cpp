// SPDX-License-Identifier: MIT
// takyonAllocAttributes / takyonFreeAttributes: one-line set-up of a simple symmetric path.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "takyon/takyon_extensions.h"

extern "C" {

TakyonPathAttributes takyonAllocAttributes(bool is_endpointA, bool is_polling, int nbufs_AtoB, int nbufs_BtoA,
                                           uint64_t bytes, double timeout, const char* interconnect) {
  TakyonPathAttributes attrs;
  std::memset(&attrs, 0, sizeof(attrs));
  attrs.is_endpointA = is_endpointA;
  attrs.is_polling = is_polling;
  attrs.abort_on_failure = false;
  attrs.verbosity = TAKYON_VERBOSITY_ERRORS;
  attrs.path_create_timeout = timeout;
  attrs.send_start_timeout = timeout;
  attrs.send_finish_timeout = timeout;
  attrs.recv_start_timeout = timeout;
  attrs.recv_finish_timeout = timeout;
  attrs.path_destroy_timeout = timeout;
  attrs.send_completion_method = TAKYON_BLOCKING;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  attrs.nbufs_AtoB = nbufs_AtoB;
  attrs.nbufs_BtoA = nbufs_BtoA;
  if (interconnect == nullptr || std::strlen(interconnect) >= TAKYON_MAX_INTERCONNECT_CHARS) {
    std::fprintf(stderr, "takyonAllocAttributes: interconnect is %s\n",
                 interconnect == nullptr ? "NULL" : "longer than TAKYON_MAX_INTERCONNECT_CHARS - 1");
    return attrs;
  }
  std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", interconnect);
  if (nbufs_AtoB < 0 || nbufs_BtoA < 0) {
    std::fprintf(stderr, "takyonAllocAttributes: nbufs_AtoB (%d) and nbufs_BtoA (%d) must not be negative\n",
                 nbufs_AtoB, nbufs_BtoA);
    return attrs;
  }
  const int nsend = is_endpointA ? nbufs_AtoB : nbufs_BtoA;
  const int nrecv = is_endpointA ? nbufs_BtoA : nbufs_AtoB;
  // calloc(0) may return NULL; allocate at least one entry so the lists are always valid.
  attrs.sender_max_bytes_list =
      static_cast<uint64_t*>(std::calloc(static_cast<size_t>(nsend) + 1, sizeof(uint64_t)));
  attrs.recver_max_bytes_list =
      static_cast<uint64_t*>(std::calloc(static_cast<size_t>(nrecv) + 1, sizeof(uint64_t)));
  attrs.sender_addr_list = static_cast<size_t*>(std::calloc(static_cast<size_t>(nsend) + 1, sizeof(size_t)));
  attrs.recver_addr_list = static_cast<size_t*>(std::calloc(static_cast<size_t>(nrecv) + 1, sizeof(size_t)));
  if (attrs.sender_max_bytes_list == nullptr || attrs.recver_max_bytes_list == nullptr ||
      attrs.sender_addr_list == nullptr || attrs.recver_addr_list == nullptr) {
    std::fprintf(stderr, "takyonAllocAttributes: out of memory\n");
    takyonFreeAttributes(attrs);
    attrs.sender_max_bytes_list = nullptr;
    attrs.recver_max_bytes_list = nullptr;
    attrs.sender_addr_list = nullptr;
    attrs.recver_addr_list = nullptr;
    return attrs;
  }
  for (int i = 0; i < nsend; ++i) attrs.sender_max_bytes_list[i] = bytes;
  for (int i = 0; i < nrecv; ++i) attrs.recver_max_bytes_list[i] = bytes;
  return attrs;
}

void takyonFreeAttributes(TakyonPathAttributes attrs) {
  std::free(attrs.sender_max_bytes_list);
  std::free(attrs.recver_max_bytes_list);
  std::free(attrs.sender_addr_list);
  std::free(attrs.recver_addr_list);
}

}  // extern "C"
