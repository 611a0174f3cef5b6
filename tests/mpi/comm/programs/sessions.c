/* SPDX-License-Identifier: MIT */
/* Sessions (MPI-4) without the world model: MPI_Session_init before any MPI_Init, the process sets
 * mpi://WORLD and mpi://SELF, groups and communicators made from them (moving checked bytes), a
 * sub-group's communicator with its own string tag, two sessions at once, session error handlers,
 * and MPI_Initialized / MPI_Finalized, which sessions do not change. Open MPI 4.1 has no sessions:
 * the program checks its results itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;

#define SCHECK(cond)                                                                            \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", g_rank, __FILE__, __LINE__, #cond); \
      exit(3);                                                                                  \
    }                                                                                           \
  } while (0)
#define SCHECK_MPI(call) SCHECK((call) == MPI_SUCCESS)

static int g_handler_calls = 0;
static int g_handler_code = 0;
static void on_session_error(MPI_Session *session, int *code, ...) {
  (void)session;
  ++g_handler_calls;
  g_handler_code = *code;
}

/* A communicator over the process set `pset`, made through a group. */
static MPI_Comm comm_of_pset(MPI_Session s, const char *pset, const char *tag) {
  MPI_Group g = MPI_GROUP_NULL;
  SCHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
  MPI_Comm c = MPI_COMM_NULL;
  SCHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  SCHECK_MPI(MPI_Group_free(&g));
  return c;
}

/* Every rank sends 1000 + rank bytes of a pattern to the next; the received bytes are checked. */
static void ring_exchange(MPI_Comm c, unsigned seed) {
  int rank, size;
  SCHECK_MPI(MPI_Comm_rank(c, &rank));
  SCHECK_MPI(MPI_Comm_size(c, &size));
  unsigned char out[2048], in[2048];
  int prev = (rank + size - 1) % size, next = (rank + 1) % size;
  for (int i = 0; i < 1000 + rank; ++i) out[i] = (unsigned char)(i * 7 + rank + seed);
  MPI_Status st;
  SCHECK_MPI(
      MPI_Sendrecv(out, 1000 + rank, MPI_BYTE, next, 5, in, (int)sizeof in, MPI_BYTE, prev, 5, c, &st));
  int n = -1;
  SCHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
  SCHECK(n == 1000 + prev && st.MPI_SOURCE == prev);
  for (int i = 0; i < n; ++i) SCHECK(in[i] == (unsigned char)(i * 7 + prev + seed));
  long sum = 0, mine = rank + 1;
  SCHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
  SCHECK(sum == (long)size * (size + 1) / 2);
}

