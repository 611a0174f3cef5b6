/* SPDX-License-Identifier: MIT */
/* Takyon's mpi.h: the MPI C API that libtakyon_mpi implements, laid out by the MPI-5.0 standard ABI. */
/*
 * What this is
 *   The header that MPI programs compile against when built with takyon-mpicc / takyon-mpicxx
 *   (or any build that puts mpi_compat/include first on the include path and links -ltakyon_mpi).
 *   Clean C99 and C++ (17/20) under -Wall -Wextra -Werror -pedantic.
 *
 * ABI
 *   Handles, MPI_Status and every constant follow the MPI-5.0 standard ABI (MPI-5.0, chapter
 *   "Application Binary Interface", and the ABI values in Appendix A): handles are pointers to
 *   incomplete structs, predefined handles are the ABI's small integers (1..4095) cast to the
 *   handle type, MPI_Aint is intptr_t, MPI_Offset and MPI_Count are int64_t, MPI_Status is eight
 *   ints. The values below are written from the standard's tables, not copied from any
 *   implementation. libtakyon_mpi stores a status's byte count in MPI_internal[0] (low 32 bits)
 *   and MPI_internal[1] (high 32 bits), and the cancelled flag in MPI_internal[2].
 *
 * Functions
 *   TAKYON_MPI_FN_(ret, Name, (params)) declares both MPI_Name and PMPI_Name (the profiling
 *   interface; the library defines PMPI_Name and a weak MPI_Name). Only what libtakyon_mpi
 *   provides is declared, because configure scripts probe for what is. Thread
 *   safety and lifetimes are the MPI standard's; see docs/mpi.md for what each call supports.
 */
#ifndef TAKYON_MPI_H_
#define TAKYON_MPI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------------- */
#define MPI_VERSION 5
#define MPI_SUBVERSION 0
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0

/* ---------------------------------------------------------------------------------------------
 * Integer types and the status object
 * ------------------------------------------------------------------------------------------- */
typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int MPI_internal[5];
} MPI_Status;

/* ---------------------------------------------------------------------------------------------
 * Handle types: pointers to incomplete structs, so the compiler type-checks them.
 * ------------------------------------------------------------------------------------------- */
typedef struct MPI_ABI_Comm *MPI_Comm;
typedef struct MPI_ABI_Datatype *MPI_Datatype;
typedef struct MPI_ABI_Errhandler *MPI_Errhandler;
typedef struct MPI_ABI_File *MPI_File;
typedef struct MPI_ABI_Group *MPI_Group;
typedef struct MPI_ABI_Info *MPI_Info;
typedef struct MPI_ABI_Message *MPI_Message;
typedef struct MPI_ABI_Op *MPI_Op;
typedef struct MPI_ABI_Request *MPI_Request;
typedef struct MPI_ABI_Session *MPI_Session;
typedef struct MPI_ABI_Win *MPI_Win;

/* An ABI integer value as a handle or pointer constant. C++ spells the casts out so that code
 * built with -Wold-style-cast / -Wzero-as-null-pointer-constant stays quiet. */
#ifdef __cplusplus
#define TAKYON_MPI_CONST_(type, value) (reinterpret_cast<type>(static_cast<intptr_t>(value)))
#if __cplusplus >= 201103L
#define TAKYON_MPI_NULLPTR_(type) (static_cast<type>(nullptr))
#else
#define TAKYON_MPI_NULLPTR_(type) (static_cast<type>(0))
#endif
#else
#define TAKYON_MPI_CONST_(type, value) ((type)(value))
#define TAKYON_MPI_NULLPTR_(type) ((type)0)
#endif

/* Reduction operations: 0b0000_001x_xxxx */
#define MPI_OP_NULL TAKYON_MPI_CONST_(MPI_Op, 0x020)
#define MPI_SUM TAKYON_MPI_CONST_(MPI_Op, 0x021)
#define MPI_MIN TAKYON_MPI_CONST_(MPI_Op, 0x022)
#define MPI_MAX TAKYON_MPI_CONST_(MPI_Op, 0x023)
#define MPI_PROD TAKYON_MPI_CONST_(MPI_Op, 0x024)
#define MPI_BAND TAKYON_MPI_CONST_(MPI_Op, 0x028)
#define MPI_BOR TAKYON_MPI_CONST_(MPI_Op, 0x029)
#define MPI_BXOR TAKYON_MPI_CONST_(MPI_Op, 0x02a)
#define MPI_LAND TAKYON_MPI_CONST_(MPI_Op, 0x030)
#define MPI_LOR TAKYON_MPI_CONST_(MPI_Op, 0x031)
#define MPI_LXOR TAKYON_MPI_CONST_(MPI_Op, 0x032)
#define MPI_MINLOC TAKYON_MPI_CONST_(MPI_Op, 0x038)
#define MPI_MAXLOC TAKYON_MPI_CONST_(MPI_Op, 0x039)
#define MPI_REPLACE TAKYON_MPI_CONST_(MPI_Op, 0x03c)
#define MPI_NO_OP TAKYON_MPI_CONST_(MPI_Op, 0x03d)

/* Other handles: 0b0001_xxxx_xxxx */
#define MPI_COMM_NULL TAKYON_MPI_CONST_(MPI_Comm, 0x100)
#define MPI_COMM_WORLD TAKYON_MPI_CONST_(MPI_Comm, 0x101)
#define MPI_COMM_SELF TAKYON_MPI_CONST_(MPI_Comm, 0x102)
#define MPI_GROUP_NULL TAKYON_MPI_CONST_(MPI_Group, 0x108)
#define MPI_GROUP_EMPTY TAKYON_MPI_CONST_(MPI_Group, 0x109)
#define MPI_WIN_NULL TAKYON_MPI_CONST_(MPI_Win, 0x110)
#define MPI_FILE_NULL TAKYON_MPI_CONST_(MPI_File, 0x118)
#define MPI_SESSION_NULL TAKYON_MPI_CONST_(MPI_Session, 0x120)
#define MPI_MESSAGE_NULL TAKYON_MPI_CONST_(MPI_Message, 0x128)
#define MPI_MESSAGE_NO_PROC TAKYON_MPI_CONST_(MPI_Message, 0x129)
#define MPI_INFO_NULL TAKYON_MPI_CONST_(MPI_Info, 0x130)
#define MPI_INFO_ENV TAKYON_MPI_CONST_(MPI_Info, 0x131)
#define MPI_ERRHANDLER_NULL TAKYON_MPI_CONST_(MPI_Errhandler, 0x140)
#define MPI_ERRORS_ARE_FATAL TAKYON_MPI_CONST_(MPI_Errhandler, 0x141)
#define MPI_ERRORS_ABORT TAKYON_MPI_CONST_(MPI_Errhandler, 0x142)
#define MPI_ERRORS_RETURN TAKYON_MPI_CONST_(MPI_Errhandler, 0x143)
#define MPI_REQUEST_NULL TAKYON_MPI_CONST_(MPI_Request, 0x180)

