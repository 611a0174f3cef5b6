/* SPDX-License-Identifier: MIT */
/* mpi.h against the MPI-5.0 standard ABI: the expected numbers below are typed from the standard's tables
 * (chapter "Application Binary Interface" and the ABI values of Appendix A), never computed from mpi.h. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Layout: eight ints, public fields first, the five private ints named MPI_internal. */
_Static_assert(sizeof(MPI_Status) == 32, "MPI_Status is 32 bytes");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE at 0");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == 4, "MPI_TAG at 4");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == 8, "MPI_ERROR at 8");
_Static_assert(offsetof(MPI_Status, MPI_internal) == 12, "MPI_internal at 12");
_Static_assert(sizeof(((MPI_Status *)0)->MPI_internal) == 20, "five private ints");
_Static_assert(_Alignof(MPI_Status) == _Alignof(int), "int alignment only");
_Static_assert(sizeof(MPI_Aint) == sizeof(void *) && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "integer types");
_Static_assert((MPI_Aint)-1 < 0 && (MPI_Offset)-1 < 0 && (MPI_Count)-1 < 0, "signed integer types");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is int");
_Static_assert(sizeof(MPI_Comm) == sizeof(void *) && sizeof(MPI_Datatype) == sizeof(void *),
               "pointer handles");

