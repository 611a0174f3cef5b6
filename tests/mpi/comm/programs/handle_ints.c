/* SPDX-License-Identifier: MIT */
/* Handles as integers: MPI_<Kind>_c2f / _f2c give back the handle they were given, for predefined
 * handles and for handles the program created (a communicator, datatype, group, info, operation,
 * error handler, request, matched message and window), the same integer every time; distinct live
 * handles get distinct integers; the null handles convert to and from their own integer. Under an
 * MPI-5 library, MPI_<Kind>_toint / _fromint give the same integers. np 1-3; prints only "ok"
 * lines, so Open MPI's run (other integers, no toint) prints the same. */
#include "test_util.h"

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static void errh_fn(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
}

#if MPI_VERSION >= 5
#define CHECK_INTS(Kind, h, f) CHECK(MPI_##Kind##_toint(h) == (f) && MPI_##Kind##_fromint(f) == (h))
#else
#define CHECK_INTS(Kind, h, f) ((void)0)
#endif

/* c2f then f2c is the identity, twice the same integer, and toint/fromint agree. */
#define ROUND_TRIP(Kind, h)             \
  do {                                  \
    MPI_Fint f_ = MPI_##Kind##_c2f(h);  \
    CHECK(MPI_##Kind##_c2f(h) == f_);   \
    CHECK(MPI_##Kind##_f2c(f_) == (h)); \
    CHECK_INTS(Kind, h, f_);            \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();

  /* Predefined handles and the null handles. */
  ROUND_TRIP(Comm, MPI_COMM_WORLD);
  ROUND_TRIP(Comm, MPI_COMM_SELF);
  ROUND_TRIP(Comm, MPI_COMM_NULL);
  ROUND_TRIP(Type, MPI_INT);
  ROUND_TRIP(Type, MPI_DOUBLE);
  ROUND_TRIP(Type, MPI_DATATYPE_NULL);
  ROUND_TRIP(Op, MPI_SUM);
  ROUND_TRIP(Op, MPI_OP_NULL);
  ROUND_TRIP(Group, MPI_GROUP_EMPTY);
  ROUND_TRIP(Group, MPI_GROUP_NULL);
  ROUND_TRIP(Info, MPI_INFO_NULL);
  ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
  ROUND_TRIP(Errhandler, MPI_ERRHANDLER_NULL);
  ROUND_TRIP(Request, MPI_REQUEST_NULL);
  ROUND_TRIP(Message, MPI_MESSAGE_NULL);
  ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);
  ROUND_TRIP(Win, MPI_WIN_NULL);
  CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) != MPI_Comm_c2f(MPI_COMM_SELF));
  PRINT0("ok: predefined handles\n");

  /* Created handles: each round-trips, two of a kind differ, and a converted handle still works. */
  MPI_Comm dup1, dup2;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup1));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
  ROUND_TRIP(Comm, dup1);
  ROUND_TRIP(Comm, dup2);
  CHECK(MPI_Comm_c2f(dup1) != MPI_Comm_c2f(dup2));
  CHECK(MPI_Comm_c2f(dup1) != MPI_Comm_c2f(MPI_COMM_WORLD));
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_Comm_f2c(MPI_Comm_c2f(dup2))));
  CHECK(sum == size);

  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  ROUND_TRIP(Type, pair);
  int type_size = 0;
  CHECK_MPI(MPI_Type_size(MPI_Type_f2c(MPI_Type_c2f(pair)), &type_size));
  CHECK(type_size == 2 * (int)sizeof(int));

  MPI_Group world_group;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  ROUND_TRIP(Group, world_group);

  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "key", "value"));
  ROUND_TRIP(Info, info);
  int nkeys = 0;
  CHECK_MPI(MPI_Info_get_nkeys(MPI_Info_f2c(MPI_Info_c2f(info)), &nkeys));
  CHECK(nkeys == 1);

  MPI_Op op;
  CHECK_MPI(MPI_Op_create(sum_fn, 1, &op));
  ROUND_TRIP(Op, op);
  CHECK(MPI_Op_c2f(op) != MPI_Op_c2f(MPI_SUM));

  MPI_Errhandler errh;
  CHECK_MPI(MPI_Comm_create_errhandler(errh_fn, &errh));
  ROUND_TRIP(Errhandler, errh);

  int win_word = 0;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(&win_word, sizeof win_word, sizeof win_word, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  ROUND_TRIP(Win, win);
  CHECK_MPI(MPI_Win_fence(0, MPI_Win_f2c(MPI_Win_c2f(win))));
  CHECK_MPI(MPI_Win_fence(0, win));
  PRINT0("ok: created handles\n");

  /* A request and a matched message, converted while pending and completed through the result. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out = rank * 10 + 3, in = -1, probed = -1;
  MPI_Request recv_req;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 7, dup1, &recv_req));
  ROUND_TRIP(Request, recv_req);
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, 7, dup1));
  MPI_Request back = MPI_Request_f2c(MPI_Request_c2f(recv_req));
  CHECK_MPI(MPI_Wait(&back, MPI_STATUS_IGNORE));
  CHECK(in == prev * 10 + 3);
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, 8, dup2));
  MPI_Message msg;
  CHECK_MPI(MPI_Mprobe(prev, 8, dup2, &msg, MPI_STATUS_IGNORE));
  ROUND_TRIP(Message, msg);
  MPI_Message msg_back = MPI_Message_f2c(MPI_Message_c2f(msg));
  CHECK_MPI(MPI_Mrecv(&probed, 1, MPI_INT, &msg_back, MPI_STATUS_IGNORE));
  CHECK(probed == prev * 10 + 3);
  PRINT0("ok: pending request and matched message\n");

  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Errhandler_free(&errh));
  CHECK_MPI(MPI_Op_free(&op));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup1));
  MPI_Finalize();
  return 0;
}
