// SPDX-License-Identifier: MIT
// Tree reduce with an application-supplied operation, optional result scatter, and allreduce.
#include <cinttypes>
#include <cstring>

#include "extensions/collective/collective_common.hpp"
#include "extensions/collective/tree.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::detail {
namespace {

// One member's part. `accumulator` holds this member's contribution and receives its subtree's
// result (at a child: offset 0 of the parent path's send buffer, which is then sent up).
//
// Every edge carries one message down per round: the result with scatter_result, else a zero-byte
// "folded" notice. A child returns only after it, so its next send into this buffer can never
// overwrite a contribution its parent is still folding (takyonRecv hands the buffer back to the
// sender at once; see docs/path-api.md).
bool reduce_run(const CollectiveCall& call, TakyonCollectiveReduce* c, int buffer, uint64_t nelements,
                uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, uint8_t* accumulator,
                bool scatter_result, const uint8_t** result_ret) {
  uint64_t bytes = 0;
  if (!element_bytes(call, nelements, bytes_per_elem, bytes)) return false;
  if (reduce_function == nullptr && c->nchildren > 0) {
    return fail_extensionf("%s (%s): reduce_function is NULL", call.function, call.role.c_str());
  }
  if (accumulator == nullptr && bytes > 0) {
    return fail_extensionf("%s (%s): the data to reduce is NULL", call.function, call.role.c_str());
  }
  const uint64_t down_bytes = scatter_result ? bytes : 0;
  TakyonPath* parent = c->parent_path;
  if (parent != nullptr && !check_buffer(call, parent, buffer, true, true, bytes, down_bytes)) return false;
  for (int i = 0; i < c->nchildren; i++) {
    if (!check_buffer(call, c->child_path_list[i], buffer, true, true, down_bytes, bytes)) return false;
  }

  // Up: fold each child's subtree result into ours, then pass ours up.
  for (int i = 0; i < c->nchildren; i++) {
    TakyonPath* child = c->child_path_list[i];
    uint64_t arrived = 0;
    uint64_t offset = 0;
    if (!recv_message(call, child, buffer, &arrived, &offset)) return false;
    if (arrived != bytes) {
      return fail_extensionf("%s (%s): child %d sent %" PRIu64 " bytes on %s but this reduce is %" PRIu64
                             " elements of %" PRIu64 " bytes = %" PRIu64 " bytes",
                             call.function, call.role.c_str(), i, arrived, describe_path(child).c_str(),
                             nelements, bytes_per_elem, bytes);
    }
    if (bytes > 0) reduce_function(nelements, accumulator, recv_buffer_addr(child, buffer) + offset);
  }
  if (parent != nullptr && !send_whole(call, parent, buffer, bytes, 0, 0)) return false;

  // Down: the root's result, or the notice that the parent is done with our contribution.
  const uint8_t* result = accumulator;
  if (parent != nullptr) {
    uint64_t arrived = 0;
    uint64_t offset = 0;
    if (!recv_message(call, parent, buffer, &arrived, &offset)) return false;
    if (arrived != down_bytes) {
      return fail_extensionf("%s (%s): the parent sent %" PRIu64 " bytes down on %s; expected %" PRIu64
                             " (do all members agree on scatter_result and the element count?)",
                             call.function, call.role.c_str(), arrived, describe_path(parent).c_str(),
                             down_bytes);
    }
    result = recv_buffer_addr(parent, buffer) + offset;
  }
  for (int i = 0; i < c->nchildren; i++) {
    TakyonPath* child = c->child_path_list[i];
    uint8_t* out = send_buffer_addr(child, buffer);
    if (down_bytes > 0 && out != result) std::memcpy(out, result, down_bytes);
    if (!start_send(call, child, buffer, down_bytes, 0, 0)) return false;
  }
  for (int i = 0; i < c->nchildren; i++) {
    if (!finish_send(call, c->child_path_list[i], buffer)) return false;
  }
  if (result_ret != nullptr) *result_ret = result;
  return true;
}

}  // namespace
}  // namespace takyon::detail

extern "C" {

TakyonCollectiveReduce* takyonReduceInit(int nchildren, TakyonPath* parent_path,
                                         TakyonPath** child_path_list) {
  return takyon::detail::init_tree<TakyonCollectiveReduce>("takyonReduceInit", nchildren, parent_path,
                                                           child_path_list);
}

bool takyonReduceRoot(TakyonCollectiveReduce* collective, int buffer, uint64_t nelements,
                      uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, void* data,
                      bool scatter_result) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonReduceRoot", collective)) return false;
  const CollectiveCall call{"takyonReduceRoot", tree_role(collective)};
  if (collective->parent_path != nullptr) {
    return fail_extensionf(
        "%s: this member has a parent, so it is not the root of the reduce: call "
        "takyonReduceChild()",
        call.function);
  }
  return reduce_run(call, collective, buffer, nelements, bytes_per_elem, reduce_function,
                    static_cast<uint8_t*>(data), scatter_result, nullptr);
}

bool takyonReduceChild(TakyonCollectiveReduce* collective, int buffer, uint64_t nelements,
                       uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, bool scatter_result) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonReduceChild", collective)) return false;
  const CollectiveCall call{"takyonReduceChild", tree_role(collective)};
  if (collective->parent_path == nullptr) {
    return fail_extensionf(
        "%s: this member has no parent, so it is the root of the reduce: call "
        "takyonReduceRoot()",
        call.function);
  }
  if (!check_buffer(call, collective->parent_path, buffer, true, false)) return false;
  // The guide's contract: a child's contribution waits at offset 0 of its parent path's send buffer.
  return reduce_run(call, collective, buffer, nelements, bytes_per_elem, reduce_function,
                    send_buffer_addr(collective->parent_path, buffer), scatter_result, nullptr);
}

bool takyonAllreduce(TakyonCollectiveReduce* collective, int buffer, uint64_t nelements,
                     uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, void* data) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonAllreduce", collective)) return false;
  const CollectiveCall call{"takyonAllreduce", tree_role(collective)};
  uint64_t bytes = 0;
  if (!element_bytes(call, nelements, bytes_per_elem, bytes)) return false;
  if (data == nullptr && bytes > 0)
    return fail_extensionf("%s (%s): data is NULL", call.function, call.role.c_str());
  auto* mine = static_cast<uint8_t*>(data);
  TakyonPath* parent = collective->parent_path;
  if (parent == nullptr) {
    return reduce_run(call, collective, buffer, nelements, bytes_per_elem, reduce_function, mine, true,
                      nullptr);
  }
  if (!check_buffer(call, parent, buffer, true, true, bytes, bytes)) return false;
  uint8_t* accumulator = send_buffer_addr(parent, buffer);
  if (bytes > 0 && accumulator != mine) std::memcpy(accumulator, mine, bytes);
  const uint8_t* result = nullptr;
  if (!reduce_run(call, collective, buffer, nelements, bytes_per_elem, reduce_function, accumulator, true,
                  &result)) {
    return false;
  }
  if (bytes > 0 && result != mine) std::memcpy(mine, result, bytes);
  return true;
}

void takyonReduceFinalize(TakyonCollectiveReduce* collective) {
  takyon::detail::finalize_tree(collective);
}

}  // extern "C"
