/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the graph examples. Every Takyon call in the examples is checked: a
 * failure prints who failed and why, then ends the process with EXIT_FAILURE (the other processes
 * of the graph then fail on their paths or time out, and run_graph.sh stops them).
 */
#ifndef TAKYON_EXAMPLES_GRAPH_EXAMPLE_H_
#define TAKYON_EXAMPLES_GRAPH_EXAMPLE_H_

#include <stdbool.h>
#include <stdint.h>

#include "takyon/takyon_extensions.h"

/** Parses `<program> <process_id> <graph_file> [cycles]`; prints the usage and exits on an error. */
void graphParseCommandLine(int argc, char **argv, int default_cycles, int *process_id_ret,
                           const char **filename_ret, int *cycles_ret);

/** Prints "FAILED <group>[<instance>]: <message>" to stderr and exits with EXIT_FAILURE. */
void graphFail(TakyonGraph *graph, int group_id, const char *format, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/** graphFail() with takyonExtensionError(): for a collective or graph call that returned false/NULL. */
void graphFailExtension(TakyonGraph *graph, int group_id, const char *call) __attribute__((noreturn));

/** takyonSend() that treats a start timeout as a failure (the graph's SendStartTimeout bounds it). */
void graphSend(TakyonGraph *graph, int group_id, TakyonPath *path, int buffer, uint64_t bytes,
               uint64_t src_offset, uint64_t dest_offset);

/** takyonRecv() that treats a start timeout as a failure (the graph's RecvStartTimeout bounds it). */
void graphRecv(TakyonGraph *graph, int group_id, TakyonPath *path, int buffer, uint64_t *bytes_ret,
               uint64_t *offset_ret);

#endif /* TAKYON_EXAMPLES_GRAPH_EXAMPLE_H_ */
