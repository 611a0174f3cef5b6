/* SPDX-License-Identifier: MIT */
/* Compiles takyon.h alone as strict C99 and checks every declaration against the guide's spelling. */
#include <takyon/takyon.h> /* first and alone: the header must be self-contained */

#include <stddef.h>

#include "c_headers_check.h"

/* The five core functions, with the exact signatures of the guide's API reference. */
static TakyonPath *(*const create_fn)(TakyonPathAttributes *) = takyonCreate;
static bool (*const send_fn)(TakyonPath *, int, uint64_t, uint64_t, uint64_t, bool *) = takyonSend;
static bool (*const is_send_finished_fn)(TakyonPath *, int, bool *) = takyonIsSendFinished;
static bool (*const send_test_fn)(TakyonPath *, int, bool *) = takyonSendTest;
static bool (*const recv_fn)(TakyonPath *, int, uint64_t *, uint64_t *, bool *) = takyonRecv;
static char *(*const destroy_fn)(TakyonPath **) = takyonDestroy;

/* Compile-time checks of the macros (C99 has no _Static_assert: a negative array size fails). */
#define CHECK(name, condition) typedef char check_##name[(condition) ? 1 : -1]
CHECK(interconnect_chars, TAKYON_MAX_INTERCONNECT_CHARS >= 100);
CHECK(error_chars, TAKYON_MAX_ERROR_MESSAGE_CHARS >= 100);
CHECK(verbosity_none, TAKYON_VERBOSITY_NONE == 0);
CHECK(verbosity_distinct,
      (TAKYON_VERBOSITY_ERRORS & TAKYON_VERBOSITY_CREATE_DESTROY & TAKYON_VERBOSITY_CREATE_DESTROY_MORE &
       TAKYON_VERBOSITY_SEND_RECV & TAKYON_VERBOSITY_SEND_RECV_MORE) == 0);
CHECK(verbosity_bits,
      (TAKYON_VERBOSITY_ERRORS | TAKYON_VERBOSITY_CREATE_DESTROY | TAKYON_VERBOSITY_CREATE_DESTROY_MORE |
       TAKYON_VERBOSITY_SEND_RECV | TAKYON_VERBOSITY_SEND_RECV_MORE) == 0x1f);
CHECK(verbosity_details, TAKYON_VERBOSITY_CREATE_DESTROY_DETAILS == TAKYON_VERBOSITY_CREATE_DESTROY_MORE &&
                             TAKYON_VERBOSITY_SEND_RECV_DETAILS == TAKYON_VERBOSITY_SEND_RECV_MORE);
CHECK(completion_methods, TAKYON_BLOCKING != TAKYON_USE_IS_SEND_FINISHED &&
                              TAKYON_IS_SEND_FINISHED == TAKYON_USE_IS_SEND_FINISHED);
CHECK(interconnect_field, sizeof(((TakyonPathAttributes *)0)->interconnect) == TAKYON_MAX_INTERCONNECT_CHARS);

/* Every field of TakyonPathAttributes and TakyonPath, with its type checked by assignment to a
   pointer of exactly that type (a mismatch is a warning, and -Werror makes it an error). */
int checkTakyonHeader(void) {
  TakyonPathAttributes attrs;
  TakyonPath path;
  char(*interconnect)[TAKYON_MAX_INTERCONNECT_CHARS] = &attrs.interconnect;
  bool *is_endpointA = &attrs.is_endpointA;
  bool *is_polling = &attrs.is_polling;
  bool *abort_on_failure = &attrs.abort_on_failure;
  uint64_t *verbosity = &attrs.verbosity;
  double *timeouts[6] = {&attrs.path_create_timeout, &attrs.send_start_timeout,  &attrs.send_finish_timeout,
                         &attrs.recv_start_timeout,  &attrs.recv_finish_timeout, &attrs.path_destroy_timeout};
  TakyonCompletionMethod *send_method = &attrs.send_completion_method;
  TakyonCompletionMethod *recv_method = &attrs.recv_completion_method;
  int *nbufs[2] = {&attrs.nbufs_AtoB, &attrs.nbufs_BtoA};
  uint64_t **max_bytes[2] = {&attrs.sender_max_bytes_list, &attrs.recver_max_bytes_list};
  size_t **addrs[2] = {&attrs.sender_addr_list, &attrs.recver_addr_list};
  char **error_message = &attrs.error_message;
  TakyonPathAttributes *path_attrs = &path.attrs;
  void **private_path = &path.private_path;

  /* Designated initializer naming every field: a renamed or removed field fails to compile. */
  uint64_t sizes[1] = {64};
  size_t addresses[1] = {0};
  TakyonPathAttributes full = {.interconnect = "InterThreadMemcpy -ID=1",
                               .is_endpointA = true,
                               .is_polling = false,
                               .abort_on_failure = false,
                               .verbosity = TAKYON_VERBOSITY_ERRORS,
                               .path_create_timeout = TAKYON_WAIT_FOREVER,
                               .send_start_timeout = 1.0,
                               .send_finish_timeout = 1.0,
                               .recv_start_timeout = 1.0,
                               .recv_finish_timeout = 1.0,
                               .path_destroy_timeout = 1.0,
                               .send_completion_method = TAKYON_BLOCKING,
                               .recv_completion_method = TAKYON_BLOCKING,
                               .nbufs_AtoB = 1,
                               .nbufs_BtoA = 0,
                               .sender_max_bytes_list = sizes,
                               .recver_max_bytes_list = NULL,
                               .sender_addr_list = addresses,
                               .recver_addr_list = NULL,
                               .error_message = NULL};

  int used = (interconnect != NULL) + (is_endpointA != NULL) + (is_polling != NULL) +
             (abort_on_failure != NULL) + (verbosity != NULL) + (timeouts[5] != NULL) +
             (send_method != NULL) + (recv_method != NULL) + (nbufs[1] != NULL) + (max_bytes[1] != NULL) +
             (addrs[1] != NULL) + (error_message != NULL) + (path_attrs != NULL) + (private_path != NULL) +
             (full.nbufs_AtoB == 1);
  int functions = (create_fn != NULL) + (send_fn != NULL) + (is_send_finished_fn != NULL) +
                  (send_test_fn != NULL) + (recv_fn != NULL) + (destroy_fn != NULL);
  /* TAKYON_WAIT_FOREVER is a double: "wait forever" is -1 seconds. */
  double wait_forever = TAKYON_WAIT_FOREVER;
  return used == 15 && functions == 6 && wait_forever == -1.0 ? 0 : 1;
}

/* A NULL path is rejected with false (and a reason on stderr), never a crash. */
int checkNullPathCalls(void) {
  bool timed_out = false;
  uint64_t bytes = 0;
  uint64_t offset = 0;
  int failures = 0;
  if (send_fn(NULL, 0, 0, 0, 0, &timed_out)) failures++;
  if (is_send_finished_fn(NULL, 0, &timed_out)) failures++;
  if (send_test_fn(NULL, 0, &timed_out)) failures++;
  if (recv_fn(NULL, 0, &bytes, &offset, &timed_out)) failures++;
  return failures;
}
