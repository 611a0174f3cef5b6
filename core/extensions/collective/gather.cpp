// SPDX-License-Identifier: MIT
// Gather: many sources each send their part to one destination, sizes and offsets per source.
#include <cstdlib>
#include <string>

#include "extensions/collective/collective_common.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

using takyon::detail::CollectiveCall;
using takyon::detail::fail_extensionf;

extern "C" {

TakyonGatherSrc* takyonGatherSrcInit(int npaths, int path_index, TakyonPath* path) {
  const char* function = "takyonGatherSrcInit";
  if (npaths <= 0) {
    fail_extensionf("%s: npaths is %d; a gather needs at least one source", function, npaths);
    return nullptr;
  }
  if (path_index < 0 || path_index >= npaths) {
    fail_extensionf("%s: path_index %d is outside 0..%d", function, path_index, npaths - 1);
    return nullptr;
  }
  if (path == nullptr) {
    fail_extensionf("%s: path is NULL", function);
    return nullptr;
  }
  auto* c = static_cast<TakyonGatherSrc*>(takyon::detail::alloc_handle(function, sizeof(TakyonGatherSrc)));
  if (c == nullptr) return nullptr;
  c->path_list = takyon::detail::copy_path_list(1, &path);  // the guide's example reads path_list[0]
  if (c->path_list == nullptr) {
    std::free(c);
    fail_extensionf("%s: out of memory", function);
    return nullptr;
  }
  c->npaths = npaths;
  c->path_index = path_index;
  c->path = path;
  return c;
}

TakyonGatherDest* takyonGatherDestInit(int npaths, TakyonPath** path_list) {
  return takyon::detail::init_path_list_handle<TakyonGatherDest>(
      "takyonGatherDestInit", "a gather needs at least one source", npaths, path_list);
}

bool takyonGatherSend(TakyonGatherSrc* collective, int buffer, uint64_t nbytes, uint64_t soffset,
                      uint64_t doffset) {
  using namespace takyon::detail;
  if (collective == nullptr) return fail_extensionf("takyonGatherSend: the collective is NULL");
  const CollectiveCall call{"takyonGatherSend", "source " + std::to_string(collective->path_index)};
  if (!check_buffer(call, collective->path, buffer, true, false)) return false;
  return send_whole(call, collective->path, buffer, nbytes, soffset, doffset);
}

bool takyonGatherRecv(TakyonGatherDest* collective, int buffer, uint64_t* nbytes_list_ret,
                      uint64_t* offset_list_ret) {
  using namespace takyon::detail;
  if (collective == nullptr) return fail_extensionf("takyonGatherRecv: the collective is NULL");
  for (int i = 0; i < collective->npaths; i++) {
    const CollectiveCall call{"takyonGatherRecv", "destination, source " + std::to_string(i)};
    TakyonPath* path = collective->path_list[i];
    if (!check_buffer(call, path, buffer, false, true)) return false;
    if (!recv_message(call, path, buffer, nbytes_list_ret != nullptr ? &nbytes_list_ret[i] : nullptr,
                      offset_list_ret != nullptr ? &offset_list_ret[i] : nullptr)) {
      return false;
    }
  }
  return true;
}

void takyonGatherSrcFinalize(TakyonGatherSrc* collective) {
  if (collective == nullptr) return;
  std::free(collective->path_list);
  std::free(collective);
}

void takyonGatherDestFinalize(TakyonGatherDest* collective) {
  if (collective == nullptr) return;
  std::free(collective->path_list);
  std::free(collective);
}

}  // extern "C"
