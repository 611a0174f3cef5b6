/* SPDX-License-Identifier: MIT */
/* pmix_probe: proves that a launcher (srun --mpi=pmix, Open MPI's mpirun) gives its ranks a working
 * PMIx: PMIx_Init, the job size and local rank, then every rank Puts a value, Commits, Fences with
 * data collection and Gets every other rank's value back and checks it. Prints one line per rank;
 * exits 0 when all of that worked, 1 otherwise (with the failing call and PMIx's error string). */
/* pmix_common.h's inline helpers use strdup, setenv and strncasecmp, hidden by -std=c99. */
#define _GNU_SOURCE
#include <pmix.h>

#include <stdio.h>
#include <string.h>

#define PROBE_KEY "takyon.pmix_probe"

static pmix_proc_t me;

static int fail(const char *what, pmix_status_t rc) {
  fprintf(stderr, "pmix_probe: %s:%u: %s failed: %s (%d)\n", me.nspace, me.rank, what, PMIx_Error_string(rc),
          (int)rc);
  return 1;
}

/* The value rank r puts: its rank, namespace and a pattern, so a Get of the wrong rank is caught. */
static void expected_value(char *buf, size_t len, const char *nspace, pmix_rank_t r) {
  snprintf(buf, len, "rank %u of %s says %u", r, nspace, r * 2654435761u);
}

static int probe(void) {
  pmix_proc_t wildcard;
  pmix_value_t *val = NULL;
  pmix_status_t rc;
  uint32_t size;
  uint16_t local_rank;
  char mine[512];

  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, NULL, 0, &val);
  if (rc != PMIX_SUCCESS) return fail("PMIx_Get(PMIX_JOB_SIZE)", rc);
  if (val->type != PMIX_UINT32) {
    fprintf(stderr, "pmix_probe: PMIX_JOB_SIZE has type %d, not PMIX_UINT32\n", (int)val->type);
    return 1;
  }
  size = val->data.uint32;
  PMIX_VALUE_RELEASE(val);
  if (size == 0 || me.rank >= size) {
    fprintf(stderr, "pmix_probe: rank %u does not fit job size %u\n", me.rank, size);
    return 1;
  }

  rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val);
  if (rc != PMIX_SUCCESS) return fail("PMIx_Get(PMIX_LOCAL_RANK)", rc);
  if (val->type != PMIX_UINT16) {
    fprintf(stderr, "pmix_probe: PMIX_LOCAL_RANK has type %d, not PMIX_UINT16\n", (int)val->type);
    return 1;
  }
  local_rank = val->data.uint16;
  PMIX_VALUE_RELEASE(val);
  if (local_rank >= size) {
    fprintf(stderr, "pmix_probe: local rank %u does not fit job size %u\n", local_rank, size);
    return 1;
  }

  expected_value(mine, sizeof mine, me.nspace, me.rank);
  {
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_STRING;
    value.data.string = mine;
    rc = PMIx_Put(PMIX_GLOBAL, PROBE_KEY, &value);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Put", rc);
  }
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) return fail("PMIx_Commit", rc);
  {
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wildcard, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Fence(collect)", rc);
  }

  for (pmix_rank_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    char want[512];
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    rc = PMIx_Get(&peer, PROBE_KEY, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
      fprintf(stderr, "pmix_probe: rank %u: PMIx_Get of rank %u's key: %s\n", me.rank, r,
              PMIx_Error_string(rc));
      return 1;
    }
    expected_value(want, sizeof want, me.nspace, r);
    if (val->type != PMIX_STRING || val->data.string == NULL || strcmp(val->data.string, want) != 0) {
      fprintf(stderr, "pmix_probe: rank %u: rank %u's value is '%s', want '%s'\n", me.rank, r,
              val->type == PMIX_STRING && val->data.string ? val->data.string : "(not a string)", want);
      PMIX_VALUE_RELEASE(val);
      return 1;
    }
    PMIX_VALUE_RELEASE(val);
  }

  printf("pmix_probe: rank %u of %u (local rank %u, nspace %s): put/commit/fence/get of %u ranks ok\n",
         me.rank, size, local_rank, me.nspace, size);
  fflush(stdout);
  return 0;
}

int main(void) {
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_probe: PMIx_Init failed: %s (%d); not started by a PMIx launcher?\n",
            PMIx_Error_string(rc), (int)rc);
    return 1;
  }
  int result = probe();
  rc = PMIx_Finalize(NULL, 0);
  if (rc != PMIX_SUCCESS) result = fail("PMIx_Finalize", rc);
  return result;
}
