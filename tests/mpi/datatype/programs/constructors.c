/* SPDX-License-Identifier: MIT */
/* Every datatype constructor, nested ones and negative strides: size, lb, extent, true lb/extent,
 * Get_elements of whole items, names of predefined types, Get_address, dup, resized, subarray, and
 * the pair types (size = sum of members, extent with padding). Printed on rank 0 and compared with
 * Open MPI; every rank checks the same values. np 1-5. */
#include <stddef.h>

#include "test_util.h"

static void show(const char *what, MPI_Datatype t) {
  int size = -1;
  MPI_Count size_x = -1;
  MPI_Aint lb = -1, extent = -1, tlb = -1, textent = -1;
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK_MPI(MPI_Type_size_x(t, &size_x));
  CHECK(size_x == size);
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_MPI(MPI_Type_get_true_extent(t, &tlb, &textent));
  PRINT0("%-28s size %3d lb %4ld extent %4ld true_lb %4ld true_extent %4ld\n", what, size, (long)lb,
         (long)extent, (long)tlb, (long)textent);
}

static const char *combiner_name(int c) {
  switch (c) {
    case MPI_COMBINER_NAMED:
      return "NAMED";
    case MPI_COMBINER_DUP:
      return "DUP";
    case MPI_COMBINER_CONTIGUOUS:
      return "CONTIGUOUS";
    case MPI_COMBINER_VECTOR:
      return "VECTOR";
    case MPI_COMBINER_HVECTOR:
      return "HVECTOR";
    case MPI_COMBINER_INDEXED:
      return "INDEXED";
    case MPI_COMBINER_HINDEXED:
      return "HINDEXED";
    case MPI_COMBINER_INDEXED_BLOCK:
      return "INDEXED_BLOCK";
    case MPI_COMBINER_HINDEXED_BLOCK:
      return "HINDEXED_BLOCK";
    case MPI_COMBINER_STRUCT:
      return "STRUCT";
    case MPI_COMBINER_SUBARRAY:
      return "SUBARRAY";
    case MPI_COMBINER_RESIZED:
      return "RESIZED";
    default:
      return "other";
  }
}

/* MPI_Type_get_envelope and get_contents: the constructor, its integers and addresses, and its input
 * types (predefined ones by name; derived ones by their own combiner and size, then freed). */
static void contents(const char *what, MPI_Datatype t) {
  int ni = -1, na = -1, nd = -1, comb = -1;
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  PRINT0("  %s: %s ints %d addresses %d types %d:", what, combiner_name(comb), ni, na, nd);
  if (comb == MPI_COMBINER_NAMED) {
    PRINT0("\n");
    return;
  }
  int ints[64];
  MPI_Aint aints[64];
  MPI_Datatype types[64];
  CHECK(ni <= 64 && na <= 64 && nd <= 64);
  CHECK_MPI(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
  for (int i = 0; i < ni; ++i) {
    if (comb == MPI_COMBINER_SUBARRAY && i == ni - 1) { /* the order constants differ between ABIs */
      PRINT0(" %s", ints[i] == MPI_ORDER_C         ? "MPI_ORDER_C"
                    : ints[i] == MPI_ORDER_FORTRAN ? "MPI_ORDER_FORTRAN"
                                                   : "?");
    } else {
      PRINT0(" %d", ints[i]);
    }
  }
  PRINT0(" |");
  for (int i = 0; i < na; ++i) PRINT0(" %ld", (long)aints[i]);
  PRINT0(" |");
  for (int i = 0; i < nd; ++i) {
    int ci, ca, cd, cc, size;
    CHECK_MPI(MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc));
    if (cc == MPI_COMBINER_NAMED) {
      char name[MPI_MAX_OBJECT_NAME];
      int len;
      CHECK_MPI(MPI_Type_get_name(types[i], name, &len));
      PRINT0(" %s", name);
    } else {
      CHECK_MPI(MPI_Type_size(types[i], &size));
      PRINT0(" derived %s of size %d", combiner_name(cc), size);
      CHECK_MPI(MPI_Type_free(&types[i]));
    }
  }
  PRINT0("\n");
}

