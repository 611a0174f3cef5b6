/* SPDX-License-Identifier: MIT */
/* Generalized requests: which callback runs when (query at Wait/Test/Request_get_status of a
 * completed request, free when it is released, cancel at MPI_Cancel with whether it completed), the
 * status the query callback fills (source, tag, element count, cancelled), and a request freed before
 * MPI_Grequest_complete. Rank 0 prints the callbacks in the order they ran. */
#include "test_util.h"

static char log_[512];

static void note(const char *what) {
  strncat(log_, what, sizeof log_ - strlen(log_) - 1);
  strncat(log_, " ", sizeof log_ - strlen(log_) - 1);
}

struct State {
  int source, tag, elements, cancelled;
};

static int query_fn(void *extra, MPI_Status *st) {
  struct State *s = (struct State *)extra;
  note("query");
  st->MPI_SOURCE = s->source;
  st->MPI_TAG = s->tag;
  MPI_Status_set_elements(st, MPI_INT, s->elements);
  MPI_Status_set_cancelled(st, s->cancelled);
  return MPI_SUCCESS;
}

static int failing_query_fn(void *extra, MPI_Status *st) {
  (void)extra, (void)st;
  note("query");
  return MPI_ERR_OTHER;
}

static int free_fn(void *extra) {
  (void)extra;
  note("free");
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  struct State *s = (struct State *)extra;
  note(complete ? "cancel(complete)" : "cancel(incomplete)");
  if (!complete) s->cancelled = 1;
  return MPI_SUCCESS;
}

static void show(const char *what) {
  PRINT0("%s: %s\n", what, log_);
  log_[0] = '\0';
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct State s = {3, 17, 5, 0};
  MPI_Request r;
  MPI_Status st;
  int flag = 0, count = -1;

  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK(flag == 0 && r != MPI_REQUEST_NULL);
  note("|");
  CHECK_MPI(MPI_Grequest_complete(r));
  note("|");
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1 && r != MPI_REQUEST_NULL);
  note("|");
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL);
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 17);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 5);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);
  show("test, complete, get_status, wait");

  /* Freed before completion: the handle is gone, so it is completed through a copy taken before. */
  MPI_Request keep;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &keep));
  r = keep;
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL);
  note("|");
  CHECK_MPI(MPI_Grequest_complete(keep));
  show("request_free, then complete");

  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Cancel(&r));
  note("|");
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
  show("cancel, complete, wait");

  s.cancelled = 0;
  MPI_Request two[2];
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &two[0]));
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &two[1]));
  CHECK_MPI(MPI_Grequest_complete(two[1]));
  int index = -1;
  CHECK_MPI(MPI_Waitany(2, two, &index, &st));
  CHECK(index == 1 && two[1] == MPI_REQUEST_NULL);
  note("|");
  CHECK_MPI(MPI_Grequest_complete(two[0]));
  CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  CHECK(two[0] == MPI_REQUEST_NULL);
  show("waitany, then waitall");

  /* A query callback's error is the Wait's (checked where the error class is defined: libtakyon_mpi). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (takyon_mpi()) {
    CHECK_MPI(MPI_Grequest_start(failing_query_fn, free_fn, cancel_fn, &s, &r));
    CHECK_MPI(MPI_Grequest_complete(r));
    expect_error("MPI_Wait of a request whose query fails", MPI_Wait(&r, &st), MPI_ERR_OTHER);
    CHECK(r == MPI_REQUEST_NULL && st.MPI_ERROR == MPI_ERR_OTHER);
    log_[0] = '\0';
  }
  PRINT0("a failing query callback: its error returned\n");
  MPI_Finalize();
  return 0;
}
