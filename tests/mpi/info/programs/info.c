/* SPDX-License-Identifier: MIT */
/* Info objects and added error classes/codes/strings, every function and its error cases, under
 * MPI_ERRORS_RETURN. Printed: portable facts only (key order, values, truncation, lengths at the
 * limits of the MPI implementation, which error class a bad call is expected to give), so Open MPI
 * prints the same. Under libtakyon_mpi the exact error classes are checked, and so are what Open MPI
 * 4.1 does differently or lacks: freed and garbage handles, MPI_INFO_ENV's contents, read-only
 * MPI_INFO_ENV, MPI_Info_get_string (MPI-4; emulated for Open MPI 4.1), info calls before MPI_Init,
 * a bad info on one member of a collective. np 1-2. */
#include "test_util.h"

/* MPI_Info_get_string is MPI-4 (Open MPI 4.1 has none): the same contract on Info_get_valuelen/get. */
#if MPI_VERSION >= 4
#define get_string MPI_Info_get_string
#else
static int get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
  int len = 0;
  int rc = MPI_Info_get_valuelen(info, (char *)key, &len, flag);
  if (rc != MPI_SUCCESS || !*flag) return rc;
  if (*buflen == 1) value[0] = '\0'; /* Open MPI's Info_get writes nothing for valuelen 0 */
  if (*buflen > 1) rc = MPI_Info_get(info, (char *)key, *buflen - 1, value, flag);
  *buflen = len + 1;
  return rc;
}
#endif

/* Prints the keys of `info` in order with their values. */
static void print_info(const char *what, MPI_Info info) {
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  PRINT0("%s: %d keys:", what, n);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY];
    char value[MPI_MAX_INFO_VAL];
    int flag = 0, len = -1;
    CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
    CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag == 1);
    CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag == 1 && (int)strlen(value) == len);
    PRINT0(" %s=%s", key, value);
  }
  PRINT0("\n");
}

static int handler_calls, handler_code;
static void record_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  ++handler_calls;
  handler_code = *code;
}

/* libtakyon_mpi only: MPI_INFO_ENV's keys and values, and that it is read-only. */
static void check_info_env(int argc, char **argv) {
  char value[MPI_MAX_INFO_VAL];
  int flag = 0, provided = -1, size = world_size();
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, argv[0]) == 0);
  char args[MPI_MAX_INFO_VAL] = "";
  for (int i = 1; i < argc; ++i) {
    if (i > 1) strcat(args, " ");
    strcat(args, argv[i]);
  }
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, args) == 0);
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && atoi(value) == size);
  char host[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  CHECK_MPI(MPI_Get_processor_name(host, &len));
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "host", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, host) == 0);
  CHECK_MPI(MPI_Query_thread(&provided));
  const char *level = provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "MPI_THREAD_FUNNELED";
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, level) == 0);
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && value[0] == '/');
  int n = 0;
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK(n >= 6);
  /* a copy is an ordinary info */
  MPI_Info copy;
  CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &copy));
  int m = 0;
  CHECK_MPI(MPI_Info_get_nkeys(copy, &m));
  CHECK(m == n);
  CHECK_MPI(MPI_Info_set(copy, "command", "changed"));
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, argv[0]) == 0);
  CHECK_MPI(MPI_Info_free(&copy));
  MPI_Info env = MPI_INFO_ENV;
  expect_class("info_set on MPI_INFO_ENV", MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO);
  expect_class("info_delete on MPI_INFO_ENV", MPI_Info_delete(MPI_INFO_ENV, "command"), MPI_ERR_INFO);
  expect_class("info_free of MPI_INFO_ENV", MPI_Info_free(&env), MPI_ERR_INFO);
  CHECK(env == MPI_INFO_ENV);
}

