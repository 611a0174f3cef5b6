/* SPDX-License-Identifier: MIT */
/* Compiles takyon_group.h alone as strict C99 and checks what a group of one process gives: its
 * defaults, an empty creation, and refusals that name the problem (a path to itself, a NULL group). */
#include <takyon/takyon_group.h> /* first and alone: the header must be self-contained */

#include <stdlib.h>
#include <string.h>

#include "c_headers_check.h"

static int copy_allgather(void *context, const void *mine, void *all, size_t bytes) {
  (void)context;
  memcpy(all, mine, bytes); /* a group of one: all is just mine */
  return 0;
}

static int refused_with(bool ok, char *why, const char *part) {
  int bad = ok || why == NULL || strstr(why, part) == NULL;
  free(why);
  return bad;
}

int checkGroupHeader(void) {
  int failures = 0;
  TakyonGroupOptions o = takyonGroupDefaultOptions();
  failures += o.same_host_provider == NULL || strcmp(o.same_host_provider, "InterProcessMemcpy") != 0;
  failures += o.path_create_timeout <= 0.0 || o.send_completion_method != TAKYON_BLOCKING;
  TakyonGroupExchange one = {0, 1, copy_allgather, NULL};
  char *why = NULL;
  failures += !takyonGroupCreatePaths(&one, 0, NULL, NULL, NULL, &why) || why != NULL;
  uint64_t bytes = 64;
  TakyonPeerBuffers self = {0, 1, &bytes, NULL, 1, &bytes, NULL};
  TakyonPath *path = NULL;
  bool ok = takyonGroupCreatePaths(&one, 1, &self, NULL, &path, &why);
  failures += refused_with(ok, why, "npeers");
  failures += path != NULL;
  ok = takyonGroupCreatePaths(NULL, 0, NULL, NULL, NULL, &why);
  failures += refused_with(ok, why, "group is NULL");
  failures += !takyonGroupDestroyPaths(0, NULL, &why) || why != NULL;
  return failures;
}
