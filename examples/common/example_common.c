/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the synchronization examples: options, launching A and B, data checks. */
#define _POSIX_C_SOURCE 200809L

#include "example_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void printUsage(const char *program, const char *default_interconnect, int default_iterations) {
  fprintf(stderr,
          "usage: %s [-fork | -A | -B] [-event] [-n <iterations>] [\"<provider> -ID=<n>\"]\n"
          "  (default)  endpoints A and B run as two threads of this process\n"
          "  -fork      endpoint A runs in this process, B in a forked child (InterProcess*)\n"
          "  -A, -B     run one endpoint only; start the other one in a second process\n"
          "  -event     event driven waiting instead of polling\n"
          "  -n         iterations (default %d)\n"
          "  provider   default \"%s\"\n",
          program, default_iterations, default_interconnect);
}

bool exampleParseArgs(int argc, char **argv, const char *default_interconnect, int default_iterations,
                      ExampleOptions *options) {
  memset(options, 0, sizeof(*options));
  options->mode = EXAMPLE_THREADS;
  options->is_polling = true;
  options->iterations = default_iterations;
  const char *interconnect = default_interconnect;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-fork") == 0) {
      options->mode = EXAMPLE_FORK;
    } else if (strcmp(argv[i], "-A") == 0) {
      options->mode = EXAMPLE_ONLY_A;
    } else if (strcmp(argv[i], "-B") == 0) {
      options->mode = EXAMPLE_ONLY_B;
    } else if (strcmp(argv[i], "-event") == 0) {
      options->is_polling = false;
    } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      char *end = NULL;
      long n = strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || n < 1 || n > 1000000) {
        fprintf(stderr, "%s: -n needs an iteration count between 1 and 1000000, not '%s'\n", argv[0],
                argv[i]);
        return false;
      }
      options->iterations = (int)n;
    } else if (argv[i][0] != '-') {
      interconnect = argv[i];
    } else {
      printUsage(argv[0], default_interconnect, default_iterations);
      return false;
    }
  }
  if (strlen(interconnect) >= sizeof(options->interconnect)) {
    fprintf(stderr, "%s: the provider string is longer than %d characters\n", argv[0],
            TAKYON_MAX_INTERCONNECT_CHARS - 1);
    return false;
  }
  memcpy(options->interconnect, interconnect, strlen(interconnect) + 1);
  if (options->mode != EXAMPLE_THREADS && strncmp(interconnect, "InterThread", 11) == 0) {
    fprintf(stderr, "%s: '%s' joins threads of one process: run it without -fork, -A or -B\n", argv[0],
            interconnect);
    return false;
  }
  return true;
}

bool exampleIsSharedMemoryProvider(const char *interconnect) {
  /* The provider name is the first word; the Pointer providers share the buffer itself. */
  size_t name_length = strcspn(interconnect, " \t");
  return name_length >= 7 && strncmp(interconnect + name_length - 7, "Pointer", 7) == 0;
}

typedef struct {
  const ExampleOptions *options;
  ExampleEndpointFunction endpoint;
  bool is_endpointA;
  int result;
} EndpointThread;

static void *endpointThreadMain(void *arg) {
  EndpointThread *thread = (EndpointThread *)arg;
  thread->result = thread->endpoint(thread->options, thread->is_endpointA);
  return NULL;
}

static int runThreads(const ExampleOptions *options, ExampleEndpointFunction endpoint) {
  EndpointThread threads[2] = {{options, endpoint, true, 1}, {options, endpoint, false, 1}};
  pthread_t ids[2];
  for (int i = 0; i < 2; i++) {
    int rc = pthread_create(&ids[i], NULL, endpointThreadMain, &threads[i]);
    if (rc != 0) {
      fprintf(stderr, "pthread_create failed (error %d)\n", rc);
      if (i == 1) pthread_join(ids[0], NULL); /* endpoint A gives up after its create timeout */
      return 1;
    }
  }
  pthread_join(ids[0], NULL);
  pthread_join(ids[1], NULL);
  return (threads[0].result == 0 && threads[1].result == 0) ? 0 : 1;
}

