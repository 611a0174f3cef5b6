/* SPDX-License-Identifier: MIT */
#include "graph_example.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parseInt(const char *text, int min) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > 1000000000L) return -1;
  return (int)value;
}

// "-" as the process ID: the rank a launcher gave this process (takyon-run, mpirun, srun).
static int processIdFromLauncher(void) {
  static const char *const kRankVariables[] = {"TAKYON_RUN_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                               "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof(kRankVariables) / sizeof(kRankVariables[0]); i++) {
    const char *value = getenv(kRankVariables[i]);
    if (value != NULL) return parseInt(value, 0);
  }
  return -1;
}

void graphParseCommandLine(int argc, char **argv, int default_cycles, int *process_id_ret,
                           const char **filename_ret, int *cycles_ret) {
  int process_id = -1;
  if (argc >= 3) process_id = strcmp(argv[1], "-") == 0 ? processIdFromLauncher() : parseInt(argv[1], 0);
  int cycles = argc == 4 ? parseInt(argv[3], 1) : default_cycles;
  if (argc < 3 || argc > 4 || process_id < 0 || cycles < 1) {
    fprintf(stderr,
            "usage: %s <process_id> <graph_file> [cycles (default %d)]\n"
            "  process_id '-': this process's rank from its launcher (takyon-run, mpirun, srun)\n",
            argv[0], default_cycles);
    if (argc >= 3 && strcmp(argv[1], "-") == 0 && process_id < 0) {
      fprintf(stderr,
              "  (no TAKYON_RUN_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK or SLURM_PROCID in the environment)\n");
    }
    exit(EXIT_FAILURE);
  }
  *process_id_ret = process_id;
  *filename_ret = argv[2];
  *cycles_ret = cycles;
}

__attribute__((noreturn)) static void failWithMessage(TakyonGraph *graph, int group_id, const char *message) {
  TakyonGroup *group = graph != NULL ? takyonGetGroup(graph, group_id) : NULL;
  if (group != NULL) {
    fprintf(stderr, "FAILED %s[%d]: %s\n", group->name, takyonGetGroupInstance(graph, group_id), message);
  } else {
    fprintf(stderr, "FAILED (group ID %d): %s\n", group_id, message);
  }
  fflush(stderr);
  exit(EXIT_FAILURE);
}

void graphFail(TakyonGraph *graph, int group_id, const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  failWithMessage(graph, group_id, message);
}

void graphFailExtension(TakyonGraph *graph, int group_id, const char *call) {
  graphFail(graph, group_id, "%s: %s", call, takyonExtensionError());
}

void graphSend(TakyonGraph *graph, int group_id, TakyonPath *path, int buffer, uint64_t bytes,
               uint64_t src_offset, uint64_t dest_offset) {
  bool timed_out = false;
  if (!takyonSend(path, buffer, bytes, src_offset, dest_offset, &timed_out)) {
    graphFail(graph, group_id, "takyonSend(%s, buffer %d): %s", path->attrs.interconnect, buffer,
              path->attrs.error_message != NULL ? path->attrs.error_message : "(no message)");
  }
  if (timed_out)
    graphFail(graph, group_id, "takyonSend(%s, buffer %d) timed out", path->attrs.interconnect, buffer);
}

void graphRecv(TakyonGraph *graph, int group_id, TakyonPath *path, int buffer, uint64_t *bytes_ret,
               uint64_t *offset_ret) {
  bool timed_out = false;
  if (!takyonRecv(path, buffer, bytes_ret, offset_ret, &timed_out)) {
    graphFail(graph, group_id, "takyonRecv(%s, buffer %d): %s", path->attrs.interconnect, buffer,
              path->attrs.error_message != NULL ? path->attrs.error_message : "(no message)");
  }
  if (timed_out)
    graphFail(graph, group_id, "takyonRecv(%s, buffer %d) timed out", path->attrs.interconnect, buffer);
}
