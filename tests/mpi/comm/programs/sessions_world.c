/* SPDX-License-Identifier: MIT */
/* Sessions beside the world model: a session started before MPI_Init, MPI_Init joining the running
 * library, the mpi://WORLD communicator congruent with MPI_COMM_WORLD and isolated from it (same
 * tags on both at once), and the session's communicator still working after MPI_Finalize until
 * MPI_Session_finalize. Open MPI 4.1 has no sessions: the program checks its results itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int g_rank = -1;

#define SCHECK(cond)                                                                            \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", g_rank, __FILE__, __LINE__, #cond); \
      exit(3);                                                                                  \
    }                                                                                           \
  } while (0)
#define SCHECK_MPI(call) SCHECK((call) == MPI_SUCCESS)

int main(int argc, char **argv) {
  MPI_Session s = MPI_SESSION_NULL;
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Group g;
  SCHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  MPI_Comm sw = MPI_COMM_NULL;
  SCHECK_MPI(MPI_Comm_create_from_group(g, "org.takyon.test.world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sw));
  SCHECK_MPI(MPI_Group_free(&g));

  int provided = -1, flag = 0;
  SCHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  SCHECK(provided >= MPI_THREAD_SINGLE);
  SCHECK_MPI(MPI_Initialized(&flag));
  SCHECK(flag == 1);
  int size, srank, result;
  SCHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  SCHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  SCHECK_MPI(MPI_Comm_rank(sw, &srank));
  SCHECK(srank == g_rank);
  SCHECK_MPI(MPI_Comm_compare(sw, MPI_COMM_WORLD, &result));
  SCHECK(result == MPI_CONGRUENT);

  /* The same tag and peers on both communicators at once: each message arrives on its own. */
  int next = (g_rank + 1) % size, prev = (g_rank + size - 1) % size;
  int out_world = 1000 + g_rank, out_session = 2000 + g_rank, in_world = -1, in_session = -1;
  MPI_Request req[4];
  SCHECK_MPI(MPI_Irecv(&in_session, 1, MPI_INT, prev, 7, sw, &req[0]));
  SCHECK_MPI(MPI_Irecv(&in_world, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &req[1]));
  SCHECK_MPI(MPI_Isend(&out_world, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &req[2]));
  SCHECK_MPI(MPI_Isend(&out_session, 1, MPI_INT, next, 7, sw, &req[3]));
  SCHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
  SCHECK(in_world == 1000 + prev && in_session == 2000 + prev);

  SCHECK_MPI(MPI_Finalize());
  SCHECK_MPI(MPI_Finalized(&flag));
  SCHECK(flag == 1);
  /* The session outlives the world model. */
  long mine = g_rank + 1, sum = 0;
  SCHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, sw));
  SCHECK(sum == (long)size * (size + 1) / 2);
  SCHECK_MPI(MPI_Comm_free(&sw));
  SCHECK_MPI(MPI_Session_finalize(&s));
  if (g_rank == 0) printf("sessions_world: %d processes: ok\n", size);
  return 0;
}