static int runFork(const ExampleOptions *options, ExampleEndpointFunction endpoint) {
  fflush(stdout); /* so the child does not print what the parent buffered */
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    int result = endpoint(options, false);
    fflush(stdout);
    fflush(stderr);
    _exit(result == 0 ? 0 : 1);
  }
  int result_a = endpoint(options, true);
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("waitpid");
      return 1;
    }
  }
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "endpoint B (process %d) was killed by signal %d\n", (int)child, WTERMSIG(status));
    return 1;
  }
  int result_b = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return (result_a == 0 && result_b == 0) ? 0 : 1;
}

int exampleRun(const ExampleOptions *options, ExampleEndpointFunction endpoint) {
  switch (options->mode) {
    case EXAMPLE_THREADS:
      return runThreads(options, endpoint);
    case EXAMPLE_FORK:
      return runFork(options, endpoint);
    case EXAMPLE_ONLY_A:
      return endpoint(options, true) == 0 ? 0 : 1;
    case EXAMPLE_ONLY_B:
      return endpoint(options, false) == 0 ? 0 : 1;
  }
  return 1;
}

void exampleReport(TakyonPath *path, const char *call, bool timed_out) {
  const char *endpoint = path->attrs.is_endpointA ? "A" : "B";
  if (timed_out) {
    fprintf(stderr, "endpoint %s: %s timed out: the other endpoint did not answer in time\n", endpoint, call);
  } else if (path->attrs.verbosity & TAKYON_VERBOSITY_ERRORS) {
    /* Takyon printed the error stack to stderr already. */
    fprintf(stderr, "endpoint %s: %s failed (error above)\n", endpoint, call);
  } else {
    const char *message = path->attrs.error_message != NULL ? path->attrs.error_message : "(no message)";
    fprintf(stderr, "endpoint %s: %s failed:\n%s\n", endpoint, call, message);
  }
}

TakyonPath *exampleCreate(TakyonPathAttributes *attrs) {
  TakyonPath *path = takyonCreate(attrs);
  if (path == NULL) {
    const char *endpoint = attrs->is_endpointA ? "A" : "B";
    if (attrs->verbosity & TAKYON_VERBOSITY_ERRORS) {
      fprintf(stderr, "endpoint %s: takyonCreate('%s') failed (error above)\n", endpoint,
              attrs->interconnect);
    } else {
      fprintf(stderr, "endpoint %s: takyonCreate('%s') failed:\n%s\n", endpoint, attrs->interconnect,
              attrs->error_message != NULL ? attrs->error_message : "(no message)");
    }
    free(attrs->error_message); /* the caller owns it (see the guide's takyonCreate) */
    attrs->error_message = NULL;
  }
  return path;
}

bool exampleDestroy(TakyonPath **path) {
  if (*path == NULL) return true;
  bool is_endpointA = (*path)->attrs.is_endpointA;
  char *error = takyonDestroy(path);
  if (error != NULL) {
    fprintf(stderr, "endpoint %s: takyonDestroy failed:\n%s\n", is_endpointA ? "A" : "B", error);
    free(error);
    return false;
  }
  return true;
}

static uint8_t patternByte(uint32_t message, uint64_t k) {
  uint32_t x = message * 2654435761u + (uint32_t)k * 40503u + (uint32_t)(k >> 16);
  return (uint8_t)(x ^ (x >> 13));
}

void exampleFill(void *data, uint64_t bytes, uint32_t message) {
  uint8_t *p = (uint8_t *)data;
  for (uint64_t k = 0; k < bytes; k++) p[k] = patternByte(message, k);
}

bool exampleVerify(const void *data, uint64_t bytes, uint32_t message, const char *who) {
  const uint8_t *p = (const uint8_t *)data;
  for (uint64_t k = 0; k < bytes; k++) {
    if (p[k] != patternByte(message, k)) {
      fprintf(stderr, "%s: message %u byte %llu is 0x%02x, expected 0x%02x\n", who, message,
              (unsigned long long)k, p[k], patternByte(message, k));
      return false;
    }
  }
  return true;
}

uint64_t exampleMessageBytes(uint32_t message, uint64_t max_bytes) {
  if (message % 4 == 0) return max_bytes; /* every fourth message fills the buffer */
  return 1 + ((uint64_t)message * 7919u) % max_bytes;
}