struct Expect {
  const char *name;
  long long actual;
  long long expected;
};
#define H(handle, value) \
  { #handle, (long long)(intptr_t)(handle), value }
#define I(constant, value) \
  { #constant, (long long)(constant), value }

static const struct Expect kExpected[] = {
    /* handles */
    H(MPI_OP_NULL, 0x20),
    H(MPI_SUM, 0x21),
    H(MPI_MIN, 0x22),
    H(MPI_MAX, 0x23),
    H(MPI_PROD, 0x24),
    H(MPI_BAND, 0x28),
    H(MPI_BOR, 0x29),
    H(MPI_BXOR, 0x2a),
    H(MPI_LAND, 0x30),
    H(MPI_LOR, 0x31),
    H(MPI_LXOR, 0x32),
    H(MPI_MINLOC, 0x38),
    H(MPI_MAXLOC, 0x39),
    H(MPI_REPLACE, 0x3c),
    H(MPI_NO_OP, 0x3d),
    H(MPI_COMM_NULL, 0x100),
    H(MPI_COMM_WORLD, 0x101),
    H(MPI_COMM_SELF, 0x102),
    H(MPI_GROUP_NULL, 0x108),
    H(MPI_GROUP_EMPTY, 0x109),
    H(MPI_WIN_NULL, 0x110),
    H(MPI_FILE_NULL, 0x118),
    H(MPI_SESSION_NULL, 0x120),
    H(MPI_MESSAGE_NULL, 0x128),
    H(MPI_MESSAGE_NO_PROC, 0x129),
    H(MPI_INFO_NULL, 0x130),
    H(MPI_INFO_ENV, 0x131),
    H(MPI_ERRHANDLER_NULL, 0x140),
    H(MPI_ERRORS_ARE_FATAL, 0x141),
    H(MPI_ERRORS_ABORT, 0x142),
    H(MPI_ERRORS_RETURN, 0x143),
    H(MPI_REQUEST_NULL, 0x180),
    /* datatypes */
    H(MPI_DATATYPE_NULL, 0x200),
    H(MPI_AINT, 0x201),
    H(MPI_COUNT, 0x202),
    H(MPI_OFFSET, 0x203),
    H(MPI_PACKED, 0x207),
    H(MPI_SHORT, 0x208),
    H(MPI_INT, 0x209),
    H(MPI_LONG, 0x20a),
    H(MPI_LONG_LONG, 0x20b),
    H(MPI_LONG_LONG_INT, 0x20b),
    H(MPI_UNSIGNED_SHORT, 0x20c),
    H(MPI_UNSIGNED, 0x20d),
    H(MPI_UNSIGNED_LONG, 0x20e),
    H(MPI_UNSIGNED_LONG_LONG, 0x20f),
    H(MPI_FLOAT, 0x210),
    H(MPI_C_FLOAT_COMPLEX, 0x212),
    H(MPI_C_COMPLEX, 0x212),
    H(MPI_CXX_FLOAT_COMPLEX, 0x213),
    H(MPI_DOUBLE, 0x214),
    H(MPI_C_DOUBLE_COMPLEX, 0x216),
    H(MPI_CXX_DOUBLE_COMPLEX, 0x217),
    H(MPI_LOGICAL, 0x218),
    H(MPI_INTEGER, 0x219),
    H(MPI_REAL, 0x21a),
    H(MPI_COMPLEX, 0x21b),
    H(MPI_DOUBLE_PRECISION, 0x21c),
    H(MPI_DOUBLE_COMPLEX, 0x21d),
    H(MPI_CHARACTER, 0x21e),
    H(MPI_LONG_DOUBLE, 0x220),
    H(MPI_C_LONG_DOUBLE_COMPLEX, 0x224),
    H(MPI_CXX_LONG_DOUBLE_COMPLEX, 0x225),
    H(MPI_FLOAT_INT, 0x228),
    H(MPI_DOUBLE_INT, 0x229),
    H(MPI_LONG_INT, 0x22a),
    H(MPI_2INT, 0x22b),
    H(MPI_SHORT_INT, 0x22c),
    H(MPI_LONG_DOUBLE_INT, 0x22d),
    H(MPI_2REAL, 0x230),
    H(MPI_2DOUBLE_PRECISION, 0x231),
    H(MPI_2INTEGER, 0x232),
    H(MPI_C_BOOL, 0x238),
    H(MPI_CXX_BOOL, 0x239),
    H(MPI_WCHAR, 0x23c),
    H(MPI_INT8_T, 0x240),
    H(MPI_UINT8_T, 0x241),
    H(MPI_CHAR, 0x243),
    H(MPI_SIGNED_CHAR, 0x244),
    H(MPI_UNSIGNED_CHAR, 0x245),
    H(MPI_BYTE, 0x247),
    H(MPI_INT16_T, 0x248),
    H(MPI_UINT16_T, 0x249),
    H(MPI_INT32_T, 0x250),
    H(MPI_UINT32_T, 0x251),
    H(MPI_INT64_T, 0x258),
    H(MPI_UINT64_T, 0x259),
    H(MPI_LOGICAL1, 0x2c0),
    H(MPI_INTEGER1, 0x2c1),
    H(MPI_LOGICAL2, 0x2c8),
    H(MPI_INTEGER2, 0x2c9),
    H(MPI_REAL2, 0x2ca),
    H(MPI_LOGICAL4, 0x2d0),
    H(MPI_INTEGER4, 0x2d1),
    H(MPI_REAL4, 0x2d2),
    H(MPI_COMPLEX4, 0x2d3),
    H(MPI_LOGICAL8, 0x2d8),
    H(MPI_INTEGER8, 0x2d9),
    H(MPI_REAL8, 0x2da),
    H(MPI_COMPLEX8, 0x2db),
    H(MPI_LOGICAL16, 0x2e0),
    H(MPI_INTEGER16, 0x2e1),
    H(MPI_REAL16, 0x2e2),
    H(MPI_COMPLEX16, 0x2e3),
    H(MPI_COMPLEX32, 0x2eb),
    /* pointer constants */
    H(MPI_BOTTOM, 0),
    H(MPI_IN_PLACE, 1),
    H(MPI_BUFFER_AUTOMATIC, 2),
    H(MPI_STATUS_IGNORE, 0),
    H(MPI_STATUSES_IGNORE, 0),
    H(MPI_ERRCODES_IGNORE, 0),
    H(MPI_ARGV_NULL, 0),
    H(MPI_UNWEIGHTED, 10),
    H(MPI_WEIGHTS_EMPTY, 11),
    H(MPI_COMM_NULL_COPY_FN, 0),
    H(MPI_COMM_DUP_FN, 1),
    H(MPI_COMM_NULL_DELETE_FN, 0),
    H(MPI_TYPE_NULL_COPY_FN, 0),
    H(MPI_TYPE_DUP_FN, 1),
    H(MPI_TYPE_NULL_DELETE_FN, 0),
    /* error classes */
    I(MPI_SUCCESS, 0),
    I(MPI_ERR_BUFFER, 1),
    I(MPI_ERR_COUNT, 2),
    I(MPI_ERR_TYPE, 3),
    I(MPI_ERR_TAG, 4),
    I(MPI_ERR_COMM, 5),
    I(MPI_ERR_RANK, 6),
    I(MPI_ERR_REQUEST, 7),
    I(MPI_ERR_ROOT, 8),
    I(MPI_ERR_GROUP, 9),
    I(MPI_ERR_OP, 10),
    I(MPI_ERR_TOPOLOGY, 11),
    I(MPI_ERR_DIMS, 12),
    I(MPI_ERR_ARG, 13),
    I(MPI_ERR_UNKNOWN, 14),
    I(MPI_ERR_TRUNCATE, 15),
    I(MPI_ERR_OTHER, 16),
    I(MPI_ERR_INTERN, 17),
    I(MPI_ERR_PENDING, 18),
    I(MPI_ERR_IN_STATUS, 19),
    I(MPI_ERR_ACCESS, 20),
    I(MPI_ERR_AMODE, 21),
    I(MPI_ERR_ASSERT, 22),
    I(MPI_ERR_BAD_FILE, 23),
    I(MPI_ERR_BASE, 24),
    I(MPI_ERR_CONVERSION, 25),
    I(MPI_ERR_DISP, 26),
    I(MPI_ERR_DUP_DATAREP, 27),
    I(MPI_ERR_FILE_EXISTS, 28),
    I(MPI_ERR_FILE_IN_USE, 29),
    I(MPI_ERR_FILE, 30),
    I(MPI_ERR_INFO_KEY, 31),
    I(MPI_ERR_INFO_NOKEY, 32),
    I(MPI_ERR_INFO_VALUE, 33),
    I(MPI_ERR_INFO, 34),
    I(MPI_ERR_IO, 35),
    I(MPI_ERR_KEYVAL, 36),
    I(MPI_ERR_LOCKTYPE, 37),
    I(MPI_ERR_NAME, 38),
    I(MPI_ERR_NO_MEM, 39),
    I(MPI_ERR_NOT_SAME, 40),
    I(MPI_ERR_NO_SPACE, 41),
    I(MPI_ERR_NO_SUCH_FILE, 42),
    I(MPI_ERR_PORT, 43),
    I(MPI_ERR_QUOTA, 44),
    I(MPI_ERR_READ_ONLY, 45),
    I(MPI_ERR_RMA_ATTACH, 46),
    I(MPI_ERR_RMA_CONFLICT, 47),
    I(MPI_ERR_RMA_RANGE, 48),
    I(MPI_ERR_RMA_SHARED, 49),
    I(MPI_ERR_RMA_SYNC, 50),
    I(MPI_ERR_SERVICE, 51),
    I(MPI_ERR_SIZE, 52),
    I(MPI_ERR_SPAWN, 53),
    I(MPI_ERR_UNSUPPORTED_DATAREP, 54),
    I(MPI_ERR_UNSUPPORTED_OPERATION, 55),
    I(MPI_ERR_WIN, 56),
    I(MPI_ERR_RMA_FLAVOR, 57),
    I(MPI_ERR_PROC_ABORTED, 58),
    I(MPI_ERR_VALUE_TOO_LARGE, 59),
    I(MPI_ERR_SESSION, 60),
    I(MPI_ERR_ERRHANDLER, 61),
    I(MPI_ERR_ABI, 62),
    I(MPI_ERR_LASTCODE, 16383),
    /* sentinels */
    I(MPI_ANY_SOURCE, -1),
    I(MPI_ANY_TAG, -2),
    I(MPI_PROC_NULL, -3),
    I(MPI_ROOT, -4),
    I(MPI_UNDEFINED, -32766),
    I(MPI_KEYVAL_INVALID, 0),
    /* thread levels */
    I(MPI_THREAD_SINGLE, 0),
    I(MPI_THREAD_FUNNELED, 1024),
    I(MPI_THREAD_SERIALIZED, 2048),
    I(MPI_THREAD_MULTIPLE, 4096),
    /* comparisons, topologies, split types, combiners */
    I(MPI_IDENT, 201),
    I(MPI_CONGRUENT, 202),
    I(MPI_SIMILAR, 203),
    I(MPI_UNEQUAL, 204),
    I(MPI_CART, 211),
    I(MPI_GRAPH, 212),
    I(MPI_DIST_GRAPH, 213),
    I(MPI_COMM_TYPE_SHARED, 221),
    I(MPI_COMBINER_NAMED, 101),
    I(MPI_COMBINER_CONTIGUOUS, 103),
    I(MPI_COMBINER_STRUCT, 110),
    I(MPI_COMBINER_RESIZED, 116),
    I(MPI_ORDER_C, 12),
    I(MPI_ORDER_FORTRAN, 15),
    I(MPI_TYPECLASS_INTEGER, 192),
    /* attribute keys */
    I(MPI_TAG_UB, 501),
    I(MPI_IO, 502),
    I(MPI_HOST, 503),
    I(MPI_WTIME_IS_GLOBAL, 504),
    I(MPI_APPNUM, 505),
    I(MPI_LASTUSEDCODE, 506),
    I(MPI_UNIVERSE_SIZE, 507),
    I(MPI_WIN_BASE, 601),
    I(MPI_WIN_MODEL, 605),
    /* string sizes and others */
    I(MPI_MAX_PROCESSOR_NAME, 256),
    I(MPI_MAX_ERROR_STRING, 512),
    I(MPI_MAX_OBJECT_NAME, 128),
    I(MPI_MAX_INFO_KEY, 256),
    I(MPI_MAX_INFO_VAL, 1024),
    I(MPI_MAX_LIBRARY_VERSION_STRING, 8192),
    I(MPI_MAX_PORT_NAME, 1024),
    I(MPI_MAX_DATAREP_STRING, 128),
    I(MPI_BSEND_OVERHEAD, 512),
    I(MPI_MODE_RDONLY, 16),
    I(MPI_MODE_NOCHECK, 1024),
    I(MPI_F_STATUS_SIZE, 8),
    I(MPI_F_ERROR, 2),
    I(MPI_VERSION, 5),
    I(MPI_SUBVERSION, 0),
    I(MPI_ABI_VERSION, 1),
    I(MPI_ABI_SUBVERSION, 0),
};

int main(void) {
  size_t failures = 0;
  size_t i;
  MPI_Status status;
  for (i = 0; i < sizeof kExpected / sizeof kExpected[0]; ++i) {
    if (kExpected[i].actual != kExpected[i].expected) {
      printf("%s is %lld, the MPI-5.0 ABI says %lld\n", kExpected[i].name, kExpected[i].actual,
             kExpected[i].expected);
      failures++;
    }
  }
  /* Fortran status indices agree with the C struct's field order. */
  status.MPI_SOURCE = 11;
  status.MPI_TAG = 22;
  status.MPI_ERROR = 33;
  if (((int *)&status)[MPI_F_SOURCE] != 11 || ((int *)&status)[MPI_F_TAG] != 22 ||
      ((int *)&status)[MPI_F_ERROR] != 33) {
    printf("MPI_F_SOURCE/TAG/ERROR do not index MPI_Status's fields\n");
    failures++;
  }
  printf("%zu ABI values checked, %zu wrong\n", sizeof kExpected / sizeof kExpected[0], failures);
  return failures == 0 ? 0 : 1;
}
