/* SPDX-License-Identifier: MIT */
/* Datatype queries and names: MPI_Type_get_extent_x / get_true_extent_x (equal to the MPI_Aint forms),
 * MPI_Type_match_size for every class and size, MPI_ERR_ARG where nothing matches, the names of the
 * synonym handles (MPI_LONG_LONG / MPI_LONG_LONG_INT, MPI_C_FLOAT_COMPLEX / MPI_C_COMPLEX), and, under
 * libtakyon_mpi, the MPI-1 names (MPI_Address, Type_hvector, Type_hindexed, Type_struct, Type_extent,
 * Type_lb, Type_ub) that mpi.h declares with TAKYON_MPI_ENABLE_MPI1_COMPAT. np 1-2. */
#define TAKYON_MPI_ENABLE_MPI1_COMPAT 1
#include "test_util.h"

static const char *name_of(MPI_Datatype t) {
  static char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK((int)strlen(name) == len);
  return name;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);

  MPI_Datatype vec, shifted;
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, -16, 200, &shifted));
  MPI_Datatype all[] = {MPI_INT, MPI_DOUBLE_INT, vec, shifted};
  for (int i = 0; i < 4; ++i) {
    MPI_Aint lb, ext, tlb, text;
    MPI_Count lbx, extx, tlbx, textx;
    CHECK_MPI(MPI_Type_get_extent(all[i], &lb, &ext));
    CHECK_MPI(MPI_Type_get_true_extent(all[i], &tlb, &text));
    CHECK_MPI(MPI_Type_get_extent_x(all[i], &lbx, &extx));
    CHECK_MPI(MPI_Type_get_true_extent_x(all[i], &tlbx, &textx));
    CHECK(lbx == lb && extx == ext && tlbx == tlb && textx == text);
    PRINT0("extent_x: lb %lld extent %lld true lb %lld true extent %lld\n", (long long)lbx, (long long)extx,
           (long long)tlbx, (long long)textx);
  }

  struct {
    int cls;
    const char *name;
  } classes[] = {
      {MPI_TYPECLASS_INTEGER, "integer"}, {MPI_TYPECLASS_REAL, "real"}, {MPI_TYPECLASS_COMPLEX, "complex"}};
  const int sizes[] = {1, 2, 4, 8, 16, 32};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int c = 0; c < 3; ++c) {
    for (int s = 0; s < 6; ++s) {
      MPI_Datatype t = MPI_DATATYPE_NULL;
      int rc = MPI_Type_match_size(classes[c].cls, sizes[s], &t);
      /* Sizes both libraries have a type for (Open MPI 4.1 lacks MPI_INTEGER16, MPI_REAL2, MPI_COMPLEX4). */
      int common = !((c == 0 && sizes[s] > 8) || (c == 1 && (sizes[s] < 4 || sizes[s] > 16)) ||
                     (c == 2 && (sizes[s] < 8)));
      if (rc == MPI_SUCCESS) {
        int got = -1;
        CHECK_MPI(MPI_Type_size(t, &got));
        CHECK(got == sizes[s]);
      } else {
        expect_error("match_size without a match", rc, MPI_ERR_ARG);
      }
      if (common) {
        CHECK(rc == MPI_SUCCESS);
        PRINT0("match_size %s %d: %s\n", classes[c].name, sizes[s], name_of(t));
      }
    }
  }
  const int none[][2] = {{MPI_TYPECLASS_INTEGER, 3},
                         {MPI_TYPECLASS_REAL, 1},
                         {MPI_TYPECLASS_COMPLEX, 2},
                         {MPI_TYPECLASS_REAL, 64}};
  for (int i = 0; i < 4; ++i) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    expect_error("match_size without a match", MPI_Type_match_size(none[i][0], none[i][1], &t), MPI_ERR_ARG);
  }
  PRINT0("match_size without a match: MPI_ERR_ARG\n");
  MPI_Datatype t;
  expect_class("match_size of a bad class", MPI_Type_match_size(12345, 4, &t), MPI_ERR_ARG);

  PRINT0("names: %s", name_of(MPI_LONG_LONG));
  PRINT0(" %s", name_of(MPI_LONG_LONG_INT));
  PRINT0(" %s", name_of(MPI_C_COMPLEX));
  PRINT0(" %s", name_of(MPI_C_FLOAT_COMPLEX));
  PRINT0(" %s\n", name_of(MPI_CXX_FLOAT_COMPLEX));

#ifdef TAKYON_MPI_H_
  /* The MPI-1 names: each the same type as its MPI-2 replacement. */
  double a[10];
  MPI_Aint addr0, addr1, ext, lb, ub;
  CHECK_MPI(MPI_Address(&a[0], &addr0));
  CHECK_MPI(MPI_Address(&a[3], &addr1));
  CHECK(addr1 - addr0 == 3 * (MPI_Aint)sizeof(double));
  MPI_Datatype hv, hi, st;
  CHECK_MPI(MPI_Type_hvector(2, 1, 24, MPI_DOUBLE, &hv));
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {8, 40};
  CHECK_MPI(MPI_Type_hindexed(2, bl, disp, MPI_DOUBLE, &hi));
  MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_struct(2, bl, disp, ty, &st));
  CHECK_MPI(MPI_Type_extent(hv, &ext));
  CHECK(ext == 32);
  CHECK_MPI(MPI_Type_lb(hi, &lb));
  CHECK_MPI(MPI_Type_ub(hi, &ub));
  CHECK(lb == 8 && ub == 56);
  CHECK_MPI(MPI_Type_lb(shifted, &lb));
  CHECK_MPI(MPI_Type_ub(shifted, &ub));
  CHECK(lb == -16 && ub == 184);
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(st, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);
  CHECK_MPI(MPI_Type_extent(st, &ext));
  CHECK(ext == 48); /* from 8 to 56 */
  int rc = MPI_Type_extent(MPI_DATATYPE_NULL, &ext);
  expect_error("MPI_Type_extent of MPI_DATATYPE_NULL", rc, MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&hv));
  CHECK_MPI(MPI_Type_free(&hi));
  CHECK_MPI(MPI_Type_free(&st));
#endif
  PRINT0("mpi-1 names: ok\n");
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&shifted));
  MPI_Finalize();
  return 0;
}
