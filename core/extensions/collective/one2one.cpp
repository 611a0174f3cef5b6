// SPDX-License-Identifier: MIT
// One2One: a named arrangement of independent paths (pipeline, mesh, torus); the application
// sends and receives on them itself.
#include <cstdlib>

#include "extensions/collective/collective_common.hpp"
#include "extensions/extension_error.hpp"
#include "takyon/takyon_extensions.h"

extern "C" {

TakyonCollectiveOne2One* takyonOne2OneInit(int npaths, int num_src_paths, int num_dest_paths,
                                           TakyonPath** src_path_list, TakyonPath** dest_path_list) {
  using namespace takyon::detail;
  const char* function = "takyonOne2OneInit";
  if (npaths <= 0) {
    fail_extensionf("%s: npaths is %d; the collective needs at least one path", function, npaths);
    return nullptr;
  }
  if (!check_path_list(function, "src_path_list", num_src_paths, src_path_list) ||
      !check_path_list(function, "dest_path_list", num_dest_paths, dest_path_list)) {
    return nullptr;
  }
  if (num_src_paths + num_dest_paths > npaths) {
    fail_extensionf(
        "%s: this member uses %d source and %d destination paths, more than the %d of the collective",
        function, num_src_paths, num_dest_paths, npaths);
    return nullptr;
  }
  auto* c = static_cast<TakyonCollectiveOne2One*>(alloc_handle(function, sizeof(TakyonCollectiveOne2One)));
  if (c == nullptr) return nullptr;
  c->src_path_list = copy_path_list(num_src_paths, src_path_list);
  c->dest_path_list = copy_path_list(num_dest_paths, dest_path_list);
  if (c->src_path_list == nullptr || c->dest_path_list == nullptr) {
    takyonOne2OneFinalize(c);
    fail_extensionf("%s: out of memory", function);
    return nullptr;
  }
  c->npaths = npaths;
  c->num_src_paths = num_src_paths;
  c->num_dest_paths = num_dest_paths;
  return c;
}

void takyonOne2OneFinalize(TakyonCollectiveOne2One* collective) {
  if (collective == nullptr) return;
  std::free(collective->src_path_list);
  std::free(collective->dest_path_list);
  std::free(collective);
}

}  // extern "C"
