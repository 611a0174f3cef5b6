// SPDX-License-Identifier: MIT
// Scatter: one source sends each destination its own part, sizes and offsets chosen per path.
#include <cstdlib>
#include <string>

#include "extensions/collective/collective_common.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

using takyon::detail::CollectiveCall;
using takyon::detail::fail_extensionf;

extern "C" {

TakyonScatterSrc* takyonScatterSrcInit(int npaths, TakyonPath** path_list) {
  return takyon::detail::init_path_list_handle<TakyonScatterSrc>(
      "takyonScatterSrcInit", "a scatter needs at least one destination", npaths, path_list);
}

TakyonScatterDest* takyonScatterDestInit(int npaths, int path_index, TakyonPath* path) {
  const char* function = "takyonScatterDestInit";
  if (npaths <= 0) {
    fail_extensionf("%s: npaths is %d; a scatter needs at least one destination", function, npaths);
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
  auto* c =
      static_cast<TakyonScatterDest*>(takyon::detail::alloc_handle(function, sizeof(TakyonScatterDest)));
  if (c == nullptr) return nullptr;
  c->npaths = npaths;
  c->path_index = path_index;
  c->path = path;
  return c;
}

bool takyonScatterSend(TakyonScatterSrc* collective, int buffer, uint64_t* nbytes_list,
                       uint64_t* soffset_list, uint64_t* doffset_list) {
  using namespace takyon::detail;
  if (collective == nullptr) return fail_extensionf("takyonScatterSend: the collective is NULL");
  if (nbytes_list == nullptr || soffset_list == nullptr || doffset_list == nullptr) {
    return fail_extensionf(
        "takyonScatterSend: nbytes_list, soffset_list and doffset_list must all be given "
        "(%d entries each)",
        collective->npaths);
  }
  // Start every send, then complete them: non-blocking paths overlap their transfers.
  for (int i = 0; i < collective->npaths; i++) {
    const CollectiveCall call{"takyonScatterSend", "source, destination " + std::to_string(i)};
    TakyonPath* path = collective->path_list[i];
    if (!check_buffer(call, path, buffer, true, false)) return false;
    if (!start_send(call, path, buffer, nbytes_list[i], soffset_list[i], doffset_list[i])) return false;
  }
  for (int i = 0; i < collective->npaths; i++) {
    const CollectiveCall call{"takyonScatterSend", "source, destination " + std::to_string(i)};
    if (!finish_send(call, collective->path_list[i], buffer)) return false;
  }
  return true;
}

bool takyonScatterRecv(TakyonScatterDest* collective, int buffer, uint64_t* nbytes_ret,
                       uint64_t* offset_ret) {
  using namespace takyon::detail;
  if (collective == nullptr) return fail_extensionf("takyonScatterRecv: the collective is NULL");
  const CollectiveCall call{"takyonScatterRecv", "destination " + std::to_string(collective->path_index)};
  if (!check_buffer(call, collective->path, buffer, false, true)) return false;
  return recv_message(call, collective->path, buffer, nbytes_ret, offset_ret);
}

void takyonScatterSrcFinalize(TakyonScatterSrc* collective) {
  if (collective == nullptr) return;
  std::free(collective->path_list);
  std::free(collective);
}

void takyonScatterDestFinalize(TakyonScatterDest* collective) {
  std::free(collective);
}

}  // extern "C"
