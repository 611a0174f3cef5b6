// SPDX-License-Identifier: MIT
// What every collective shares: checked sends and receives that turn timeouts into errors, buffer
// checks, and the C allocation of handles and path lists (freed by the C Finalize functions).
#ifndef TAKYON_EXTENSIONS_COLLECTIVE_COLLECTIVE_COMMON_HPP_
#define TAKYON_EXTENSIONS_COLLECTIVE_COLLECTIVE_COMMON_HPP_

#include <cstdint>
#include <cstdlib>
#include <string>

#include "extensions/extension_error.hpp"
#include "takyon/takyon.h"

namespace takyon::detail {

// Who is calling, for messages: "takyonBarrierRun (child with 2 children)".
struct CollectiveCall {
  const char* function;
  std::string role;
};

// "path 'InterThreadMemcpy -ID=3' endpoint B".
std::string describe_path(const TakyonPath* path);

// Buffers this endpoint sends from / receives into.
int send_buffer_count(const TakyonPath* path);
int recv_buffer_count(const TakyonPath* path);
// Address of send (receive) buffer `buffer` of this endpoint; the index must have been checked.
uint8_t* send_buffer_addr(const TakyonPath* path, int buffer);
uint8_t* recv_buffer_addr(const TakyonPath* path, int buffer);

// Checks that `buffer` exists in the directions the collective uses and holds `bytes` bytes
// (send side when need_send, receive side when need_recv).
bool check_buffer(const CollectiveCall& call, const TakyonPath* path, int buffer, bool need_send,
                  bool need_recv, uint64_t send_bytes = 0, uint64_t recv_bytes = 0);

// Starts a send; a start timeout is a failure. Completes it too unless the path is non-blocking
// (TAKYON_USE_IS_SEND_FINISHED), in which case finish_send() must follow.
bool start_send(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset,
                uint64_t dest_offset);
// Completes a send started on a non-blocking path (no-op on a blocking one).
bool finish_send(const CollectiveCall& call, TakyonPath* path, int buffer);
// start_send() + finish_send().
bool send_whole(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset,
                uint64_t dest_offset);
// Waits for the next message in `buffer`; a start timeout is a failure. Either pointer may be NULL.
bool recv_message(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t* bytes_ret,
                  uint64_t* offset_ret);

// Checks a caller's list of n paths: not NULL when n > 0, no NULL entry, no path twice.
bool check_path_list(const char* function, const char* list_name, int n, TakyonPath* const* list);
// calloc()ed copy of a list of n paths (n may be 0: returns a valid one-entry allocation).
TakyonPath** copy_path_list(int n, TakyonPath* const* list);
// calloc()ed handle; NULL after reporting "out of memory" for function.
void* alloc_handle(const char* function, size_t bytes);

// Checks a list of npaths paths (at least one) and allocates a handle with `path_list`/`npaths`
// (TakyonScatterSrc, TakyonGatherDest); `need` says what npaths must count ("a scatter needs at
// least one destination").
template <typename Handle>
Handle* init_path_list_handle(const char* function, const char* need, int npaths, TakyonPath** path_list) {
  if (npaths <= 0) {
    fail_extensionf("%s: npaths is %d; %s", function, npaths, need);
    return nullptr;
  }
  if (!check_path_list(function, "path_list", npaths, path_list)) return nullptr;
  auto* handle = static_cast<Handle*>(alloc_handle(function, sizeof(Handle)));
  if (handle == nullptr) return nullptr;
  handle->path_list = copy_path_list(npaths, path_list);
  if (handle->path_list == nullptr) {
    std::free(handle);
    fail_extensionf("%s: out of memory", function);
    return nullptr;
  }
  handle->npaths = npaths;
  return handle;
}

// nelements * bytes_per_elem without overflow; false (with the message) if it overflows.
bool element_bytes(const CollectiveCall& call, uint64_t nelements, uint64_t bytes_per_elem, uint64_t& bytes);

}  // namespace takyon::detail

#endif  // TAKYON_EXTENSIONS_COLLECTIVE_COLLECTIVE_COMMON_HPP_
