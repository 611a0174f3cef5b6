/* SPDX-License-Identifier: MIT */
/* hello_mp: hello between two processes of one OS over shared memory. */
/*
 * Usage: hello_mp A|B|fork ["<provider> -ID=<n>"]   (default "InterProcessMemcpy -ID=1")
 *
 *   hello_mp A & hello_mp B      two processes, started in either order (each waits for the other)
 *   hello_mp fork                convenience: this process is A and forks a child that is B
 *
 * Endpoint A sends "Hello <i> from A"; B checks it and answers "Hello <i> from B". Works with
 * InterProcessMemcpy (one copy into the peer's shared receive buffer) and InterProcessPointer (the
 * sender writes straight into the shared buffer; send only signals).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#define NUM_GREETINGS 3
#define MAX_MESSAGE_BYTES 64
#define CREATE_TIMEOUT_SECONDS 30.0 /* time to start the other process */
#define TIMEOUT_SECONDS 20.0

static bool sendGreeting(TakyonPath *path, int i) {
  const char *me = path->attrs.is_endpointA ? "A" : "B";
  char *message = (char *)path->attrs.sender_addr_list[0];
  int length =
      snprintf(message, MAX_MESSAGE_BYTES, "Hello %d from process %s (pid %d)", i, me, (int)getpid());
  bool timed_out = false;
  if (!takyonSend(path, 0, (uint64_t)length + 1, 0, 0, &timed_out)) {
    fprintf(stderr, "%s: takyonSend failed:\n%s\n", me, path->attrs.error_message);
    return false;
  }
  if (timed_out) {
    fprintf(stderr, "%s: takyonSend timed out\n", me);
    return false;
  }
  return true;
}

static bool recvGreeting(TakyonPath *path, int i) {
  const char *me = path->attrs.is_endpointA ? "A" : "B";
  const char *peer = path->attrs.is_endpointA ? "B" : "A";
  uint64_t bytes = 0;
  uint64_t offset = 0;
  bool timed_out = false;
  if (!takyonRecv(path, 0, &bytes, &offset, &timed_out)) {
    fprintf(stderr, "%s: takyonRecv failed:\n%s\n", me, path->attrs.error_message);
    return false;
  }
  if (timed_out) {
    fprintf(stderr, "%s: takyonRecv timed out\n", me);
    return false;
  }
  const char *message = (const char *)path->attrs.recver_addr_list[0] + offset;
  char expected_start[MAX_MESSAGE_BYTES];
  int prefix = snprintf(expected_start, sizeof(expected_start), "Hello %d from process %s (pid ", i, peer);
  if (offset != 0 || bytes < (uint64_t)prefix + 3 || bytes > MAX_MESSAGE_BYTES ||
      message[bytes - 1] != '\0' || strncmp(message, expected_start, (size_t)prefix) != 0 ||
      strlen(message) + 1 != bytes) {
    fprintf(stderr, "%s: expected '%s...)' at offset 0, got %llu bytes at offset %llu\n", me, expected_start,
            (unsigned long long)bytes, (unsigned long long)offset);
    return false;
  }
  printf("%s received '%s'\n", me, message);
  fflush(stdout);
  return true;
}

/* Everything one endpoint does. Returns 0 when all greetings arrived intact. */
static int runEndpoint(bool is_endpointA, const char *interconnect) {
  const char *me = is_endpointA ? "A" : "B";
  TakyonPathAttributes attrs = takyonAllocAttributes(is_endpointA, false /* event driven */, 1, 1,
                                                     MAX_MESSAGE_BYTES, TIMEOUT_SECONDS, interconnect);
  attrs.path_create_timeout = CREATE_TIMEOUT_SECONDS;
  attrs.verbosity = TAKYON_VERBOSITY_NONE; /* errors: we print path->attrs.error_message ourselves */
  TakyonPath *path = takyonCreate(&attrs);
  takyonFreeAttributes(attrs);
  if (path == NULL) {
    fprintf(stderr, "%s: takyonCreate failed:\n%s\n", me, attrs.error_message);
    free(attrs.error_message);
    return 1;
  }

  bool ok = true;
  for (int i = 0; i < NUM_GREETINGS && ok; i++) {
    ok = is_endpointA ? (sendGreeting(path, i) && recvGreeting(path, i))
                      : (recvGreeting(path, i) && sendGreeting(path, i));
  }

  char *error = takyonDestroy(&path); /* waits for the other process to destroy its endpoint too */
  if (error != NULL) {
    fprintf(stderr, "%s: takyonDestroy failed:\n%s\n", me, error);
    free(error);
    ok = false;
  }
  printf("%s (pid %d): %s\n", me, (int)getpid(), ok ? "done, all greetings correct" : "FAILED");
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 ||
      (strcmp(argv[1], "A") != 0 && strcmp(argv[1], "B") != 0 && strcmp(argv[1], "fork") != 0)) {
    fprintf(stderr,
            "usage: %s A|B|fork [\"<provider> -ID=<n>\"]\n"
            "  run '%s A' and '%s B' as two processes, or '%s fork' to fork B from A\n",
            argv[0], argv[0], argv[0], argv[0]);
    return 2;
  }
  const char *interconnect = argc > 2 ? argv[2] : "InterProcessMemcpy -ID=1";

  if (strcmp(argv[1], "fork") != 0) return runEndpoint(strcmp(argv[1], "A") == 0, interconnect);

  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    int result = runEndpoint(false, interconnect);
    fflush(stdout);
    _exit(result);
  }
  int result_a = runEndpoint(true, interconnect);
  int status = 0;
  if (waitpid(child, &status, 0) != child) {
    perror("waitpid");
    return 1;
  }
  int result_b = (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : 1;
  return (result_a == 0 && result_b == 0) ? 0 : 1;
}
