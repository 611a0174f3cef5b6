// SPDX-License-Identifier: MIT
// Tree barrier of any fan-out: arrivals travel up to the root, then the root releases the tree.
#include "extensions/collective/collective_common.hpp"
#include "extensions/collective/tree.hpp"
#include "takyon/takyon_extensions.h"

using takyon::detail::CollectiveCall;

extern "C" {

TakyonCollectiveBarrier* takyonBarrierInit(int nchildren, TakyonPath* parent_path,
                                           TakyonPath** child_path_list) {
  return takyon::detail::init_tree<TakyonCollectiveBarrier>("takyonBarrierInit", nchildren, parent_path,
                                                            child_path_list);
}

bool takyonBarrierRun(TakyonCollectiveBarrier* collective, int buffer) {
  using namespace takyon::detail;
  if (!check_tree_handle("takyonBarrierRun", collective)) return false;
  const CollectiveCall call{"takyonBarrierRun", tree_role(collective)};
  TakyonPath* parent = collective->parent_path;
  if (parent != nullptr && !check_buffer(call, parent, buffer, true, true)) return false;
  for (int i = 0; i < collective->nchildren; i++) {
    if (!check_buffer(call, collective->child_path_list[i], buffer, true, true)) return false;
  }
  // Up: wait until the whole subtree has arrived, then report to the parent. The guide's original
  // signalled down first and answered up, which lets a leaf leave before a leaf of another subtree
  // has entered; arrivals must reach the root before anyone is released.
  for (int i = 0; i < collective->nchildren; i++) {
    if (!recv_message(call, collective->child_path_list[i], buffer, nullptr, nullptr)) return false;
  }
  if (parent != nullptr) {
    if (!send_whole(call, parent, buffer, 0, 0, 0)) return false;
    if (!recv_message(call, parent, buffer, nullptr, nullptr)) return false;  // the release
  }
  // Down: everyone has entered; release the subtree.
  for (int i = 0; i < collective->nchildren; i++) {
    if (!start_send(call, collective->child_path_list[i], buffer, 0, 0, 0)) return false;
  }
  for (int i = 0; i < collective->nchildren; i++) {
    if (!finish_send(call, collective->child_path_list[i], buffer)) return false;
  }
  return true;
}

void takyonBarrierFinalize(TakyonCollectiveBarrier* collective) {
  takyon::detail::finalize_tree(collective);
}

}  // extern "C"