static MPI_Datatype commit(MPI_Datatype t) {
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void done(MPI_Datatype *t) {
  CHECK_MPI(MPI_Type_free(t));
  CHECK(*t == MPI_DATATYPE_NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype t, u, v;

  contents("MPI_INT", MPI_INT);

  /* Predefined types and their names. */
  const MPI_Datatype named[] = {MPI_CHAR,           MPI_INT,       MPI_DOUBLE,           MPI_FLOAT,
                                MPI_BYTE,           MPI_INT64_T,   MPI_UNSIGNED,         MPI_SHORT,
                                MPI_LONG,           MPI_PACKED,    MPI_C_DOUBLE_COMPLEX, MPI_DOUBLE_INT,
                                MPI_2INT,           MPI_SHORT_INT, MPI_LONG_INT,         MPI_FLOAT_INT,
                                MPI_LONG_DOUBLE_INT};
  for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); ++i) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Type_get_name(named[i], name, &len));
    CHECK(len == (int)strlen(name));
    show(name, named[i]);
  }

  /* contiguous, vector (positive and negative stride), hvector */
  CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &t));
  show("contiguous(5,int)", t);
  contents("contiguous", t);
  done(&t);
  CHECK_MPI(MPI_Type_contiguous(0, MPI_DOUBLE, &t));
  show("contiguous(0,double)", t);
  done(&t);
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &t));
  show("vector(3,2,5,int)", t);
  contents("vector", t);
  CHECK_MPI(MPI_Type_vector(4, 1, -3, MPI_DOUBLE, &u));
  show("vector(4,1,-3,double)", u);
  CHECK_MPI(MPI_Type_contiguous(2, t, &v));
  show("contiguous(2,vector)", v);
  done(&v);
  CHECK_MPI(MPI_Type_vector(2, 1, 3, t, &v));
  show("vector(2,1,3,vector)", v);
  done(&v);
  CHECK_MPI(MPI_Type_create_hvector(3, 1, -40, u, &v));
  show("hvector(3,1,-40,negvector)", v);
  contents("hvector", v);
  done(&v);
  done(&u);
  CHECK_MPI(MPI_Type_create_hvector(3, 2, 20, MPI_SHORT, &u));
  show("hvector(3,2,20,short)", u);
  done(&u);

  /* indexed family */
  int bl[3] = {2, 0, 3};
  int disp[3] = {4, 1, -2};
  MPI_Aint hdisp[3] = {16, 3, -5};
  CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_INT, &u));
  show("indexed(int)", u);
  CHECK_MPI(MPI_Type_indexed(3, bl, disp, t, &v));
  show("indexed(vector)", v);
  contents("indexed", v);
  done(&v);
  done(&u);
  CHECK_MPI(MPI_Type_create_hindexed(3, bl, hdisp, MPI_INT, &u));
  show("hindexed(int)", u);
  contents("hindexed", u);
  done(&u);
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_DOUBLE, &u));
  show("indexed_block(2,double)", u);
  contents("indexed_block", u);
  done(&u);
  CHECK_MPI(MPI_Type_create_hindexed_block(3, 1, hdisp, MPI_CHAR, &u));
  show("hindexed_block(1,char)", u);
  contents("hindexed_block", u);
  done(&u);
  CHECK_MPI(MPI_Type_create_hindexed_block(2, 3, hdisp, t, &u));
  show("hindexed_block(3,vector)", u);
  done(&u);

  /* struct: C layout, alignment padding, nested, pair types inside */
  struct S {
    char c;
    double d;
    int i[3];
  } s;
  MPI_Aint base, a_c, a_d, a_i;
  CHECK_MPI(MPI_Get_address(&s, &base));
  CHECK_MPI(MPI_Get_address(&s.c, &a_c));
  CHECK_MPI(MPI_Get_address(&s.d, &a_d));
  CHECK_MPI(MPI_Get_address(&s.i[0], &a_i));
  CHECK(a_c - base == 0 && a_d - base == (MPI_Aint)offsetof(struct S, d));
  CHECK(MPI_Aint_diff(a_i, base) == (MPI_Aint)offsetof(struct S, i));
  CHECK(MPI_Aint_add(base, 8) == base + 8);
  int sbl[3] = {1, 1, 3};
  MPI_Aint sdisp[3] = {a_c - base, a_d - base, a_i - base};
  MPI_Datatype stypes[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  CHECK_MPI(MPI_Type_create_struct(3, sbl, sdisp, stypes, &u));
  show("struct{char,double,int[3]}", u);
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(u, &lb, &extent));
  CHECK(extent == (MPI_Aint)sizeof(struct S));
  MPI_Datatype stypes2[3] = {u, MPI_DOUBLE_INT, t};
  MPI_Aint sdisp2[3] = {0, 200, -100};
  int sbl2[3] = {2, 3, 1};
  CHECK_MPI(MPI_Type_create_struct(3, sbl2, sdisp2, stypes2, &v));
  show("struct{struct,double_int,vec}", v);
  contents("struct", v);
  done(&v);
  MPI_Datatype ic[2] = {MPI_INT, MPI_CHAR};
  MPI_Aint icd[2] = {0, 4};
  int one[2] = {1, 1};
  CHECK_MPI(MPI_Type_create_struct(2, one, icd, ic, &v));
  show("struct{int,char}", v);
  done(&v);
  MPI_Aint icd2[2] = {5, 0};
  MPI_Datatype ii[2] = {MPI_INT, MPI_INT};
  CHECK_MPI(MPI_Type_create_struct(2, one, icd2, ii, &v));
  show("struct{int@5,int@0}", v);
  done(&v);

  /* resized: explicit bounds win inside later constructors; dup keeps the layout */
  CHECK_MPI(MPI_Type_create_resized(u, -8, 64, &v));
  show("resized(struct,-8,64)", v);
  contents("resized", v);
  MPI_Datatype w;
  CHECK_MPI(MPI_Type_contiguous(3, v, &w));
  show("contiguous(3,resized)", w);
  done(&w);
  MPI_Datatype rc[2] = {v, MPI_CHAR};
  MPI_Aint rcd[2] = {0, 100};
  CHECK_MPI(MPI_Type_create_struct(2, one, rcd, rc, &w));
  show("struct{resized,char@100}", w);
  done(&w);
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 12, &w));
  show("resized(int,0,12)", w);
  MPI_Datatype w2;
  CHECK_MPI(MPI_Type_vector(2, 2, 3, w, &w2));
  show("vector(2,2,3,resized int)", w2);
  done(&w2);
  done(&w);
  CHECK_MPI(MPI_Type_dup(v, &w));
  show("dup(resized)", w);
  done(&w);
  CHECK_MPI(MPI_Type_dup(MPI_DOUBLE_INT, &w));
  show("dup(MPI_DOUBLE_INT)", w);
  contents("dup", w);
  done(&w);
  done(&v);
  done(&u);

  /* subarray, both orders */
  int sizes[3] = {4, 5, 6}, subs[3] = {2, 3, 2}, starts[3] = {1, 2, 3};
  CHECK_MPI(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &u));
  show("subarray C 4x5x6", u);
  contents("subarray", u);
  done(&u);
  CHECK_MPI(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &u));
  show("subarray Fortran 4x5x6", u);
  done(&u);

  /* names of derived types */
  CHECK_MPI(MPI_Type_set_name(t, "my vector"));
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  PRINT0("name of t: '%s' (%d)\n", name, len);
  CHECK(strcmp(name, "my vector") == 0 && len == 9);
  CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &u));
  CHECK_MPI(MPI_Type_get_name(u, name, &len));
  PRINT0("name of a new type: '%s' (%d)\n", name, len);
  done(&u);

  /* a predefined type can be renamed */
  CHECK_MPI(MPI_Type_set_name(MPI_UNSIGNED_LONG_LONG, "ull"));
  CHECK_MPI(MPI_Type_get_name(MPI_UNSIGNED_LONG_LONG, name, &len));
  PRINT0("renamed predefined type: '%s' (%d)\n", name, len);
  CHECK(strcmp(name, "ull") == 0);

  /* commit of a predefined type, and of a derived type twice */
  MPI_Datatype p = MPI_INT;
  CHECK_MPI(MPI_Type_commit(&p));
  CHECK(p == MPI_INT);
  t = commit(commit(t));
  done(&t);
  PRINT0("constructors: done\n");
  MPI_Finalize();
  return 0;
}
