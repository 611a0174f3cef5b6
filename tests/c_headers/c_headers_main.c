/* SPDX-License-Identifier: MIT */
/* Runs the C header checks; the real test is that this program compiled and linked as C99. */
#include <takyon/takyon.h>
#include <takyon/takyon.h>            /* NOLINT(readability-duplicate-include): on purpose */
#include <takyon/takyon_extensions.h> /* the headers together, included twice: guards work */
#include <takyon/takyon_group.h>
#include <takyon/takyon_providers.h>

#include <stdio.h>

#include "c_headers_check.h"

int main(void) {
  int takyon_h = checkTakyonHeader();
  int extensions_h = checkExtensionsHeader();
  int providers_h = checkProvidersHeader();
  int group_h = checkGroupHeader();
  fprintf(stderr, "(the next lines, if any, are the expected complaints about NULL paths)\n");
  int null_path = checkNullPathCalls();
  printf(
      "takyon.h: %s, takyon_extensions.h: %s, takyon_providers.h: %s, takyon_group.h: %s, NULL path calls "
      "rejected: %s\n",
      takyon_h == 0 ? "ok" : "FAILED", extensions_h == 0 ? "ok" : "FAILED",
      providers_h == 0 ? "ok" : "FAILED", group_h == 0 ? "ok" : "FAILED", null_path == 0 ? "ok" : "FAILED");
  return (takyon_h == 0 && extensions_h == 0 && providers_h == 0 && group_h == 0 && null_path == 0) ? 0 : 1;
}