/* Datatypes: 0b0010_xxxx_xxxx. Bit 6 set: fixed size, bits 5:3 = log2(size in bytes). */
#define MPI_DATATYPE_NULL TAKYON_MPI_CONST_(MPI_Datatype, 0x200)
#define MPI_AINT TAKYON_MPI_CONST_(MPI_Datatype, 0x201)
#define MPI_COUNT TAKYON_MPI_CONST_(MPI_Datatype, 0x202)
#define MPI_OFFSET TAKYON_MPI_CONST_(MPI_Datatype, 0x203)
#define MPI_PACKED TAKYON_MPI_CONST_(MPI_Datatype, 0x207)
/* C integers */
#define MPI_SHORT TAKYON_MPI_CONST_(MPI_Datatype, 0x208)
#define MPI_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x209)
#define MPI_LONG TAKYON_MPI_CONST_(MPI_Datatype, 0x20a)
#define MPI_LONG_LONG TAKYON_MPI_CONST_(MPI_Datatype, 0x20b)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_SHORT TAKYON_MPI_CONST_(MPI_Datatype, 0x20c)
#define MPI_UNSIGNED TAKYON_MPI_CONST_(MPI_Datatype, 0x20d)
#define MPI_UNSIGNED_LONG TAKYON_MPI_CONST_(MPI_Datatype, 0x20e)
#define MPI_UNSIGNED_LONG_LONG TAKYON_MPI_CONST_(MPI_Datatype, 0x20f)
/* C/C++ floating point */
#define MPI_FLOAT TAKYON_MPI_CONST_(MPI_Datatype, 0x210)
#define MPI_C_FLOAT_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x212)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_CXX_FLOAT_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x213)
#define MPI_DOUBLE TAKYON_MPI_CONST_(MPI_Datatype, 0x214)
#define MPI_C_DOUBLE_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x216)
#define MPI_CXX_DOUBLE_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x217)
/* Fortran (size depends on the Fortran compiler) */
#define MPI_LOGICAL TAKYON_MPI_CONST_(MPI_Datatype, 0x218)
#define MPI_INTEGER TAKYON_MPI_CONST_(MPI_Datatype, 0x219)
#define MPI_REAL TAKYON_MPI_CONST_(MPI_Datatype, 0x21a)
#define MPI_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x21b)
#define MPI_DOUBLE_PRECISION TAKYON_MPI_CONST_(MPI_Datatype, 0x21c)
#define MPI_DOUBLE_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x21d)
#define MPI_CHARACTER TAKYON_MPI_CONST_(MPI_Datatype, 0x21e)
/* long double */
#define MPI_LONG_DOUBLE TAKYON_MPI_CONST_(MPI_Datatype, 0x220)
#define MPI_C_LONG_DOUBLE_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x224)
#define MPI_CXX_LONG_DOUBLE_COMPLEX TAKYON_MPI_CONST_(MPI_Datatype, 0x225)
/* pair types (MINLOC/MAXLOC) */
#define MPI_FLOAT_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x228)
#define MPI_DOUBLE_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x229)
#define MPI_LONG_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x22a)
#define MPI_2INT TAKYON_MPI_CONST_(MPI_Datatype, 0x22b)
#define MPI_SHORT_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x22c)
#define MPI_LONG_DOUBLE_INT TAKYON_MPI_CONST_(MPI_Datatype, 0x22d)
#define MPI_2REAL TAKYON_MPI_CONST_(MPI_Datatype, 0x230)
#define MPI_2DOUBLE_PRECISION TAKYON_MPI_CONST_(MPI_Datatype, 0x231)
#define MPI_2INTEGER TAKYON_MPI_CONST_(MPI_Datatype, 0x232)
/* other C/C++ */
#define MPI_C_BOOL TAKYON_MPI_CONST_(MPI_Datatype, 0x238)
#define MPI_CXX_BOOL TAKYON_MPI_CONST_(MPI_Datatype, 0x239)
#define MPI_WCHAR TAKYON_MPI_CONST_(MPI_Datatype, 0x23c)
/* fixed-size C/C++ */
#define MPI_INT8_T TAKYON_MPI_CONST_(MPI_Datatype, 0x240)
#define MPI_UINT8_T TAKYON_MPI_CONST_(MPI_Datatype, 0x241)
#define MPI_CHAR TAKYON_MPI_CONST_(MPI_Datatype, 0x243)
#define MPI_SIGNED_CHAR TAKYON_MPI_CONST_(MPI_Datatype, 0x244)
#define MPI_UNSIGNED_CHAR TAKYON_MPI_CONST_(MPI_Datatype, 0x245)
#define MPI_BYTE TAKYON_MPI_CONST_(MPI_Datatype, 0x247)
#define MPI_INT16_T TAKYON_MPI_CONST_(MPI_Datatype, 0x248)
#define MPI_UINT16_T TAKYON_MPI_CONST_(MPI_Datatype, 0x249)
#define MPI_INT32_T TAKYON_MPI_CONST_(MPI_Datatype, 0x250)
#define MPI_UINT32_T TAKYON_MPI_CONST_(MPI_Datatype, 0x251)
#define MPI_INT64_T TAKYON_MPI_CONST_(MPI_Datatype, 0x258)
#define MPI_UINT64_T TAKYON_MPI_CONST_(MPI_Datatype, 0x259)
/* fixed-size Fortran (optional types) */
#define MPI_LOGICAL1 TAKYON_MPI_CONST_(MPI_Datatype, 0x2c0)
#define MPI_INTEGER1 TAKYON_MPI_CONST_(MPI_Datatype, 0x2c1)
#define MPI_LOGICAL2 TAKYON_MPI_CONST_(MPI_Datatype, 0x2c8)
#define MPI_INTEGER2 TAKYON_MPI_CONST_(MPI_Datatype, 0x2c9)
#define MPI_REAL2 TAKYON_MPI_CONST_(MPI_Datatype, 0x2ca)
#define MPI_LOGICAL4 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d0)
#define MPI_INTEGER4 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d1)
#define MPI_REAL4 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d2)
#define MPI_COMPLEX4 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d3)
#define MPI_LOGICAL8 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d8)
#define MPI_INTEGER8 TAKYON_MPI_CONST_(MPI_Datatype, 0x2d9)
#define MPI_REAL8 TAKYON_MPI_CONST_(MPI_Datatype, 0x2da)
#define MPI_COMPLEX8 TAKYON_MPI_CONST_(MPI_Datatype, 0x2db)
#define MPI_LOGICAL16 TAKYON_MPI_CONST_(MPI_Datatype, 0x2e0)
#define MPI_INTEGER16 TAKYON_MPI_CONST_(MPI_Datatype, 0x2e1)
#define MPI_REAL16 TAKYON_MPI_CONST_(MPI_Datatype, 0x2e2)
#define MPI_COMPLEX16 TAKYON_MPI_CONST_(MPI_Datatype, 0x2e3)
#define MPI_COMPLEX32 TAKYON_MPI_CONST_(MPI_Datatype, 0x2eb)

