/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the synchronization examples: options, launching A and B, data checks. */
#ifndef TAKYON_EXAMPLE_COMMON_H_
#define TAKYON_EXAMPLE_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <takyon/takyon.h>

/* Seconds every example allows for each Takyon call before it gives up (create, send, recv...). */
#define EXAMPLE_TIMEOUT 20.0

/* Where the two endpoints of the example run. */
typedef enum {
  EXAMPLE_THREADS = 0, /* A and B are two threads of this process (any provider). */
  EXAMPLE_FORK,        /* A is this process, B a forked child (InterProcess* providers). */
  EXAMPLE_ONLY_A,      /* Only endpoint A; start endpoint B elsewhere with -B. */
  EXAMPLE_ONLY_B       /* Only endpoint B. */
} ExampleMode;

typedef struct {
  char interconnect[TAKYON_MAX_INTERCONNECT_CHARS]; /* e.g. "InterThreadMemcpy -ID=1" */
  ExampleMode mode;
  bool is_polling; /* -event switches to event driven (sleep in the kernel while waiting) */
  int iterations;  /* -n */
} ExampleOptions;

/* The part of an example that runs on one endpoint. Returns 0 when everything was verified. */
typedef int (*ExampleEndpointFunction)(const ExampleOptions *options, bool is_endpointA);

/*
 * Parses [-fork | -A | -B] [-event] [-n <iterations>] ["<provider> -ID=<n>"] into *options.
 * Prints the usage and returns false on bad arguments.
 */
bool exampleParseArgs(int argc, char **argv, const char *default_interconnect, int default_iterations,
                      ExampleOptions *options);

/* true if the provider shares one buffer between sender and receiver (the "Pointer" providers). */
bool exampleIsSharedMemoryProvider(const char *interconnect);

/* Runs endpoint A and/or B as options->mode says; returns the process exit status (0 = success). */
int exampleRun(const ExampleOptions *options, ExampleEndpointFunction endpoint);

/* Prints why a Takyon call did not succeed: that it timed out, or its error stack (unless the
   path's verbosity has TAKYON_VERBOSITY_ERRORS: Takyon printed it to stderr already). */
void exampleReport(TakyonPath *path, const char *call, bool timed_out);

/* Creates the path; on failure reports like exampleReport, frees the message, returns NULL. */
TakyonPath *exampleCreate(TakyonPathAttributes *attrs);

/* Destroys the path; prints and frees a destroy error. Returns true if the destroy was clean. */
bool exampleDestroy(TakyonPath **path);

/* prepareData(): fills `bytes` bytes with a pattern that depends on the message number. */
void exampleFill(void *data, uint64_t bytes, uint32_t message);
/* processData(): true if `bytes` bytes hold exactly the pattern of that message number. */
bool exampleVerify(const void *data, uint64_t bytes, uint32_t message, const char *who);

/* Size of message number `message`: varies between 1 and max_bytes so sizes are checked too. */
uint64_t exampleMessageBytes(uint32_t message, uint64_t max_bytes);

#endif /* TAKYON_EXAMPLE_COMMON_H_ */
