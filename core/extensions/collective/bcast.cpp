// SPDX-License-Identifier: MIT
// Tree broadcast (beyond the guide): the root's bytes travel down, each member forwarding them.
#include <cinttypes>
#include <cstring>

#include "extensions/collective/collective_common.hpp"
#include "extensions/collective/tree.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::detail {
namespace {

// Starts sending nbytes from `source` (NULL: already in each child's send buffer) to every child.
bool start_down(const CollectiveCall& call, TakyonCollectiveBcast* c, int buffer, uint64_t nbytes,
                const uint8_t* source) {
  for (int i = 0; i < c->nchildren; i++) {
    TakyonPath* child = c->child_path_list[i];
    if (!check_buffer(call, child, buffer, true, false, nbytes, 0)) return false;
    uint8_t* out = send_buffer_addr(child, buffer);
    if (source != nullptr && nbytes > 0 && out != source) std::memcpy(out, source, nbytes);
    if (!start_send(call, child, buffer, nbytes, 0, 0)) return false;
  }
  return true;
}

// Finishes start_down()'s sends, then waits for each child's zero-byte "forwarded" notice:
// takyonRecv hands a buffer back to its sender at once, so without it a parent could send the next
// broadcast into this buffer while the child still copies this one to its own children.
bool finish_down(const CollectiveCall& call, TakyonCollectiveBcast* c, int buffer) {
  for (int i = 0; i < c->nchildren; i++) {
    if (!finish_send(call, c->child_path_list[i], buffer)) return false;
  }
  for (int i = 0; i < c->nchildren; i++) {
    TakyonPath* child = c->child_path_list[i];
    if (!check_buffer(call, child, buffer, false, true)) return false;
    uint64_t notice = 0;
    if (!recv_message(call, child, buffer, &notice, nullptr)) return false;
    if (notice != 0) {
      return fail_extensionf("%s (%s): child %d sent %" PRIu64
                             " bytes where a zero-byte notice was expected on %s",
                             call.function, call.role.c_str(), i, notice, describe_path(child).c_str());
    }
  }
  return true;
}

}  // namespace
}  // namespace takyon::detail

extern "C" {

TakyonCollectiveBcast* takyonBcastInit(int nchildren, TakyonPath* parent_path, TakyonPath** child_path_list) {
  return takyon::detail::init_tree<TakyonCollectiveBcast>("takyonBcastInit", nchildren, parent_path,
                                                          child_path_list);
}

bool takyonBcastRoot(TakyonCollectiveBcast* collective, int buffer, uint64_t nbytes, const void* data) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonBcastRoot", collective)) return false;
  const CollectiveCall call{"takyonBcastRoot", tree_role(collective)};
  if (collective->parent_path != nullptr) {
    return fail_extensionf(
        "%s: this member has a parent, so it is not the root of the broadcast: call "
        "takyonBcastChild()",
        call.function);
  }
  return start_down(call, collective, buffer, nbytes, static_cast<const uint8_t*>(data)) &&
         finish_down(call, collective, buffer);
}

bool takyonBcastChild(TakyonCollectiveBcast* collective, int buffer, uint64_t* nbytes_ret) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonBcastChild", collective)) return false;
  const CollectiveCall call{"takyonBcastChild", tree_role(collective)};
  TakyonPath* parent = collective->parent_path;
  if (parent == nullptr) {
    return fail_extensionf(
        "%s: this member has no parent, so it is the root of the broadcast: call "
        "takyonBcastRoot()",
        call.function);
  }
  if (!check_buffer(call, parent, buffer, true, true)) return false;
  uint64_t nbytes = 0;
  uint64_t offset = 0;
  if (!recv_message(call, parent, buffer, &nbytes, &offset)) return false;
  if (nbytes_ret != nullptr) *nbytes_ret = nbytes;
  const uint8_t* arrived = recv_buffer_addr(parent, buffer) + offset;
  if (offset != 0 && nbytes > 0) {
    // Keep the documented place of the data: offset 0 of the parent path's receive buffer.
    std::memmove(recv_buffer_addr(parent, buffer), arrived, nbytes);
    arrived = recv_buffer_addr(parent, buffer);
  }
  // Forward first, then tell the parent its buffer is free: the notice costs the parent one hop
  // but never delays the data on its way down.
  return start_down(call, collective, buffer, nbytes, arrived) && send_whole(call, parent, buffer, 0, 0, 0) &&
         finish_down(call, collective, buffer);
}

void takyonBcastFinalize(TakyonCollectiveBcast* collective) {
  takyon::detail::finalize_tree(collective);
}

}  // extern "C"