/* ---------------------------------------------------------------------------------------------
 * Error classes
 * ------------------------------------------------------------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_IN_STATUS 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_ASSERT 22
#define MPI_ERR_BAD_FILE 23
#define MPI_ERR_BASE 24
#define MPI_ERR_CONVERSION 25
#define MPI_ERR_DISP 26
#define MPI_ERR_DUP_DATAREP 27
#define MPI_ERR_FILE_EXISTS 28
#define MPI_ERR_FILE_IN_USE 29
#define MPI_ERR_FILE 30
#define MPI_ERR_INFO_KEY 31
#define MPI_ERR_INFO_NOKEY 32
#define MPI_ERR_INFO_VALUE 33
#define MPI_ERR_INFO 34
#define MPI_ERR_IO 35
#define MPI_ERR_KEYVAL 36
#define MPI_ERR_LOCKTYPE 37
#define MPI_ERR_NAME 38
#define MPI_ERR_NO_MEM 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_ATTACH 46
#define MPI_ERR_RMA_CONFLICT 47
#define MPI_ERR_RMA_RANGE 48
#define MPI_ERR_RMA_SHARED 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SERVICE 51
#define MPI_ERR_SIZE 52
#define MPI_ERR_SPAWN 53
#define MPI_ERR_UNSUPPORTED_DATAREP 54
#define MPI_ERR_UNSUPPORTED_OPERATION 55
#define MPI_ERR_WIN 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_PROC_ABORTED 58
#define MPI_ERR_VALUE_TOO_LARGE 59
#define MPI_ERR_SESSION 60
#define MPI_ERR_ERRHANDLER 61
#define MPI_ERR_ABI 62
#define MPI_ERR_LASTCODE 0x3fff

/* ---------------------------------------------------------------------------------------------
 * Integer constants
 * ------------------------------------------------------------------------------------------- */
/* wildcards and rank sentinels */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-2)
#define MPI_PROC_NULL (-3)
#define MPI_ROOT (-4)
#define MPI_UNDEFINED (-32766)

/* thread support levels, monotonic */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1024
#define MPI_THREAD_SERIALIZED 2048
#define MPI_THREAD_MULTIPLE 4096

/* array datatype order and distribution */
#define MPI_ORDER_C 12
#define MPI_ORDER_FORTRAN 15
#define MPI_DISTRIBUTE_NONE 16
#define MPI_DISTRIBUTE_BLOCK 17
#define MPI_DISTRIBUTE_CYCLIC 18
#define MPI_DISTRIBUTE_DFLT_DARG 19

/* datatype decoding (MPI_Type_get_envelope) */
#define MPI_COMBINER_NAMED 101
#define MPI_COMBINER_DUP 102
#define MPI_COMBINER_CONTIGUOUS 103
#define MPI_COMBINER_VECTOR 104
#define MPI_COMBINER_HVECTOR 105
#define MPI_COMBINER_INDEXED 106
#define MPI_COMBINER_HINDEXED 107
#define MPI_COMBINER_INDEXED_BLOCK 108
#define MPI_COMBINER_HINDEXED_BLOCK 109
#define MPI_COMBINER_STRUCT 110
#define MPI_COMBINER_SUBARRAY 111
#define MPI_COMBINER_DARRAY 112
#define MPI_COMBINER_F90_REAL 113
#define MPI_COMBINER_F90_COMPLEX 114
#define MPI_COMBINER_F90_INTEGER 115
#define MPI_COMBINER_RESIZED 116
#define MPI_COMBINER_VALUE_INDEX 117

/* Fortran datatype matching */
#define MPI_TYPECLASS_INTEGER 192
#define MPI_TYPECLASS_REAL 193
#define MPI_TYPECLASS_COMPLEX 194

/* communicator and group comparison */
#define MPI_IDENT 201
#define MPI_CONGRUENT 202
#define MPI_SIMILAR 203
#define MPI_UNEQUAL 204

/* virtual topologies (MPI_Topo_test) */
#define MPI_CART 211
#define MPI_GRAPH 212
#define MPI_DIST_GRAPH 213

/* MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED 221
#define MPI_COMM_TYPE_HW_UNGUIDED 222
#define MPI_COMM_TYPE_HW_GUIDED 223
#define MPI_COMM_TYPE_RESOURCE_GUIDED 224

/* one-sided: lock types, window flavors and memory models */
#define MPI_LOCK_EXCLUSIVE 301
#define MPI_LOCK_SHARED 302
#define MPI_WIN_FLAVOR_CREATE 311
#define MPI_WIN_FLAVOR_ALLOCATE 312
#define MPI_WIN_FLAVOR_DYNAMIC 313
#define MPI_WIN_FLAVOR_SHARED 314
#define MPI_WIN_UNIFIED 321
#define MPI_WIN_SEPARATE 322

/* file positioning */
#define MPI_SEEK_CUR 401
#define MPI_SEEK_END 402
#define MPI_SEEK_SET 403
#ifdef __cplusplus
#define MPI_DISPLACEMENT_CURRENT (static_cast<MPI_Offset>(-1))
#else
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)
#endif

/* mode bits (powers of two, or-ed together) */
#define MPI_MODE_APPEND 1
#define MPI_MODE_CREATE 2
#define MPI_MODE_DELETE_ON_CLOSE 4
#define MPI_MODE_EXCL 8
#define MPI_MODE_RDONLY 16
#define MPI_MODE_RDWR 32
#define MPI_MODE_SEQUENTIAL 64
#define MPI_MODE_UNIQUE_OPEN 128
#define MPI_MODE_WRONLY 256
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOPRECEDE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOSTORE 8192
#define MPI_MODE_NOSUCCEED 16384

/* predefined attribute keys */
#define MPI_KEYVAL_INVALID 0
#define MPI_TAG_UB 501
#define MPI_IO 502
#define MPI_HOST 503
#define MPI_WTIME_IS_GLOBAL 504
#define MPI_APPNUM 505
#define MPI_LASTUSEDCODE 506
#define MPI_UNIVERSE_SIZE 507
#define MPI_WIN_BASE 601
#define MPI_WIN_DISP_UNIT 602
#define MPI_WIN_SIZE 603
#define MPI_WIN_CREATE_FLAVOR 604
#define MPI_WIN_MODEL 605

/* string sizes, including the terminating NUL */
#define MPI_MAX_DATAREP_STRING 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_INFO_KEY 256
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_STRINGTAG_LEN 1024
#define MPI_MAX_PSET_NAME_LEN 1024

#define MPI_BSEND_OVERHEAD 512

/* Fortran status indices */
#define MPI_F_STATUS_SIZE 8
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2

/* ---------------------------------------------------------------------------------------------
 * Address and ignore constants
 * ------------------------------------------------------------------------------------------- */
#define MPI_BOTTOM TAKYON_MPI_NULLPTR_(void *)
#define MPI_IN_PLACE TAKYON_MPI_CONST_(void *, 1)
#define MPI_BUFFER_AUTOMATIC TAKYON_MPI_CONST_(void *, 2)
#define MPI_ARGV_NULL TAKYON_MPI_NULLPTR_(char **)
#define MPI_ARGVS_NULL TAKYON_MPI_NULLPTR_(char ***)
#define MPI_ERRCODES_IGNORE TAKYON_MPI_NULLPTR_(int *)
#define MPI_STATUS_IGNORE TAKYON_MPI_NULLPTR_(MPI_Status *)
#define MPI_STATUSES_IGNORE TAKYON_MPI_NULLPTR_(MPI_Status *)
#define MPI_UNWEIGHTED TAKYON_MPI_CONST_(int *, 10)
#define MPI_WEIGHTS_EMPTY TAKYON_MPI_CONST_(int *, 11)

/* ---------------------------------------------------------------------------------------------
 * Callback types and their predefined values
 * ------------------------------------------------------------------------------------------- */
typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);

typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void(MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef void(MPI_Session_errhandler_function)(MPI_Session *session, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;

typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);

/* The ABI makes the predefined copy/delete callbacks small integers: 0 = null, 1 = dup. */
#define MPI_COMM_NULL_COPY_FN TAKYON_MPI_NULLPTR_(MPI_Comm_copy_attr_function *)
#define MPI_COMM_DUP_FN TAKYON_MPI_CONST_(MPI_Comm_copy_attr_function *, 0x1)
#define MPI_COMM_NULL_DELETE_FN TAKYON_MPI_NULLPTR_(MPI_Comm_delete_attr_function *)
/* Deprecated MPI-1 names, still in MPI-5 and its ABI: the same callbacks and values. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN TAKYON_MPI_NULLPTR_(MPI_Copy_function *)
#define MPI_DUP_FN TAKYON_MPI_CONST_(MPI_Copy_function *, 0x1)
#define MPI_NULL_DELETE_FN TAKYON_MPI_NULLPTR_(MPI_Delete_function *)
#define MPI_TYPE_NULL_COPY_FN TAKYON_MPI_NULLPTR_(MPI_Type_copy_attr_function *)
#define MPI_TYPE_DUP_FN TAKYON_MPI_CONST_(MPI_Type_copy_attr_function *, 0x1)
#define MPI_TYPE_NULL_DELETE_FN TAKYON_MPI_NULLPTR_(MPI_Type_delete_attr_function *)
#define MPI_WIN_NULL_COPY_FN TAKYON_MPI_NULLPTR_(MPI_Win_copy_attr_function *)
#define MPI_WIN_DUP_FN TAKYON_MPI_CONST_(MPI_Win_copy_attr_function *, 0x1)
#define MPI_WIN_NULL_DELETE_FN TAKYON_MPI_NULLPTR_(MPI_Win_delete_attr_function *)

/* ---------------------------------------------------------------------------------------------
 * Functions. TAKYON_MPI_FN_(ret, Name, (params)) declares MPI_Name and PMPI_Name, both exported
 * with default visibility (the library is built with hidden visibility for everything else).
 * ------------------------------------------------------------------------------------------- */
#if defined(__GNUC__) || defined(__clang__)
#define TAKYON_MPI_API_ __attribute__((visibility("default")))
#else
#define TAKYON_MPI_API_
#endif
#define TAKYON_MPI_FN_(ret, name, params) \
  TAKYON_MPI_API_ ret MPI_##name params;  \
  TAKYON_MPI_API_ ret PMPI_##name params

/* clang-format would take "MPI_Request *request" inside a macro argument for a multiplication. */
/* clang-format off */
/* Environment */
TAKYON_MPI_FN_(int, Init, (int *argc, char ***argv));
TAKYON_MPI_FN_(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
TAKYON_MPI_FN_(int, Initialized, (int *flag));
TAKYON_MPI_FN_(int, Finalize, (void));
TAKYON_MPI_FN_(int, Finalized, (int *flag));
TAKYON_MPI_FN_(int, Abort, (MPI_Comm comm, int errorcode));
TAKYON_MPI_FN_(int, Query_thread, (int *provided));
TAKYON_MPI_FN_(int, Is_thread_main, (int *flag));
TAKYON_MPI_FN_(int, Get_version, (int *version, int *subversion));
TAKYON_MPI_FN_(int, Get_library_version, (char *version, int *resultlen));
TAKYON_MPI_FN_(int, Get_processor_name, (char *name, int *resultlen));
TAKYON_MPI_FN_(double, Wtime, (void));
TAKYON_MPI_FN_(double, Wtick, (void));
TAKYON_MPI_FN_(int, Pcontrol, (const int level, ...));
TAKYON_MPI_FN_(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
TAKYON_MPI_FN_(int, Free_mem, (void *base));

/* Sessions */
TAKYON_MPI_FN_(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session));
TAKYON_MPI_FN_(int, Session_finalize, (MPI_Session *session));
TAKYON_MPI_FN_(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names));
TAKYON_MPI_FN_(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name));
TAKYON_MPI_FN_(int, Session_get_info, (MPI_Session session, MPI_Info *info_used));
TAKYON_MPI_FN_(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info));
TAKYON_MPI_FN_(int, Session_create_errhandler,
               (MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler));
