/* SPDX-License-Identifier: MIT */
/* A communicator's info hints and MPI_Info_create_env: MPI_Comm_set_info keeps the MPI-4 assertions
 * (mpi_assert_*) and drops keys it does not use, MPI_Comm_get_info returns what is kept, a second
 * set_info updates a value, MPI_Comm_dup copies the hints, MPI_Comm_dup_with_info takes its info's,
 * a split starts with none; MPI_Info_create_env holds MPI_INFO_ENV's keys (command from argv). Which
 * unknown keys an implementation keeps differs (Open MPI keeps them), and Open MPI 4.1 has no
 * MPI_Info_create_env: not compared, checked here. */
#include "test_util.h"

static int has(MPI_Info info, const char *key, const char *value) {
  char buf[MPI_MAX_INFO_VAL];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, buf, &flag));
  return flag && (value == NULL || strcmp(buf, value) == 0);
}

static int nkeys(MPI_Info info) {
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  return n;
}

int main(int argc, char **argv) {
  /* Before MPI_Init: allowed (MPI-4). */
  MPI_Info env;
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env));
  CHECK(has(env, "command", argv[0]));
  CHECK(has(env, "host", NULL) && has(env, "wdir", NULL));
  CHECK_MPI(MPI_Info_free(&env));
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Info_create_env(0, NULL, &env)); /* argv NULL: the process's command line */
  CHECK(has(env, "maxprocs", NULL) && has(env, "command", NULL));
  CHECK_MPI(MPI_Info_free(&env));

  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Info in, out;
  CHECK_MPI(MPI_Comm_get_info(dup, &out));
  CHECK(nkeys(out) == 0);
  CHECK_MPI(MPI_Info_free(&out));
  CHECK_MPI(MPI_Info_create(&in));
  CHECK_MPI(MPI_Info_set(in, "invalid_test_key", "true"));
  CHECK_MPI(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
  CHECK_MPI(MPI_Info_set(in, "mpi_assert_exact_length", "maybe")); /* not a boolean: dropped */
  CHECK_MPI(MPI_Comm_set_info(dup, in));
  CHECK_MPI(MPI_Comm_get_info(dup, &out));
  CHECK(has(out, "mpi_assert_no_any_tag", "true"));
  CHECK(!has(out, "invalid_test_key", NULL) && !has(out, "mpi_assert_exact_length", NULL));
  CHECK(nkeys(out) == 1);
  CHECK_MPI(MPI_Info_free(&out));
  CHECK_MPI(MPI_Info_free(&in));
  /* Set again: the value changes, the other hints stay. */
  CHECK_MPI(MPI_Info_create(&in));
  CHECK_MPI(MPI_Info_set(in, "mpi_assert_no_any_tag", "false"));
  CHECK_MPI(MPI_Info_set(in, "mpi_assert_allow_overtaking", "true"));
  CHECK_MPI(MPI_Comm_set_info(dup, in));
  CHECK_MPI(MPI_Info_free(&in));
  CHECK_MPI(MPI_Comm_get_info(dup, &out));
  CHECK(has(out, "mpi_assert_no_any_tag", "false") && has(out, "mpi_assert_allow_overtaking", "true"));
  CHECK(nkeys(out) == 2);
  CHECK_MPI(MPI_Info_free(&out));
  /* Dup copies them; dup_with_info takes the given info's; split starts with none. */
  MPI_Comm dup2, withinfo, split;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  CHECK_MPI(MPI_Comm_get_info(dup2, &out));
  CHECK(has(out, "mpi_assert_allow_overtaking", "true") && nkeys(out) == 2);
  CHECK_MPI(MPI_Info_free(&out));
  CHECK_MPI(MPI_Info_create(&in));
  CHECK_MPI(MPI_Info_set(in, "mpi_assert_no_any_source", "true"));
  CHECK_MPI(MPI_Comm_dup_with_info(dup, in, &withinfo));
  CHECK_MPI(MPI_Info_free(&in));
  CHECK_MPI(MPI_Comm_get_info(withinfo, &out));
  CHECK(has(out, "mpi_assert_no_any_source", "true") && nkeys(out) == 1);
  CHECK_MPI(MPI_Info_free(&out));
  CHECK_MPI(MPI_Comm_split(dup, 0, 0, &split));
  CHECK_MPI(MPI_Comm_get_info(split, &out));
  CHECK(nkeys(out) == 0);
  CHECK_MPI(MPI_Info_free(&out));
  /* The communicators still work. */
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, withinfo));
  CHECK(sum == world_size());
  /* Errors. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  expect_class("MPI_Comm_set_info with MPI_INFO_NULL", MPI_Comm_set_info(dup, MPI_INFO_NULL), MPI_ERR_INFO);
  expect_class("MPI_Comm_get_info with info_used NULL", MPI_Comm_get_info(dup, NULL), MPI_ERR_ARG);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_class("MPI_Info_create_env with info NULL", MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_free(&split));
  CHECK_MPI(MPI_Comm_free(&withinfo));
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));
  PRINT0("comm info hints and MPI_Info_create_env: ok\n");
  MPI_Finalize();
  return 0;
}