int main(int argc, char **argv) {
  int len = 0;
  if (takyon_mpi()) { /* MPI-4: info objects work before MPI_Init */
    MPI_Info early;
    char value[8];
    int flag = 0;
    CHECK_MPI(MPI_Info_create(&early));
    CHECK_MPI(MPI_Info_set(early, "early", "yes"));
    CHECK_MPI(MPI_Info_get(early, "early", 7, value, &flag));
    CHECK(flag == 1 && strcmp(value, "yes") == 0);
    CHECK_MPI(MPI_Info_free(&early));
  }
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  PRINT0("np %d\n", size);

  /* ---- set, get, order, replace ---- */
  MPI_Info info, copy;
  char value[MPI_MAX_INFO_VAL + 8];
  char key[MPI_MAX_INFO_KEY + 8];
  int flag = -1, n = -1, vlen = -1, buflen = -1;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK(info != MPI_INFO_NULL);
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 0);
  CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
  CHECK_MPI(MPI_Info_set(info, "beta", "two"));
  CHECK_MPI(MPI_Info_set(info, "gamma", "three33"));
  CHECK_MPI(MPI_Info_set(info, "Alpha", "case sensitive"));
  print_info("created", info);
  CHECK_MPI(MPI_Info_set(info, "alpha", "one, replaced"));
  print_info("alpha replaced (keeps its place)", info);
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
  CHECK(strcmp(key, "alpha") == 0);
  CHECK_MPI(MPI_Info_get_nthkey(info, 3, key));
  CHECK(strcmp(key, "Alpha") == 0);

  /* Info_get: at most valuelen characters, then the terminator */
  memset(value, '#', sizeof value);
  CHECK_MPI(MPI_Info_get(info, "gamma", 3, value, &flag));
  CHECK(flag == 1 && strcmp(value, "thr") == 0 && value[4] == '#');
  PRINT0("get gamma valuelen 3: %s\n", value);
  CHECK_MPI(MPI_Info_get(info, "gamma", 7, value, &flag));
  CHECK(flag == 1 && strcmp(value, "three33") == 0);
  CHECK_MPI(MPI_Info_get(info, "gamma", 100, value, &flag));
  CHECK(flag == 1 && strcmp(value, "three33") == 0);
  memset(value, '#', sizeof value);
  flag = -1;
  CHECK_MPI(MPI_Info_get(info, "delta", 100, value, &flag));
  CHECK(flag == 0 && value[0] == '#');
  PRINT0("get delta: flag %d\n", flag);
  CHECK_MPI(MPI_Info_get_valuelen(info, "beta", &vlen, &flag));
  CHECK(flag == 1 && vlen == 3);
  vlen = -7;
  CHECK_MPI(MPI_Info_get_valuelen(info, "delta", &vlen, &flag));
  CHECK(flag == 0 && vlen == -7);
  PRINT0("valuelen beta 3, delta flag 0\n");

  /* Info_get_string: buflen counts the terminator and comes back as the length needed */
  buflen = 0;
  CHECK_MPI(get_string(info, "gamma", &buflen, NULL, &flag));
  CHECK(flag == 1 && buflen == 8);
  buflen = 4;
  memset(value, '#', sizeof value);
  CHECK_MPI(get_string(info, "gamma", &buflen, value, &flag));
  CHECK(flag == 1 && buflen == 8 && strcmp(value, "thr") == 0 && value[4] == '#');
  buflen = 8;
  CHECK_MPI(get_string(info, "gamma", &buflen, value, &flag));
  CHECK(flag == 1 && buflen == 8 && strcmp(value, "three33") == 0);
  buflen = 1;
  CHECK_MPI(get_string(info, "gamma", &buflen, value, &flag));
  CHECK(flag == 1 && buflen == 8 && value[0] == '\0');
  buflen = 5;
  memset(value, '#', sizeof value);
  CHECK_MPI(get_string(info, "delta", &buflen, value, &flag));
  CHECK(flag == 0 && buflen == 5 && value[0] == '#');
  PRINT0("get_string gamma: length 8, truncated to 3 with buflen 4; delta flag 0\n");

  /* ---- delete, dup, free ---- */
  CHECK_MPI(MPI_Info_delete(info, "beta"));
  print_info("beta deleted", info);
  CHECK_MPI(MPI_Info_set(info, "beta", "back at the end"));
  print_info("beta set again", info);
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK(copy != info);
  print_info("dup", copy);
  CHECK_MPI(MPI_Info_set(copy, "alpha", "only in the copy"));
  CHECK_MPI(MPI_Info_delete(copy, "gamma"));
  CHECK_MPI(MPI_Info_set(copy, "epsilon", "5"));
  print_info("dup changed", copy);
  print_info("original unchanged", info);
  CHECK_MPI(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, "one, replaced") == 0);
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 4);
  MPI_Info dead = copy;
  CHECK_MPI(MPI_Info_free(&copy));
  CHECK(copy == MPI_INFO_NULL);
  MPI_Info empty;
  CHECK_MPI(MPI_Info_create(&empty));
  CHECK_MPI(MPI_Info_dup(empty, &copy));
  print_info("dup of an empty info", copy);
  CHECK_MPI(MPI_Info_free(&copy));
  CHECK_MPI(MPI_Info_free(&empty));

  /* ---- the limits: MPI_MAX_INFO_KEY - 1 and MPI_MAX_INFO_VAL - 1 characters fit, one more fails ---- */
  {
    char longkey[MPI_MAX_INFO_KEY + 1];
    static char longval[MPI_MAX_INFO_VAL + 1];
    static char got[MPI_MAX_INFO_VAL + 1];
    memset(longkey, 'k', MPI_MAX_INFO_KEY);
    longkey[MPI_MAX_INFO_KEY - 1] = '\0';
    for (int i = 0; i < MPI_MAX_INFO_VAL; ++i) longval[i] = (char)('a' + i % 26);
    longval[MPI_MAX_INFO_VAL - 1] = '\0';
    CHECK_MPI(MPI_Info_set(info, longkey, longval));
    CHECK_MPI(MPI_Info_get_valuelen(info, longkey, &vlen, &flag));
    CHECK(flag == 1 && vlen == MPI_MAX_INFO_VAL - 1);
    CHECK_MPI(MPI_Info_get(info, longkey, MPI_MAX_INFO_VAL, got, &flag));
    CHECK(flag == 1 && strcmp(got, longval) == 0);
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_MPI(MPI_Info_get_nthkey(info, n - 1, key));
    CHECK(strcmp(key, longkey) == 0);
    PRINT0("key of MPI_MAX_INFO_KEY - 1 and value of MPI_MAX_INFO_VAL - 1 characters: stored, read back\n");
    CHECK_MPI(MPI_Info_delete(info, longkey));
    longkey[MPI_MAX_INFO_KEY - 1] = 'k';
    longkey[MPI_MAX_INFO_KEY] = '\0';
    expect_class("info_set key of MPI_MAX_INFO_KEY characters", MPI_Info_set(info, longkey, "v"),
                 MPI_ERR_INFO_KEY);
    expect_class("info_get key of MPI_MAX_INFO_KEY characters", MPI_Info_get(info, longkey, 10, value, &flag),
                 MPI_ERR_INFO_KEY);
    expect_class("info_delete key of MPI_MAX_INFO_KEY characters", MPI_Info_delete(info, longkey),
                 MPI_ERR_INFO_KEY);
    longval[MPI_MAX_INFO_VAL - 1] = 'x';
    longval[MPI_MAX_INFO_VAL] = '\0';
    expect_class("info_set value of MPI_MAX_INFO_VAL characters", MPI_Info_set(info, "k", longval),
                 MPI_ERR_INFO_VALUE);
  }

  /* ---- bad input ---- */
  expect_class("info_set empty key", MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
  expect_class("info_delete of a missing key", MPI_Info_delete(info, "delta"), MPI_ERR_INFO_NOKEY);
  expect_class("info_dup of MPI_INFO_NULL", MPI_Info_dup(MPI_INFO_NULL, &copy), MPI_ERR_INFO);
  expect_class("info_set on MPI_INFO_NULL", MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
  expect_class("info_get_nkeys of MPI_INFO_NULL", MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  expect_class("info_get_nthkey past the end", MPI_Info_get_nthkey(info, n, key), MPI_ERR_ARG);
  expect_class("info_get_nthkey -1", MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
  expect_class("info_get negative valuelen", MPI_Info_get(info, "alpha", -1, value, &flag), MPI_ERR_ARG);
  if (takyon_mpi()) { /* Open MPI 4.1 crashes on freed or garbage handles, NULL pointers */
    MPI_Info garbage = (MPI_Info)(&garbage);
    expect_class("info_get on a freed info", MPI_Info_get(dead, "alpha", 10, value, &flag), MPI_ERR_INFO);
    expect_class("info_set on a freed info", MPI_Info_set(dead, "alpha", "x"), MPI_ERR_INFO);
    expect_class("info_free of a freed info", MPI_Info_free(&dead), MPI_ERR_INFO);
    expect_class("info_dup of a garbage handle", MPI_Info_dup(garbage, &copy), MPI_ERR_INFO);
    expect_class("info_get_nkeys of a garbage handle", MPI_Info_get_nkeys(garbage, &n), MPI_ERR_INFO);
    MPI_Info null_info = MPI_INFO_NULL;
    expect_class("info_free of MPI_INFO_NULL", MPI_Info_free(&null_info), MPI_ERR_INFO);
    expect_class("info_create NULL", MPI_Info_create(NULL), MPI_ERR_ARG);
    expect_class("info_set NULL key", MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY);
    expect_class("info_set NULL value", MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE);
    expect_class("info_get NULL flag", MPI_Info_get(info, "alpha", 10, value, NULL), MPI_ERR_ARG);
    expect_class("info_get_valuelen NULL valuelen", MPI_Info_get_valuelen(info, "alpha", NULL, &flag),
                 MPI_ERR_ARG);
    expect_class("info_get_nthkey NULL key", MPI_Info_get_nthkey(info, 0, NULL), MPI_ERR_ARG);
    buflen = -1;
    expect_class("info_get_string negative buflen", get_string(info, "alpha", &buflen, value, &flag),
                 MPI_ERR_ARG);
    buflen = 4;
    expect_class("info_get_string NULL value", get_string(info, "alpha", &buflen, NULL, &flag), MPI_ERR_ARG);
    expect_class("info_get_string on a freed info", get_string(dead, "alpha", &buflen, value, &flag),
                 MPI_ERR_INFO);
    /* an empty value is legal here (Open MPI refuses it) */
    CHECK_MPI(MPI_Info_set(info, "empty", ""));
    CHECK_MPI(MPI_Info_get_valuelen(info, "empty", &vlen, &flag));
    CHECK(flag == 1 && vlen == 0);
    CHECK_MPI(MPI_Info_delete(info, "empty"));
    void *mem = NULL;
    expect_class("alloc_mem with a freed info", MPI_Alloc_mem(64, dead, &mem), MPI_ERR_INFO);
    check_info_env(argc, argv);
  } else {
    PRINT0(
        "info_get on a freed info: MPI_ERR_INFO\ninfo_set on a freed info: MPI_ERR_INFO\n"
        "info_free of a freed info: MPI_ERR_INFO\ninfo_dup of a garbage handle: MPI_ERR_INFO\n"
        "info_get_nkeys of a garbage handle: MPI_ERR_INFO\ninfo_free of MPI_INFO_NULL: MPI_ERR_INFO\n"
        "info_create NULL: MPI_ERR_ARG\ninfo_set NULL key: MPI_ERR_INFO_KEY\n"
        "info_set NULL value: MPI_ERR_INFO_VALUE\ninfo_get NULL flag: MPI_ERR_ARG\n"
        "info_get_valuelen NULL valuelen: MPI_ERR_ARG\ninfo_get_nthkey NULL key: MPI_ERR_ARG\n"
        "info_get_string negative buflen: MPI_ERR_ARG\ninfo_get_string NULL value: MPI_ERR_ARG\n"
        "info_get_string on a freed info: MPI_ERR_INFO\nalloc_mem with a freed info: MPI_ERR_INFO\n"
        "info_set on MPI_INFO_ENV: MPI_ERR_INFO\ninfo_delete on MPI_INFO_ENV: MPI_ERR_INFO\n"
        "info_free of MPI_INFO_ENV: MPI_ERR_INFO\n");
  }
  print_info("after the bad calls", info);
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK(n >= 0);

  /* ---- functions that take an info: hints ignored, handles checked ---- */
  {
    void *mem = NULL;
    CHECK_MPI(MPI_Alloc_mem(4096, info, &mem));
    fill_pattern(mem, 4096, 7);
    CHECK(check_pattern(mem, 4096, 7) < 0);
    CHECK_MPI(MPI_Free_mem(mem));
    CHECK_MPI(MPI_Alloc_mem(64, MPI_INFO_NULL, &mem));
    CHECK_MPI(MPI_Free_mem(mem));
    MPI_Comm dup, shared;
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 5, &got, 1, MPI_INT, from, 5, dup, MPI_STATUS_IGNORE));
    CHECK(got == from);
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, info, &shared));
    int ssize = 0;
    CHECK_MPI(MPI_Comm_size(shared, &ssize));
    CHECK(ssize == size);
    CHECK_MPI(MPI_Comm_free(&shared));
    PRINT0("alloc_mem, comm_dup_with_info, comm_split_type with an info: ok\n");
    if (takyon_mpi()) { /* a bad info on rank 0 only: it fails with MPI_ERR_INFO, the others with
                           MPI_ERR_OTHER */
      MPI_Info mine = rank == 0 ? dead : info;
      int rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, mine, &dup);
      int cls = -1;
      CHECK(rc != MPI_SUCCESS);
      CHECK_MPI(MPI_Error_class(rc, &cls));
      CHECK(cls == (rank == 0 ? MPI_ERR_INFO : MPI_ERR_OTHER));
      rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, mine, &shared);
      CHECK(rc != MPI_SUCCESS);
      CHECK_MPI(MPI_Error_class(rc, &cls));
      CHECK(cls == (rank == 0 ? MPI_ERR_INFO : MPI_ERR_OTHER));
    }
    PRINT0("comm_dup_with_info, comm_split_type with a freed info on rank 0: every rank fails\n");
  }
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL);

  /* ---- added error classes, codes and strings ---- */
  {
    int *lastused = NULL, e1 = -1, e2 = -1, e3 = -1, e4 = -1, cls = -1;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK(flag == 1 && *lastused >= MPI_ERR_LASTCODE);
    int first_last = *lastused;
    CHECK_MPI(MPI_Add_error_class(&e1));
    CHECK(e1 > MPI_ERR_LASTCODE && e1 > first_last);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK(flag == 1 && *lastused == e1);
    CHECK_MPI(MPI_Add_error_code(e1, &e2));
    CHECK_MPI(MPI_Add_error_code(e1, &e3));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &e4));
    CHECK(e2 > e1 && e3 > e2 && e4 > e3);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK(flag == 1 && *lastused == e4);
    PRINT0("added class and 3 codes: above MPI_ERR_LASTCODE, increasing, MPI_LASTUSEDCODE follows\n");
    CHECK_MPI(MPI_Error_class(e1, &cls));
    CHECK(cls == e1 || !takyon_mpi()); /* Open MPI 4.1 answers MPI_ERR_UNKNOWN for an added class */
    CHECK_MPI(MPI_Error_class(e2, &cls));
    CHECK(cls == e1);
    CHECK_MPI(MPI_Error_class(e4, &cls));
    CHECK(cls == MPI_ERR_ARG);
    CHECK_MPI(MPI_Error_string(e2, text, &len));
    CHECK(len == 0 && text[0] == '\0');
    CHECK_MPI(MPI_Add_error_string(e1, "my error class"));
    CHECK_MPI(MPI_Add_error_string(e2, "my first code"));
    CHECK_MPI(MPI_Add_error_string(e4, "an argument of mine"));
    CHECK_MPI(MPI_Add_error_string(e2, "my first code, renamed"));
    int codes[4] = {e1, e2, e3, e4};
    for (int i = 0; i < 4; ++i) {
      CHECK_MPI(MPI_Error_string(codes[i], text, &len));
      CHECK((int)strlen(text) == len);
      CHECK_MPI(MPI_Error_class(codes[i], &cls));
      if (i == 0) cls = e1; /* as above */
      PRINT0("added %d: class %s, string '%s'\n", i,
             cls == MPI_ERR_ARG ? "MPI_ERR_ARG"
             : cls == e1        ? "added"
                                : "?",
             text);
    }
    /* a user handler receives the added code */
    MPI_Errhandler eh;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_create_errhandler(record_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, eh));
    CHECK_MPI(MPI_Comm_call_errhandler(comm, e3));
    CHECK(handler_calls == 1 && handler_code == e3);
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_free(&comm));
    PRINT0("comm_call_errhandler with an added code: the handler got it\n");
    expect_class("add_error_string on a predefined code", MPI_Add_error_string(MPI_ERR_ARG, "no"),
                 MPI_ERR_ARG);
    expect_class("add_error_code of an added code", MPI_Add_error_code(e2, &e3), MPI_ERR_ARG);
    if (takyon_mpi()) {
      static char longtext[MPI_MAX_ERROR_STRING + 1];
      memset(longtext, 's', MPI_MAX_ERROR_STRING);
      expect_class("add_error_string too long", MPI_Add_error_string(e1, longtext), MPI_ERR_ARG);
      expect_class("add_error_string NULL", MPI_Add_error_string(e1, NULL), MPI_ERR_ARG);
      expect_class("add_error_string of an unknown code", MPI_Add_error_string(e4 + 100, "x"), MPI_ERR_ARG);
      expect_class("add_error_code of an unknown class", MPI_Add_error_code(e4 + 100, &e3), MPI_ERR_ARG);
      expect_class("add_error_class NULL", MPI_Add_error_class(NULL), MPI_ERR_ARG);
      expect_class("error_class of an unknown code", MPI_Error_class(e4 + 100, &cls), MPI_ERR_ARG);
      expect_class("error_string of an unknown code", MPI_Error_string(e4 + 100, text, &len), MPI_ERR_ARG);
      CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
      CHECK(*lastused == e4); /* failed calls add nothing */
      /* every predefined class answers Error_class and Error_string */
      for (int c = 0; c <= 62; ++c) {
        CHECK_MPI(MPI_Error_class(c, &cls));
        CHECK(cls == c);
        CHECK_MPI(MPI_Error_string(c, text, &len));
        CHECK(len > 0);
      }
    } else {
      PRINT0(
          "add_error_string too long: MPI_ERR_ARG\nadd_error_string NULL: MPI_ERR_ARG\n"
          "add_error_string of an unknown code: MPI_ERR_ARG\nadd_error_code of an unknown class: "
          "MPI_ERR_ARG\n"
          "add_error_class NULL: MPI_ERR_ARG\nerror_class of an unknown code: MPI_ERR_ARG\n"
          "error_string of an unknown code: MPI_ERR_ARG\n");
    }
  }

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  PRINT0("done\n");
  MPI_Finalize();
  return 0;
}
