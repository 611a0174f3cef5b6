// SPDX-License-Identifier: MIT
// All-to-all (beyond the guide): every member sends a block to every other member over the path
// they share, then receives one from each.
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <string>

#include "extensions/collective/collective_common.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

using takyon::detail::CollectiveCall;
using takyon::detail::fail_extensionf;

extern "C" {

TakyonCollectiveAlltoall* takyonAlltoallInit(int nmembers, int my_index, TakyonPath** path_list) {
  using namespace takyon::detail;
  const char* function = "takyonAlltoallInit";
  if (nmembers < 2) {
    fail_extensionf("%s: nmembers is %d; an all-to-all needs at least 2 members", function, nmembers);
    return nullptr;
  }
  if (my_index < 0 || my_index >= nmembers) {
    fail_extensionf("%s: my_index %d is outside 0..%d", function, my_index, nmembers - 1);
    return nullptr;
  }
  if (path_list == nullptr) {
    fail_extensionf("%s: path_list is NULL but should hold %d entries", function, nmembers);
    return nullptr;
  }
  for (int j = 0; j < nmembers; j++) {
    if (j == my_index && path_list[j] != nullptr) {
      fail_extensionf("%s: path_list[%d] is this member's own entry (my_index) and must be NULL", function,
                      j);
      return nullptr;
    }
    if (j != my_index && path_list[j] == nullptr) {
      fail_extensionf("%s: path_list[%d] is NULL: every other member needs a path", function, j);
      return nullptr;
    }
    for (int k = 0; k < j; k++) {
      if (path_list[j] != nullptr && path_list[j] == path_list[k]) {
        fail_extensionf("%s: path_list[%d] and path_list[%d] are the same path (%s)", function, k, j,
                        describe_path(path_list[j]).c_str());
        return nullptr;
      }
    }
  }
  auto* c = static_cast<TakyonCollectiveAlltoall*>(alloc_handle(function, sizeof(TakyonCollectiveAlltoall)));
  if (c == nullptr) return nullptr;
  c->path_list = copy_path_list(nmembers, path_list);
  if (c->path_list == nullptr) {
    std::free(c);
    fail_extensionf("%s: out of memory", function);
    return nullptr;
  }
  c->nmembers = nmembers;
  c->my_index = my_index;
  return c;
}

bool takyonAlltoall(TakyonCollectiveAlltoall* collective, int buffer, uint64_t bytes_per_member,
                    const void* send_data, void* recv_data) {
  using namespace takyon::detail;
  if (collective == nullptr) return fail_extensionf("takyonAlltoall: the collective is NULL");
  const int me = collective->my_index;
  const CollectiveCall call{"takyonAlltoall",
                            "member " + std::to_string(me) + " of " + std::to_string(collective->nmembers)};
  if (bytes_per_member > 0 && (send_data == nullptr || recv_data == nullptr)) {
    return fail_extensionf("%s (%s): send_data and recv_data must not be NULL", call.function,
                           call.role.c_str());
  }
  const auto* in = static_cast<const uint8_t*>(send_data);
  auto* out = static_cast<uint8_t*>(recv_data);
  for (int j = 0; j < collective->nmembers; j++) {
    if (j == me) continue;
    if (!check_buffer(call, collective->path_list[j], buffer, true, true, bytes_per_member,
                      bytes_per_member)) {
      return false;
    }
  }
  // Sends first, then receives: a send waits only for the peer to have consumed this buffer's
  // previous message, which every member does in its own receive phase, so no cycle can form.
  for (int j = 0; j < collective->nmembers; j++) {
    if (j == me) continue;
    TakyonPath* path = collective->path_list[j];
    if (bytes_per_member > 0) {
      std::memcpy(send_buffer_addr(path, buffer), in + static_cast<uint64_t>(j) * bytes_per_member,
                  bytes_per_member);
    }
    if (!start_send(call, path, buffer, bytes_per_member, 0, 0)) return false;
  }
  for (int j = 0; j < collective->nmembers; j++) {
    if (j != me && !finish_send(call, collective->path_list[j], buffer)) return false;
  }
  if (bytes_per_member > 0) {
    std::memmove(out + static_cast<uint64_t>(me) * bytes_per_member,
                 in + static_cast<uint64_t>(me) * bytes_per_member, bytes_per_member);
  }
  for (int j = 0; j < collective->nmembers; j++) {
    if (j == me) continue;
    TakyonPath* path = collective->path_list[j];
    uint64_t arrived = 0;
    uint64_t offset = 0;
    if (!recv_message(call, path, buffer, &arrived, &offset)) return false;
    if (arrived != bytes_per_member) {
      return fail_extensionf(
          "%s (%s): member %d sent %" PRIu64 " bytes on %s; every block is %" PRIu64 " bytes", call.function,
          call.role.c_str(), j, arrived, describe_path(path).c_str(), bytes_per_member);
    }
    if (bytes_per_member > 0) {
      std::memcpy(out + static_cast<uint64_t>(j) * bytes_per_member, recv_buffer_addr(path, buffer) + offset,
                  bytes_per_member);
    }
  }
  // Zero-byte "copied" notices both ways on every path: takyonRecv hands a buffer back to its
  // sender at once, so without them a member already in its next all-to-all on this buffer could
  // overwrite a block this member is still copying out.
  for (int j = 0; j < collective->nmembers; j++) {
    if (j != me && !send_whole(call, collective->path_list[j], buffer, 0, 0, 0)) return false;
  }
  for (int j = 0; j < collective->nmembers; j++) {
    if (j == me) continue;
    uint64_t notice = 0;
    if (!recv_message(call, collective->path_list[j], buffer, &notice, nullptr)) return false;
    if (notice != 0) {
      return fail_extensionf("%s (%s): member %d sent %" PRIu64
                             " bytes where a zero-byte notice was expected",
                             call.function, call.role.c_str(), j, notice);
    }
  }
  return true;
}

void takyonAlltoallFinalize(TakyonCollectiveAlltoall* collective) {
  if (collective == nullptr) return;
  std::free(collective->path_list);
  std::free(collective);
}

}  // extern "C"