int main(void) {
  int flag = 1;
  SCHECK_MPI(MPI_Initialized(&flag));
  SCHECK(flag == 0);

  MPI_Info info;
  SCHECK_MPI(MPI_Info_create(&info));
  SCHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
  MPI_Session s = MPI_SESSION_NULL;
  SCHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
  SCHECK_MPI(MPI_Info_free(&info));
  SCHECK(s != MPI_SESSION_NULL);

  /* The process sets, their names (the length query and truncation) and sizes. */
  int npsets = 0;
  SCHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
  SCHECK(npsets >= 2);
  int have_world = 0, have_self = 0;
  for (int i = 0; i < npsets; ++i) {
    int len = 0;
    SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    char name[MPI_MAX_PSET_NAME_LEN];
    SCHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN);
    SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    SCHECK((int)strlen(name) == len - 1);
    have_world |= strcmp(name, "mpi://WORLD") == 0;
    have_self |= strcmp(name, "mpi://SELF") == 0;
    char small[4];
    int small_len = (int)sizeof small;
    SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &small_len, small));
    SCHECK(small_len == len && strlen(small) == 3 && strncmp(small, name, 3) == 0);
  }
  SCHECK(have_world && have_self);

  MPI_Comm world = comm_of_pset(s, "mpi://WORLD", "org.takyon.test.world");
  int size = 0;
  SCHECK_MPI(MPI_Comm_rank(world, &g_rank));
  SCHECK_MPI(MPI_Comm_size(world, &size));
  MPI_Info pinfo;
  char value[MPI_MAX_INFO_VAL];
  SCHECK_MPI(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo));
  SCHECK_MPI(MPI_Info_get(pinfo, "mpi_size", MPI_MAX_INFO_VAL - 1, value, &flag));
  SCHECK(flag && atoi(value) == size);
  SCHECK_MPI(MPI_Info_free(&pinfo));
  SCHECK_MPI(MPI_Session_get_pset_info(s, "mpi://SELF", &pinfo));
  SCHECK_MPI(MPI_Info_get(pinfo, "mpi_size", MPI_MAX_INFO_VAL - 1, value, &flag));
  SCHECK(flag && atoi(value) == 1);
  SCHECK_MPI(MPI_Info_free(&pinfo));
  SCHECK_MPI(MPI_Session_get_info(s, &pinfo));
  SCHECK_MPI(MPI_Info_get(pinfo, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag));
  SCHECK(flag && strncmp(value, "MPI_THREAD_", 11) == 0);
  SCHECK_MPI(MPI_Info_free(&pinfo));
  ring_exchange(world, 1);

  MPI_Comm self = comm_of_pset(s, "mpi://SELF", "org.takyon.test.self");
  int self_size = 0;
  SCHECK_MPI(MPI_Comm_size(self, &self_size));
  SCHECK(self_size == 1);
  ring_exchange(self, 2);

  /* A second session at once; a communicator of the even ranks of the world, with another tag. */
  MPI_Session s2 = MPI_SESSION_NULL;
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
  MPI_Group wg, evens;
  SCHECK_MPI(MPI_Group_from_session_pset(s2, "mpi://WORLD", &wg));
  int range[1][3] = {{0, size - 1, 2}};
  SCHECK_MPI(MPI_Group_range_incl(wg, 1, range, &evens));
  if (g_rank % 2 == 0) {
    MPI_Comm even = MPI_COMM_NULL;
    SCHECK_MPI(
        MPI_Comm_create_from_group(evens, "org.takyon.test.evens", MPI_INFO_NULL, MPI_ERRORS_RETURN, &even));
    int even_size = 0, even_rank = -1;
    SCHECK_MPI(MPI_Comm_size(even, &even_size));
    SCHECK_MPI(MPI_Comm_rank(even, &even_rank));
    SCHECK(even_size == (size + 1) / 2 && even_rank == g_rank / 2);
    ring_exchange(even, 3);
    SCHECK_MPI(MPI_Comm_free(&even));
  } else {
    /* Not a member: an error, not a wait. */
    MPI_Comm none = MPI_COMM_NULL;
    SCHECK(MPI_Comm_create_from_group(evens, "org.takyon.test.evens", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                      &none) == MPI_ERR_GROUP);
  }
  /* An intercommunicator between the even and the odd ranks, from groups alone. */
  if (size >= 2) {
    MPI_Group odds, mine, other;
    int odd_range[1][3] = {{1, size - 1, 2}};
    SCHECK_MPI(MPI_Group_range_incl(wg, 1, odd_range, &odds));
    mine = g_rank % 2 == 0 ? evens : odds;
    other = g_rank % 2 == 0 ? odds : evens;
    MPI_Comm inter = MPI_COMM_NULL;
    SCHECK_MPI(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.takyon.test.inter", MPI_INFO_NULL,
                                                MPI_ERRORS_RETURN, &inter));
    int is_inter = 0, rsize = 0, lsize = 0, lrank = -1;
    SCHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
    SCHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    SCHECK_MPI(MPI_Comm_size(inter, &lsize));
    SCHECK_MPI(MPI_Comm_rank(inter, &lrank));
    const int nevens = (size + 1) / 2, nodds = size / 2;
    SCHECK(is_inter == 1 && lrank == g_rank / 2);
    SCHECK(lsize == (g_rank % 2 == 0 ? nevens : nodds) && rsize == (g_rank % 2 == 0 ? nodds : nevens));
    /* Each group gets the sum of the other group's world ranks; the leaders trade a checked message. */
    long mine_value = g_rank, other_sum = -1, expect = 0;
    for (int r = g_rank % 2 == 0 ? 1 : 0; r < size; r += 2) expect += r;
    SCHECK_MPI(MPI_Allreduce(&mine_value, &other_sum, 1, MPI_LONG, MPI_SUM, inter));
    SCHECK(other_sum == expect);
    if (lrank == 0) {
      unsigned char out[300], in[300];
      for (int i = 0; i < 300; ++i) out[i] = (unsigned char)(i * 3 + g_rank);
      SCHECK_MPI(MPI_Sendrecv(out, 300, MPI_BYTE, 0, 4, in, 300, MPI_BYTE, 0, 4, inter, MPI_STATUS_IGNORE));
      const int peer = g_rank == 0 ? 1 : 0; /* the other group's leader is world rank 1 or 0 */
      for (int i = 0; i < 300; ++i) SCHECK(in[i] == (unsigned char)(i * 3 + peer));
    }
    /* Overlapping groups are refused on every member, not waited for. */
    MPI_Comm bad = MPI_COMM_NULL;
    SCHECK(MPI_Intercomm_create_from_groups(mine, 0, wg, 0, "org.takyon.test.overlap", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &bad) == MPI_ERR_GROUP);
    SCHECK(bad == MPI_COMM_NULL);
    SCHECK_MPI(MPI_Comm_free(&inter));
    SCHECK_MPI(MPI_Group_free(&odds));
  }
  SCHECK_MPI(MPI_Group_free(&evens));
  SCHECK_MPI(MPI_Group_free(&wg));
  SCHECK_MPI(MPI_Session_finalize(&s2));
  SCHECK(s2 == MPI_SESSION_NULL);

  /* Errors go to the session's handler: MPI_ERRORS_RETURN, then a function of the program's. */
  MPI_Group bad = MPI_GROUP_NULL;
  SCHECK(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &bad) == MPI_ERR_ARG);
  int len = 0;
  SCHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, npsets, &len, NULL) == MPI_ERR_ARG);
  MPI_Errhandler eh;
  SCHECK_MPI(MPI_Session_create_errhandler(on_session_error, &eh));
  SCHECK(MPI_Comm_set_errhandler(world, eh) == MPI_ERR_ARG); /* a session handler is not a communicator's */
  SCHECK_MPI(MPI_Session_set_errhandler(s, eh));
  SCHECK_MPI(MPI_Errhandler_free(&eh));
  SCHECK(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &bad) == MPI_ERR_ARG);
  SCHECK(g_handler_calls == 1 && g_handler_code == MPI_ERR_ARG);
  SCHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  SCHECK(g_handler_calls == 2 && g_handler_code == MPI_ERR_OTHER);
  MPI_Errhandler got;
  SCHECK_MPI(MPI_Session_get_errhandler(s, &got));
  SCHECK_MPI(MPI_Errhandler_free(&got));

  SCHECK_MPI(MPI_Comm_free(&self));
  SCHECK_MPI(MPI_Comm_free(&world));
  SCHECK_MPI(MPI_Initialized(&flag));
  SCHECK(flag == 0);
  SCHECK_MPI(MPI_Session_finalize(&s));
  SCHECK_MPI(MPI_Finalized(&flag));
  SCHECK(flag == 0);
  if (g_rank == 0) printf("sessions: %d processes, %d process sets: ok\n", size, npsets);
  return 0;
}
