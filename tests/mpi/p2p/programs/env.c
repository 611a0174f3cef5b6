/* SPDX-License-Identifier: MIT */
/* The environment: Initialized/Finalized, Init_thread levels, Query_thread, Is_thread_main,
 * versions, processor name, Wtime/Wtick, Comm_get_attr, Alloc_mem/Free_mem, COMM_SELF, basic
 * datatypes over the wire (each predefined C type's size survives a round trip). np 1-4. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#include "test_util.h"

int main(int argc, char **argv) {
  int flag = 1, provided = -1;
  MPI_Initialized(&flag);
  CHECK(!flag);
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK(provided == MPI_THREAD_FUNNELED);
  MPI_Initialized(&flag);
  CHECK(flag);
  MPI_Finalized(&flag);
  CHECK(!flag);
  int q = -1;
  CHECK_MPI(MPI_Query_thread(&q));
  CHECK(q == provided);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag);
  int version = 0, subversion = -1;
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK(version >= 3);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING], name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  CHECK(len > 0);
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && (int)strlen(name) == len);
  double t0 = MPI_Wtime(), tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 0.01 && MPI_Wtime() >= t0);
  int rank = world_rank(), size = world_size();
  int *val = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
  CHECK(flag && *val >= 32767);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
  CHECK(!flag || *val == 0 || *val == 1);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
  CHECK(!flag || *val == 0);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag));
  CHECK(!flag || *val >= 1); /* Open MPI reports the slots, not np */
  int srank = -1, ssize = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
  CHECK(srank == 0 && ssize == 1);
  PRINT0("environment ok (np %d)\n", size);

  double *mem = NULL;
  CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
  CHECK(mem != NULL);
  for (int i = 0; i < (1 << 17); ++i) mem[i] = i;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double *in = NULL;
  CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &in));
  CHECK_MPI(MPI_Sendrecv(mem, 1 << 17, MPI_DOUBLE, next, 1, in, 1 << 17, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int i = 0; i < (1 << 17); ++i) CHECK(in[i] == i);
  CHECK_MPI(MPI_Free_mem(mem));
  CHECK_MPI(MPI_Free_mem(in));
  PRINT0("alloc_mem ok\n");

  struct {
    MPI_Datatype dt;
    size_t size;
    const char *name;
  } types[] = {
      {MPI_CHAR, sizeof(char), "MPI_CHAR"},
      {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR"},
      {MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR"},
      {MPI_BYTE, 1, "MPI_BYTE"},
      {MPI_SHORT, sizeof(short), "MPI_SHORT"},
      {MPI_UNSIGNED_SHORT, sizeof(short), "MPI_UNSIGNED_SHORT"},
      {MPI_INT, sizeof(int), "MPI_INT"},
      {MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED"},
      {MPI_LONG, sizeof(long), "MPI_LONG"},
      {MPI_UNSIGNED_LONG, sizeof(long), "MPI_UNSIGNED_LONG"},
      {MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG"},
      {MPI_UNSIGNED_LONG_LONG, sizeof(long long), "MPI_UNSIGNED_LONG_LONG"},
      {MPI_FLOAT, sizeof(float), "MPI_FLOAT"},
      {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE"},
      {MPI_WCHAR, sizeof(wchar_t), "MPI_WCHAR"},
      {MPI_C_BOOL, sizeof(bool), "MPI_C_BOOL"},
      {MPI_INT8_T, 1, "MPI_INT8_T"},
      {MPI_INT16_T, 2, "MPI_INT16_T"},
      {MPI_INT32_T, 4, "MPI_INT32_T"},
      {MPI_INT64_T, 8, "MPI_INT64_T"},
      {MPI_UINT8_T, 1, "MPI_UINT8_T"},
      {MPI_UINT16_T, 2, "MPI_UINT16_T"},
      {MPI_UINT32_T, 4, "MPI_UINT32_T"},
      {MPI_UINT64_T, 8, "MPI_UINT64_T"},
      {MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), "MPI_C_FLOAT_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), "MPI_C_DOUBLE_COMPLEX"},
      {MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), "MPI_C_LONG_DOUBLE_COMPLEX"},
      {MPI_AINT, sizeof(MPI_Aint), "MPI_AINT"},
      {MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET"},
      {MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT"},
      {MPI_PACKED, 1, "MPI_PACKED"},
      {MPI_2INT, 2 * sizeof(int), "MPI_2INT"},
  };
  unsigned char out[7 * 64], got[7 * 64];
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    size_t bytes = 7 * types[t].size;
    fill_pattern(out, bytes, (unsigned)t);
    memset(got, 0, sizeof got);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, 7, types[t].dt, next, 2, got, 7, types[t].dt, prev, 2, MPI_COMM_WORLD, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, types[t].dt, &count));
    if (count != 7 || check_pattern(got, bytes, (unsigned)t) != -1) {
      fprintf(stderr, "%s: count %d\n", types[t].name, count);
      CHECK(0);
    }
  }
  /* pair types with padding: only the members travel, so compare members */
  struct {
    double d;
    int i;
  } di_out[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, di_in[3];
  memset(di_in, 0, sizeof di_in);
  CHECK_MPI(MPI_Sendrecv(di_out, 3, MPI_DOUBLE_INT, next, 3, di_in, 3, MPI_DOUBLE_INT, prev, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 3; ++i) CHECK(di_in[i].d == di_out[i].d && di_in[i].i == di_out[i].i);
  PRINT0("basic datatypes ok\n");
  MPI_Finalize();
  MPI_Finalized(&flag);
  CHECK(flag);
  return 0;
}
