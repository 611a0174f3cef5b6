/* SPDX-License-Identifier: MIT */
/* mpi.h compiled as strict C (C99 and C11 builds of this file): declarations checked by type, constants used.
 */
#include <mpi.h>
#include <stdio.h>

/* Checks that MPI_<name> and PMPI_<name> have exactly the given pointer type. The compound literal sits
 * inside sizeof, which is not evaluated, so this needs no library: a mismatch is a -Werror compile error. */
#define CHECK_FN(name, type)           \
  do {                                 \
    (void)sizeof((type){MPI_##name});  \
    (void)sizeof((type){PMPI_##name}); \
  } while (0)

typedef int (*SendFn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*IsendFn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*RecvFn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*IrecvFn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*StatusCountFn)(const MPI_Status *, MPI_Datatype, int *);
typedef int (*WaitallFn)(int, MPI_Request[], MPI_Status[]);
typedef int (*CollVFn)(const void *, int, MPI_Datatype, void *, const int[], const int[], MPI_Datatype,
                       MPI_Comm);
typedef int (*AllreduceFn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*IallreduceFn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);

static void check_declarations(void) {
  CHECK_FN(Init, int (*)(int *, char ***));
  CHECK_FN(Init_thread, int (*)(int *, char ***, int, int *));
  CHECK_FN(Finalize, int (*)(void));
  CHECK_FN(Wtime, double (*)(void));
  CHECK_FN(Wtick, double (*)(void));
  CHECK_FN(Pcontrol, int (*)(const int, ...));
  CHECK_FN(Alloc_mem, int (*)(MPI_Aint, MPI_Info, void *));
  CHECK_FN(Comm_get_attr, int (*)(MPI_Comm, int, void *, int *));
  CHECK_FN(Error_string, int (*)(int, char *, int *));
  CHECK_FN(Comm_set_errhandler, int (*)(MPI_Comm, MPI_Errhandler));
  CHECK_FN(Comm_create_errhandler, int (*)(MPI_Comm_errhandler_function *, MPI_Errhandler *));
  CHECK_FN(Send, SendFn);
  CHECK_FN(Ssend, SendFn);
  CHECK_FN(Rsend, SendFn);
  CHECK_FN(Bsend, SendFn);
  CHECK_FN(Isend, IsendFn);
  CHECK_FN(Issend, IsendFn);
  CHECK_FN(Ibsend, IsendFn);
  CHECK_FN(Send_init, IsendFn);
  CHECK_FN(Recv, RecvFn);
  CHECK_FN(Irecv, IrecvFn);
  CHECK_FN(Recv_init, IrecvFn);
  CHECK_FN(Sendrecv, int (*)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int,
                             MPI_Comm, MPI_Status *));
  CHECK_FN(Get_count, StatusCountFn);
  CHECK_FN(Get_elements, StatusCountFn);
  CHECK_FN(Test_cancelled, int (*)(const MPI_Status *, int *));
  CHECK_FN(Status_set_cancelled, int (*)(MPI_Status *, int));
  CHECK_FN(Waitall, WaitallFn);
  CHECK_FN(Waitany, int (*)(int, MPI_Request[], int *, MPI_Status *));
  CHECK_FN(Testsome, int (*)(int, MPI_Request[], int *, int[], MPI_Status[]));
  CHECK_FN(Improbe, int (*)(int, int, MPI_Comm, int *, MPI_Message *, MPI_Status *));
  CHECK_FN(Buffer_detach, int (*)(void *, int *));
  CHECK_FN(Allgatherv, CollVFn);
  CHECK_FN(Allreduce, AllreduceFn);
  CHECK_FN(Scan, AllreduceFn);
  CHECK_FN(Iallreduce, IallreduceFn);
  CHECK_FN(Alltoallw, int (*)(const void *, const int[], const int[], const MPI_Datatype[], void *,
                              const int[], const int[], const MPI_Datatype[], MPI_Comm));
  CHECK_FN(Op_create, int (*)(MPI_User_function *, int, MPI_Op *));
  CHECK_FN(Comm_create_keyval,
           int (*)(MPI_Comm_copy_attr_function *, MPI_Comm_delete_attr_function *, int *, void *));
  CHECK_FN(Type_create_keyval,
           int (*)(MPI_Type_copy_attr_function *, MPI_Type_delete_attr_function *, int *, void *));
  CHECK_FN(Group_range_incl, int (*)(MPI_Group, int, int[][3], MPI_Group *));
  CHECK_FN(Type_create_struct,
           int (*)(int, const int[], const MPI_Aint[], const MPI_Datatype[], MPI_Datatype *));
  CHECK_FN(Get_address, int (*)(const void *, MPI_Aint *));
  CHECK_FN(Aint_add, MPI_Aint(*)(MPI_Aint, MPI_Aint));
  CHECK_FN(Aint_diff, MPI_Aint(*)(MPI_Aint, MPI_Aint));
  CHECK_FN(Type_get_contents, int (*)(MPI_Datatype, int, int, int, int[], MPI_Aint[], MPI_Datatype[]));
  CHECK_FN(Pack, int (*)(const void *, int, MPI_Datatype, void *, int, int *, MPI_Comm));
  CHECK_FN(Unpack, int (*)(const void *, int, int *, void *, int, MPI_Datatype, MPI_Comm));
  CHECK_FN(Cart_create, int (*)(MPI_Comm, int, const int[], const int[], int, MPI_Comm *));
  CHECK_FN(Intercomm_create, int (*)(MPI_Comm, int, MPI_Comm, int, int, MPI_Comm *));
  CHECK_FN(Info_set, int (*)(MPI_Info, const char *, const char *));
}

/* The predefined callbacks, handles and sentinels are usable where C wants constants. */
static MPI_Comm_copy_attr_function *const kCopyFns[] = {MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN};
static MPI_Comm_delete_attr_function *const kDeleteFn = MPI_COMM_NULL_DELETE_FN;
static MPI_Type_copy_attr_function *const kTypeCopyFns[] = {MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN};
static const MPI_Comm kComms[] = {MPI_COMM_NULL, MPI_COMM_WORLD, MPI_COMM_SELF};
static const MPI_Datatype kTypes[] = {MPI_INT,           MPI_DOUBLE,    MPI_BYTE,
                                      MPI_LONG_LONG_INT, MPI_C_COMPLEX, MPI_2INT};
static const int kRanks[] = {MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT, MPI_UNDEFINED};

int main(void) {
  int failures = 0;
  MPI_Status status = {0, 0, 0, {0, 0, 0, 0, 0}};
  MPI_Status *ignore = MPI_STATUS_IGNORE;
  MPI_Request request = MPI_REQUEST_NULL;
  char name[MPI_MAX_PROCESSOR_NAME];
  char error[MPI_MAX_ERROR_STRING];
  check_declarations();
  (void)name;
  (void)error;
  switch (MPI_THREAD_MULTIPLE) { /* integer constant expressions */
    case MPI_THREAD_SINGLE:
    case MPI_THREAD_FUNNELED:
    case MPI_THREAD_SERIALIZED:
      failures++;
      break;
    default:
      break;
  }
  if (kCopyFns[0] != MPI_COMM_NULL_COPY_FN || kCopyFns[1] == MPI_COMM_NULL_COPY_FN) failures++;
  if (kDeleteFn != MPI_COMM_NULL_DELETE_FN || kTypeCopyFns[1] != MPI_TYPE_DUP_FN) failures++;
  if (kComms[1] != MPI_COMM_WORLD || kTypes[3] != MPI_LONG_LONG || kRanks[0] != MPI_ANY_SOURCE) failures++;
  if (ignore != MPI_STATUSES_IGNORE || request != MPI_REQUEST_NULL) failures++;
  if (MPI_IN_PLACE == MPI_BOTTOM || status.MPI_SOURCE != 0 || status.MPI_internal[4] != 0) failures++;
  if (failures != 0) {
    printf("mpi.h C check: %d failure(s)\n", failures);
    return 1;
  }
  printf("mpi.h C check (C%ld): ok\n", (long)__STDC_VERSION__);
  return 0;
}