TAKYON_MPI_FN_(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Session_call_errhandler, (MPI_Session session, int errorcode));
TAKYON_MPI_FN_(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Comm_create_from_group,
               (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Intercomm_create_from_groups,
               (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
                const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm));

/* Errors and error handlers */
TAKYON_MPI_FN_(int, Error_string, (int errorcode, char *string, int *resultlen));
TAKYON_MPI_FN_(int, Error_class, (int errorcode, int *errorclass));
TAKYON_MPI_FN_(int, Add_error_class, (int *errorclass));
TAKYON_MPI_FN_(int, Add_error_code, (int errorclass, int *errorcode));
TAKYON_MPI_FN_(int, Add_error_string, (int errorcode, const char *string));
TAKYON_MPI_FN_(int, Comm_create_errhandler,
               (MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
TAKYON_MPI_FN_(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
TAKYON_MPI_FN_(int, Errhandler_free, (MPI_Errhandler *errhandler));

/* Info objects */
TAKYON_MPI_FN_(int, Info_create, (MPI_Info *info));
TAKYON_MPI_FN_(int, Info_create_env, (int argc, char *argv[], MPI_Info *info));
TAKYON_MPI_FN_(int, Info_set, (MPI_Info info, const char *key, const char *value));
TAKYON_MPI_FN_(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
TAKYON_MPI_FN_(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
TAKYON_MPI_FN_(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag));
TAKYON_MPI_FN_(int, Info_delete, (MPI_Info info, const char *key));
TAKYON_MPI_FN_(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
TAKYON_MPI_FN_(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
TAKYON_MPI_FN_(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
TAKYON_MPI_FN_(int, Info_free, (MPI_Info *info));

/* Point-to-point: blocking */
TAKYON_MPI_FN_(int, Send,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
TAKYON_MPI_FN_(int, Ssend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
TAKYON_MPI_FN_(int, Rsend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
TAKYON_MPI_FN_(int, Bsend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
TAKYON_MPI_FN_(int, Recv,
               (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status *status));
TAKYON_MPI_FN_(int, Sendrecv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                MPI_Status *status));
TAKYON_MPI_FN_(int, Sendrecv_replace,
               (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status));
TAKYON_MPI_FN_(int, Isendrecv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Isendrecv_replace,
               (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Buffer_attach, (void *buffer, int size));
TAKYON_MPI_FN_(int, Buffer_detach, (void *buffer_addr, int *size));

/* Point-to-point: nonblocking */
TAKYON_MPI_FN_(int, Isend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Issend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Irsend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Ibsend,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Irecv,
               (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request));

/* Point-to-point: persistent */
TAKYON_MPI_FN_(int, Send_init,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Ssend_init,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Rsend_init,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Bsend_init,
               (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Recv_init,
               (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Start, (MPI_Request *request));
TAKYON_MPI_FN_(int, Startall, (int count, MPI_Request array_of_requests[]));

/* Generalized requests */
TAKYON_MPI_FN_(int, Grequest_start,
               (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
TAKYON_MPI_FN_(int, Grequest_complete, (MPI_Request request));

/* Probe and matched probe */
TAKYON_MPI_FN_(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
TAKYON_MPI_FN_(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
TAKYON_MPI_FN_(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
TAKYON_MPI_FN_(int, Improbe,
               (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status));
TAKYON_MPI_FN_(int, Mrecv,
               (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
TAKYON_MPI_FN_(int, Imrecv,
               (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request));

/* Completion */
TAKYON_MPI_FN_(int, Wait, (MPI_Request *request, MPI_Status *status));
TAKYON_MPI_FN_(int, Test, (MPI_Request *request, int *flag, MPI_Status *status));
TAKYON_MPI_FN_(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
TAKYON_MPI_FN_(int, Testany,
               (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
TAKYON_MPI_FN_(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
TAKYON_MPI_FN_(int, Testall,
               (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]));
TAKYON_MPI_FN_(int, Waitsome,
               (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                MPI_Status array_of_statuses[]));
TAKYON_MPI_FN_(int, Testsome,
               (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                MPI_Status array_of_statuses[]));
TAKYON_MPI_FN_(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
TAKYON_MPI_FN_(int, Request_free, (MPI_Request *request));
TAKYON_MPI_FN_(int, Cancel, (MPI_Request *request));

/* Status */
TAKYON_MPI_FN_(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
TAKYON_MPI_FN_(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
TAKYON_MPI_FN_(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
TAKYON_MPI_FN_(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count));
TAKYON_MPI_FN_(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
TAKYON_MPI_FN_(int, Status_set_cancelled, (MPI_Status *status, int flag));
TAKYON_MPI_FN_(int, Test_cancelled, (const MPI_Status *status, int *flag));

/* Collectives: blocking */
TAKYON_MPI_FN_(int, Barrier, (MPI_Comm comm));
TAKYON_MPI_FN_(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
TAKYON_MPI_FN_(int, Gather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm));
TAKYON_MPI_FN_(int, Gatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm));
TAKYON_MPI_FN_(int, Scatter,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm));
TAKYON_MPI_FN_(int, Scatterv,
               (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
TAKYON_MPI_FN_(int, Allgather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Allgatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Alltoall,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Alltoallv,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Alltoallw,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Comm comm));
TAKYON_MPI_FN_(int, Reduce,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Allreduce,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Reduce_scatter,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Reduce_scatter_block,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Scan,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Exscan,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Reduce_local,
               (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));

/* Collectives: nonblocking */
TAKYON_MPI_FN_(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ibcast,
               (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Igather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Igatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Iscatter,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Iscatterv,
               (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Iallgather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Iallgatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Ialltoall,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ialltoallv,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ialltoallw,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ireduce,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Iallreduce,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ireduce_scatter,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ireduce_scatter_block,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Iscan,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Iexscan,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request));

/* Collectives: persistent (MPI-4); started with MPI_Start/MPI_Startall, freed with MPI_Request_free */
TAKYON_MPI_FN_(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Bcast_init,
               (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Gather_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Gatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Scatter_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Scatterv_init,
               (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Allgather_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Allgatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Alltoall_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Alltoallv_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Alltoallw_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Reduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Allreduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Reduce_scatter_init,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Reduce_scatter_block_init,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Scan_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
TAKYON_MPI_FN_(int, Exscan_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* Reduction operations */
TAKYON_MPI_FN_(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op));
TAKYON_MPI_FN_(int, Op_free, (MPI_Op *op));
TAKYON_MPI_FN_(int, Op_commutative, (MPI_Op op, int *commute));

/* Communicators */
TAKYON_MPI_FN_(int, Comm_size, (MPI_Comm comm, int *size));
TAKYON_MPI_FN_(int, Comm_rank, (MPI_Comm comm, int *rank));
TAKYON_MPI_FN_(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
TAKYON_MPI_FN_(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
TAKYON_MPI_FN_(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
TAKYON_MPI_FN_(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_split_type,
               (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Comm_free, (MPI_Comm *comm));
TAKYON_MPI_FN_(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
TAKYON_MPI_FN_(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
TAKYON_MPI_FN_(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
TAKYON_MPI_FN_(int, Comm_test_inter, (MPI_Comm comm, int *flag));
TAKYON_MPI_FN_(int, Comm_remote_size, (MPI_Comm comm, int *size));
TAKYON_MPI_FN_(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
TAKYON_MPI_FN_(int, Intercomm_create,
               (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                MPI_Comm *newintercomm));
TAKYON_MPI_FN_(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));

/* Attributes */
TAKYON_MPI_FN_(int, Comm_create_keyval,
               (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state));
TAKYON_MPI_FN_(int, Comm_free_keyval, (int *comm_keyval));
TAKYON_MPI_FN_(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
TAKYON_MPI_FN_(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
TAKYON_MPI_FN_(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
/* Deprecated (MPI-2) but not removed: the MPI_Comm_ keyval and attribute functions' old names. */
TAKYON_MPI_FN_(int, Keyval_create,
               (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state));
TAKYON_MPI_FN_(int, Keyval_free, (int *keyval));
TAKYON_MPI_FN_(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
TAKYON_MPI_FN_(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
TAKYON_MPI_FN_(int, Attr_delete, (MPI_Comm comm, int keyval));
TAKYON_MPI_FN_(int, Type_create_keyval,
               (MPI_Type_copy_attr_function *type_copy_attr_fn,
                MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state));
TAKYON_MPI_FN_(int, Type_free_keyval, (int *type_keyval));
TAKYON_MPI_FN_(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
TAKYON_MPI_FN_(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
TAKYON_MPI_FN_(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));

/* Groups */
TAKYON_MPI_FN_(int, Group_size, (MPI_Group group, int *size));
TAKYON_MPI_FN_(int, Group_rank, (MPI_Group group, int *rank));
TAKYON_MPI_FN_(int, Group_translate_ranks,
               (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
TAKYON_MPI_FN_(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
TAKYON_MPI_FN_(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
TAKYON_MPI_FN_(int, Group_free, (MPI_Group *group));

/* Datatypes */
TAKYON_MPI_FN_(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_vector,
               (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_hvector,
               (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_indexed,
               (int count, const int array_of_blocklengths[], const int array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_hindexed,
               (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_indexed_block,
               (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
                MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_hindexed_block,
               (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_struct,
               (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_subarray,
               (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_darray,
               (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_create_resized,
               (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_commit, (MPI_Datatype *datatype));
TAKYON_MPI_FN_(int, Type_free, (MPI_Datatype *datatype));
TAKYON_MPI_FN_(int, Type_size, (MPI_Datatype datatype, int *size));
TAKYON_MPI_FN_(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
TAKYON_MPI_FN_(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
TAKYON_MPI_FN_(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
TAKYON_MPI_FN_(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
TAKYON_MPI_FN_(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
TAKYON_MPI_FN_(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
TAKYON_MPI_FN_(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
TAKYON_MPI_FN_(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
TAKYON_MPI_FN_(int, Type_get_envelope,
               (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                int *combiner));
TAKYON_MPI_FN_(int, Type_get_contents,
               (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]));
TAKYON_MPI_FN_(int, Get_address, (const void *location, MPI_Aint *address));
TAKYON_MPI_FN_(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
TAKYON_MPI_FN_(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
TAKYON_MPI_FN_(int, Pack,
               (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                int *position, MPI_Comm comm));
TAKYON_MPI_FN_(int, Unpack,
               (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
TAKYON_MPI_FN_(int, Pack_external,
               (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                MPI_Aint outsize, MPI_Aint *position));
TAKYON_MPI_FN_(int, Unpack_external,
               (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf,
                int outcount, MPI_Datatype datatype));
TAKYON_MPI_FN_(int, Pack_external_size,
               (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));

/* The MPI-1 names removed in MPI-3.0, which the MPI-5 ABI does not declare: declared only when the
   program defines TAKYON_MPI_ENABLE_MPI1_COMPAT to 1 before including mpi.h (as Open MPI declares its own
   with OMPI_OMIT_MPI1_COMPAT_DECLS=0). The library always defines them. */
#if defined(TAKYON_MPI_ENABLE_MPI1_COMPAT) && TAKYON_MPI_ENABLE_MPI1_COMPAT
TAKYON_MPI_FN_(int, Address, (void *location, MPI_Aint *address));
TAKYON_MPI_FN_(int, Type_hvector,
               (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_hindexed,
               (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_struct,
               (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                MPI_Datatype array_of_types[], MPI_Datatype *newtype));
TAKYON_MPI_FN_(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
TAKYON_MPI_FN_(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
TAKYON_MPI_FN_(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
#endif

/* Virtual topologies */
TAKYON_MPI_FN_(int, Topo_test, (MPI_Comm comm, int *status));
TAKYON_MPI_FN_(int, Dims_create, (int nnodes, int ndims, int dims[]));
TAKYON_MPI_FN_(int, Cart_create,
               (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm *comm_cart));
TAKYON_MPI_FN_(int, Cartdim_get, (MPI_Comm comm, int *ndims));
TAKYON_MPI_FN_(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
TAKYON_MPI_FN_(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
TAKYON_MPI_FN_(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
TAKYON_MPI_FN_(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
TAKYON_MPI_FN_(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
TAKYON_MPI_FN_(int, Graph_create,
               (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                MPI_Comm *comm_graph));
TAKYON_MPI_FN_(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
TAKYON_MPI_FN_(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
TAKYON_MPI_FN_(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
TAKYON_MPI_FN_(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
TAKYON_MPI_FN_(int, Cart_map,
               (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
TAKYON_MPI_FN_(int, Graph_map,
               (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
/* Weights are pointer parameters, not arrays: they take MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY, which
 * GCC's checks of array parameters would take for arrays of no elements. */
TAKYON_MPI_FN_(int, Dist_graph_create_adjacent,
               (MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights,
                int outdegree, const int destinations[], const int *destweights, MPI_Info info,
                int reorder, MPI_Comm *comm_dist_graph));
TAKYON_MPI_FN_(int, Dist_graph_create,
               (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                const int *weights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph));
TAKYON_MPI_FN_(int, Dist_graph_neighbors_count,
               (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
TAKYON_MPI_FN_(int, Dist_graph_neighbors,
               (MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree,
                int destinations[], int *destweights));

/* Neighbourhood collectives */
TAKYON_MPI_FN_(int, Neighbor_allgather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Neighbor_allgatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Neighbor_alltoall,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm));
TAKYON_MPI_FN_(int, Neighbor_alltoallv,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Comm comm));
TAKYON_MPI_FN_(int, Neighbor_alltoallw,
               (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
TAKYON_MPI_FN_(int, Ineighbor_allgather,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ineighbor_allgatherv,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Ineighbor_alltoall,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ineighbor_alltoallv,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Request *request));
TAKYON_MPI_FN_(int, Ineighbor_alltoallw,
               (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Request *request));

/* One-sided communication (RMA): windows, operations, synchronization. See docs/mpi.md for what
 * each supports; the large-count (_c) forms take MPI_Count counts and MPI_Aint sizes. */
TAKYON_MPI_FN_(int, Win_create,
               (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_create_c,
               (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_allocate,
               (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_allocate_c,
               (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_allocate_shared,
               (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_allocate_shared_c,
               (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
TAKYON_MPI_FN_(int, Win_shared_query_c,
               (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr));
TAKYON_MPI_FN_(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
TAKYON_MPI_FN_(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size));
TAKYON_MPI_FN_(int, Win_detach, (MPI_Win win, const void *base));
TAKYON_MPI_FN_(int, Win_free, (MPI_Win *win));
TAKYON_MPI_FN_(int, Win_get_group, (MPI_Win win, MPI_Group *group));
TAKYON_MPI_FN_(int, Win_set_name, (MPI_Win win, const char *win_name));
TAKYON_MPI_FN_(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
TAKYON_MPI_FN_(int, Win_set_info, (MPI_Win win, MPI_Info info));
TAKYON_MPI_FN_(int, Win_get_info, (MPI_Win win, MPI_Info *info_used));
TAKYON_MPI_FN_(int, Win_create_keyval,
               (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn,
                int *win_keyval, void *extra_state));
TAKYON_MPI_FN_(int, Win_free_keyval, (int *win_keyval));
TAKYON_MPI_FN_(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
TAKYON_MPI_FN_(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
TAKYON_MPI_FN_(int, Win_delete_attr, (MPI_Win win, int win_keyval));
TAKYON_MPI_FN_(int, Win_create_errhandler,
               (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
TAKYON_MPI_FN_(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
TAKYON_MPI_FN_(int, Win_call_errhandler, (MPI_Win win, int errorcode));

TAKYON_MPI_FN_(int, Put,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
TAKYON_MPI_FN_(int, Put_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));
TAKYON_MPI_FN_(int, Get,
               (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
TAKYON_MPI_FN_(int, Get_c,
               (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));
TAKYON_MPI_FN_(int, Accumulate,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
TAKYON_MPI_FN_(int, Accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                MPI_Win win));
TAKYON_MPI_FN_(int, Get_accumulate,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
TAKYON_MPI_FN_(int, Get_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr,
                MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
TAKYON_MPI_FN_(int, Fetch_and_op,
               (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                MPI_Aint target_disp, MPI_Op op, MPI_Win win));
TAKYON_MPI_FN_(int, Compare_and_swap,
               (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype,
                int target_rank, MPI_Aint target_disp, MPI_Win win));
TAKYON_MPI_FN_(int, Rput,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Rput_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Rget,
               (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Rget_c,
               (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Raccumulate,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                MPI_Request *request));
TAKYON_MPI_FN_(int, Raccumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                MPI_Win win, MPI_Request *request));
TAKYON_MPI_FN_(int, Rget_accumulate,
               (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
TAKYON_MPI_FN_(int, Rget_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr,
                MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                MPI_Request *request));

TAKYON_MPI_FN_(int, Win_fence, (int assert, MPI_Win win));
TAKYON_MPI_FN_(int, Win_post, (MPI_Group group, int assert, MPI_Win win));
TAKYON_MPI_FN_(int, Win_start, (MPI_Group group, int assert, MPI_Win win));
TAKYON_MPI_FN_(int, Win_complete, (MPI_Win win));
TAKYON_MPI_FN_(int, Win_wait, (MPI_Win win));
TAKYON_MPI_FN_(int, Win_test, (MPI_Win win, int *flag));
TAKYON_MPI_FN_(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
TAKYON_MPI_FN_(int, Win_unlock, (int rank, MPI_Win win));
TAKYON_MPI_FN_(int, Win_lock_all, (int assert, MPI_Win win));
TAKYON_MPI_FN_(int, Win_unlock_all, (MPI_Win win));
TAKYON_MPI_FN_(int, Win_flush, (int rank, MPI_Win win));
TAKYON_MPI_FN_(int, Win_flush_all, (MPI_Win win));
TAKYON_MPI_FN_(int, Win_flush_local, (int rank, MPI_Win win));
TAKYON_MPI_FN_(int, Win_flush_local_all, (MPI_Win win));
TAKYON_MPI_FN_(int, Win_sync, (MPI_Win win));

/* Handles as integers: the ABI's MPI_<Kind>_toint / _fromint and the Fortran conversions
 * MPI_<Kind>_c2f / _f2c (MPI_Fint is int: the same integers). */
TAKYON_MPI_FN_(int, Comm_toint, (MPI_Comm comm));
TAKYON_MPI_FN_(MPI_Comm, Comm_fromint, (int comm));
TAKYON_MPI_FN_(MPI_Fint, Comm_c2f, (MPI_Comm comm));
TAKYON_MPI_FN_(MPI_Comm, Comm_f2c, (MPI_Fint comm));
TAKYON_MPI_FN_(int, Errhandler_toint, (MPI_Errhandler errhandler));
TAKYON_MPI_FN_(MPI_Errhandler, Errhandler_fromint, (int errhandler));
TAKYON_MPI_FN_(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler));
TAKYON_MPI_FN_(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler));
TAKYON_MPI_FN_(int, Group_toint, (MPI_Group group));
TAKYON_MPI_FN_(MPI_Group, Group_fromint, (int group));
TAKYON_MPI_FN_(MPI_Fint, Group_c2f, (MPI_Group group));
TAKYON_MPI_FN_(MPI_Group, Group_f2c, (MPI_Fint group));
TAKYON_MPI_FN_(int, Info_toint, (MPI_Info info));
TAKYON_MPI_FN_(MPI_Info, Info_fromint, (int info));
TAKYON_MPI_FN_(MPI_Fint, Info_c2f, (MPI_Info info));
TAKYON_MPI_FN_(MPI_Info, Info_f2c, (MPI_Fint info));
TAKYON_MPI_FN_(int, Message_toint, (MPI_Message message));
TAKYON_MPI_FN_(MPI_Message, Message_fromint, (int message));
TAKYON_MPI_FN_(MPI_Fint, Message_c2f, (MPI_Message message));
TAKYON_MPI_FN_(MPI_Message, Message_f2c, (MPI_Fint message));
TAKYON_MPI_FN_(int, Op_toint, (MPI_Op op));
TAKYON_MPI_FN_(MPI_Op, Op_fromint, (int op));
TAKYON_MPI_FN_(MPI_Fint, Op_c2f, (MPI_Op op));
TAKYON_MPI_FN_(MPI_Op, Op_f2c, (MPI_Fint op));
TAKYON_MPI_FN_(int, Request_toint, (MPI_Request request));
TAKYON_MPI_FN_(MPI_Request, Request_fromint, (int request));
TAKYON_MPI_FN_(MPI_Fint, Request_c2f, (MPI_Request request));
TAKYON_MPI_FN_(MPI_Request, Request_f2c, (MPI_Fint request));
TAKYON_MPI_FN_(int, Session_toint, (MPI_Session session));
TAKYON_MPI_FN_(MPI_Session, Session_fromint, (int session));
TAKYON_MPI_FN_(MPI_Fint, Session_c2f, (MPI_Session session));
TAKYON_MPI_FN_(MPI_Session, Session_f2c, (MPI_Fint session));
TAKYON_MPI_FN_(int, Type_toint, (MPI_Datatype datatype));
TAKYON_MPI_FN_(MPI_Datatype, Type_fromint, (int datatype));
TAKYON_MPI_FN_(MPI_Fint, Type_c2f, (MPI_Datatype datatype));
TAKYON_MPI_FN_(MPI_Datatype, Type_f2c, (MPI_Fint datatype));
TAKYON_MPI_FN_(int, Win_toint, (MPI_Win win));
TAKYON_MPI_FN_(MPI_Win, Win_fromint, (int win));
TAKYON_MPI_FN_(MPI_Fint, Win_c2f, (MPI_Win win));
TAKYON_MPI_FN_(MPI_Win, Win_f2c, (MPI_Fint win));

/* clang-format on */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TAKYON_MPI_H_ */
