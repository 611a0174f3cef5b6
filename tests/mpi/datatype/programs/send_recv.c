/* SPDX-License-Identifier: MIT */
/* Point-to-point with derived datatypes around a ring (rank r sends to r+1, receives from r-1; np 1
 * sends to itself): vector, indexed with negative displacements, struct, resized, pair types; eager
 * and rendezvous sizes; contiguous sender to vector receiver and back; partial receives with
 * Get_count/Get_elements; Probe + Get_elements; ANY_SOURCE; Sendrecv(_replace); persistent requests;
 * Bsend; MPI_BOTTOM with absolute addresses; Type_free while a receive is in flight; truncation;
 * Request_get_status. Every received element is checked, and every hole of a receive buffer must
 * still hold its sentinel. np 1-5. */
#include <stddef.h>

#include "test_util.h"

#define SENTINEL (-7777)

static int rank, size, next, prev;

/* Value of element k sent by rank `from` in case `c`. */
static int val(int c, int from, int k) {
  return c * 100000 + from * 1000 + k;
}

/* Element positions (in ints) of `count` items of vector(nb, bl, stride) of ints, item extent in ints. */
static int vec_pos(int k, int nb, int bl, int stride, int item_ext) {
  int item = k / (nb * bl), in = k % (nb * bl);
  return item * item_ext + (in / bl) * stride + in % bl;
}

/* Checks a receive buffer of n ints: positions pos[0..m) hold val(c, from, 0..m), every other one SENTINEL.
 */
static void check_ints(const char *what, const int *buf, int n, const int *pos, int m, int c, int from) {
  int *want = (int *)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) want[i] = SENTINEL;
  for (int k = 0; k < m; ++k) want[pos[k]] = val(c, from, k);
  for (int i = 0; i < n; ++i) {
    if (buf[i] != want[i]) {
      fprintf(stderr, "rank %d: %s: int %d is %d, expected %d\n", rank, what, i, buf[i], want[i]);
      MPI_Abort(MPI_COMM_WORLD, 5);
    }
  }
  free(want);
}

static void fill_sentinel(int *buf, int n) {
  for (int i = 0; i < n; ++i) buf[i] = SENTINEL;
}

static void ring(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
                 MPI_Status *status) {
  MPI_Request q[2];
  MPI_Status s[2];
  CHECK_MPI(MPI_Irecv(rbuf, rcount, rt, prev, 7, MPI_COMM_WORLD, &q[0]));
  CHECK_MPI(MPI_Isend(sbuf, scount, st, next, 7, MPI_COMM_WORLD, &q[1]));
  CHECK_MPI(MPI_Waitall(2, q, s));
  *status = s[0];
}

static void counts(const char *what, MPI_Status *st, MPI_Datatype t) {
  int n = -1, e = -1, b = -1;
  MPI_Count ex = -1;
  CHECK_MPI(MPI_Get_count(st, t, &n));
  CHECK_MPI(MPI_Get_elements(st, t, &e));
  CHECK_MPI(MPI_Get_elements_x(st, t, &ex));
  CHECK(ex == e);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &b));
  PRINT0("%s: count %s%d elements %d bytes %d\n", what, n == MPI_UNDEFINED ? "UNDEFINED " : "",
         n == MPI_UNDEFINED ? 0 : n, e, b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank = world_rank();
  size = world_size();
  next = (rank + 1) % size;
  prev = (rank - 1 + size) % size;
  MPI_Status st;

  /* 1. vector(3 blocks of 2, stride 5) x 4 items, both sides (eager). */
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  MPI_Aint lb, ext;
  CHECK_MPI(MPI_Type_get_extent(vec, &lb, &ext));
  int item_ext = (int)(ext / (MPI_Aint)sizeof(int)); /* 12 */
  enum { kItems = 4, kVecInts = 4 * 12, kElems = 4 * 6 };
  int sbuf[kVecInts], rbuf[kVecInts], pos[kElems];
  for (int k = 0; k < kElems; ++k) pos[k] = vec_pos(k, 3, 2, 5, item_ext);
  fill_sentinel(sbuf, kVecInts);
  for (int k = 0; k < kElems; ++k) sbuf[pos[k]] = val(1, rank, k);
  fill_sentinel(rbuf, kVecInts);
  ring(sbuf, kItems, vec, rbuf, kItems, vec, &st);
  check_ints("vector->vector", rbuf, kVecInts, pos, kElems, 1, prev);
  counts("vector->vector", &st, vec);

  /* 2. vector sender -> contiguous receiver, contiguous sender -> vector receiver. */
  int cont[kElems + 3], cpos[kElems + 3];
  for (int k = 0; k < kElems + 3; ++k) cpos[k] = k;
  fill_sentinel(cont, kElems + 3);
  ring(sbuf, kItems, vec, cont, kElems + 3, MPI_INT, &st);
  check_ints("vector->int", cont, kElems + 3, cpos, kElems, 1, prev);
  counts("vector->int", &st, MPI_INT);
  for (int k = 0; k < kElems; ++k) cont[k] = val(2, rank, k);
  fill_sentinel(rbuf, kVecInts);
  ring(cont, kElems, MPI_INT, rbuf, kItems, vec, &st);
  check_ints("int->vector", rbuf, kVecInts, pos, kElems, 2, prev);

  /* 3. Partial receives: 2.5 items, 7 ints, 0 ints into a vector receive. */
  fill_sentinel(rbuf, kVecInts);
  ring(cont, 15, MPI_INT, rbuf, kItems, vec, &st);
  check_ints("partial 15 ints->vector", rbuf, kVecInts, pos, 15, 2, prev);
  counts("partial 15 ints->vector", &st, vec);
  counts("partial 15 ints as MPI_INT", &st, MPI_INT);
  fill_sentinel(rbuf, kVecInts);
  ring(cont, 0, MPI_INT, rbuf, kItems, vec, &st);
  check_ints("0 ints->vector", rbuf, kVecInts, pos, 0, 2, prev);
  counts("0 ints->vector", &st, vec);

  /* 4. indexed with negative displacements, received through a pointer into the middle of a buffer. */
  int ibl[3] = {2, 1, 3}, idisp[3] = {-6, 0, 4};
  MPI_Datatype idx;
  CHECK_MPI(MPI_Type_indexed(3, ibl, idisp, MPI_INT, &idx));
  CHECK_MPI(MPI_Type_commit(&idx));
  CHECK_MPI(MPI_Type_get_extent(idx, &lb, &ext));
  CHECK(lb == -6 * (MPI_Aint)sizeof(int) && ext == 13 * (MPI_Aint)sizeof(int));
  enum { kIdxInts = 3 * 13 + 10 };
  int ibuf[kIdxInts], irecv[kIdxInts], ipos[18];
  const int order[6] = {-6, -5, 0, 4, 5, 6};
  for (int k = 0; k < 18; ++k) ipos[k] = 6 + (k / 6) * 13 + order[k % 6];
  fill_sentinel(ibuf, kIdxInts);
  for (int k = 0; k < 18; ++k) ibuf[ipos[k]] = val(4, rank, k);
  fill_sentinel(irecv, kIdxInts);
  ring(ibuf + 6, 3, idx, irecv + 6, 3, idx, &st);
  check_ints("indexed", irecv, kIdxInts, ipos, 18, 4, prev);
  counts("indexed", &st, idx);

  /* 5. struct {int a; double d; char c; int b[2];} with a hole, resized to its C size. */
  struct S {
    int a;
    double d;
    char c;
    int b[2];
  };
  struct S ss[3], rs[3];
  int sbl[4] = {1, 1, 1, 2};
  MPI_Aint sd[4] = {offsetof(struct S, a), offsetof(struct S, d), offsetof(struct S, c),
                    offsetof(struct S, b)};
  MPI_Datatype sty[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_INT}, stype, stype_r;
  CHECK_MPI(MPI_Type_create_struct(4, sbl, sd, sty, &stype));
  CHECK_MPI(MPI_Type_create_resized(stype, 0, sizeof(struct S), &stype_r));
  CHECK_MPI(MPI_Type_commit(&stype_r));
  memset(ss, 0x5a, sizeof ss);
  for (int i = 0; i < 3; ++i) {
    ss[i].a = val(5, rank, i);
    ss[i].d = 0.5 + val(5, rank, i);
    ss[i].c = (char)('a' + rank + i);
    ss[i].b[0] = -val(5, rank, i);
    ss[i].b[1] = i;
  }
  memset(rs, 0x33, sizeof rs);
  ring(ss, 3, stype_r, rs, 3, stype_r, &st);
  for (int i = 0; i < 3; ++i) {
    CHECK(rs[i].a == val(5, prev, i) && rs[i].d == 0.5 + val(5, prev, i) &&
          rs[i].c == (char)('a' + prev + i));
    CHECK(rs[i].b[0] == -val(5, prev, i) && rs[i].b[1] == i);
    const unsigned char *raw = (const unsigned char *)&rs[i];
    for (size_t b = offsetof(struct S, a) + sizeof(int); b < offsetof(struct S, d); ++b)
      CHECK(raw[b] == 0x33);
    for (size_t b = offsetof(struct S, c) + 1; b < offsetof(struct S, b); ++b) CHECK(raw[b] == 0x33);
  }
  counts("struct", &st, stype_r);
  counts("struct as MPI_BYTE", &st, MPI_BYTE);

  /* 6. Pair types: size is the sum of the members, the padding never moves. */
  struct DI {
    double d;
    int i;
  } di[4], rdi[4];
  memset(di, 0, sizeof di);
  for (int i = 0; i < 4; ++i) {
    di[i].d = val(6, rank, i);
    di[i].i = i + rank;
  }
  memset(rdi, 0x44, sizeof rdi);
  ring(di, 4, MPI_DOUBLE_INT, rdi, 4, MPI_DOUBLE_INT, &st);
  for (int i = 0; i < 4; ++i) {
    CHECK(rdi[i].d == val(6, prev, i) && rdi[i].i == i + prev);
    const unsigned char *raw = (const unsigned char *)&rdi[i];
    for (size_t b = sizeof(double) + sizeof(int); b < sizeof(struct DI); ++b) CHECK(raw[b] == 0x44);
  }
  /* Open MPI 4.1 counts a pair as one basic element; the standard defines the pair types as structs
   * of two (MPI_Type_create_struct), so libtakyon_mpi counts two. */
  int n = -1, e = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
  CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE_INT, &e));
  CHECK(n == 4 && (!takyon_mpi() || e == 8));
  PRINT0("MPI_DOUBLE_INT: count %d\n", n);
  memset(rdi, 0x44, sizeof rdi);
  ring(di, 1, MPI_DOUBLE, rdi, 4, MPI_DOUBLE_INT, &st);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
  CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE_INT, &e));
  CHECK(n == MPI_UNDEFINED && (!takyon_mpi() || e == 1));
  CHECK(rdi[0].d == val(6, prev, 0) && rdi[0].i == 0x44444444);

  /* 7. Rendezvous: every other double of 200000 (1.6 MB packed), vector both ways and to contiguous. */
  enum { kBig = 200000 };
  MPI_Datatype every2;
  CHECK_MPI(MPI_Type_vector(kBig, 1, 2, MPI_DOUBLE, &every2));
  CHECK_MPI(MPI_Type_commit(&every2));
  double *bs = (double *)malloc(sizeof(double) * 2 * kBig), *br = (double *)malloc(sizeof(double) * 2 * kBig);
  for (int i = 0; i < 2 * kBig; ++i) bs[i] = (i % 2 == 0) ? (double)val(7, rank, i / 2) : -1.0;
  for (int i = 0; i < 2 * kBig; ++i) br[i] = -2.0;
  ring(bs, 1, every2, br, 1, every2, &st);
  for (int i = 0; i < 2 * kBig; ++i) CHECK(br[i] == ((i % 2 == 0) ? (double)val(7, prev, i / 2) : -2.0));
  ring(bs, 1, every2, br, kBig, MPI_DOUBLE, &st);
  for (int i = 0; i < kBig; ++i) CHECK(br[i] == (double)val(7, prev, i));
  counts("rendezvous vector->double", &st, MPI_DOUBLE);

  /* 8. Probe + Get_elements, then a blocking MPI_Recv with a derived type. */
  MPI_Request q;
  CHECK_MPI(MPI_Isend(sbuf, 3, vec, next, 8, MPI_COMM_WORLD, &q));
  CHECK_MPI(MPI_Probe(prev, 8, MPI_COMM_WORLD, &st));
  counts("probe vector", &st, vec);
  counts("probe as MPI_INT", &st, MPI_INT);
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Recv(rbuf, kItems, vec, prev, 8, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  check_ints("probe+recv", rbuf, kVecInts, pos, 18, 1, prev);

  /* 9. ANY_SOURCE with a derived type (one message from prev). */
  CHECK_MPI(MPI_Isend(ibuf + 6, 2, idx, next, 9, MPI_COMM_WORLD, &q));
  fill_sentinel(irecv, kIdxInts);
  CHECK_MPI(MPI_Recv(irecv + 6, 3, idx, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == prev);
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  check_ints("any_source indexed", irecv, kIdxInts, ipos, 12, 4, prev);

  /* 10. Sendrecv and Sendrecv_replace with a vector. */
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Sendrecv(sbuf, kItems, vec, next, 10, rbuf, kItems, vec, prev, 10, MPI_COMM_WORLD, &st));
  check_ints("sendrecv", rbuf, kVecInts, pos, kElems, 1, prev);
  int rep[kVecInts];
  memcpy(rep, sbuf, sizeof rep);
  CHECK_MPI(MPI_Sendrecv_replace(rep, kItems, vec, next, 11, prev, 11, MPI_COMM_WORLD, &st));
  check_ints("sendrecv_replace", rep, kVecInts, pos, kElems, 1, prev);

  /* 11. Persistent requests: the send packs at every Start, the receive unpacks at every Wait. */
  MPI_Request pr[2];
  int psend[kVecInts];
  fill_sentinel(psend, kVecInts);
  CHECK_MPI(MPI_Recv_init(rbuf, 2, vec, prev, 12, MPI_COMM_WORLD, &pr[0]));
  CHECK_MPI(MPI_Send_init(psend, 2, vec, next, 12, MPI_COMM_WORLD, &pr[1]));
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 12; ++k) psend[pos[k]] = val(20 + round, rank, k);
    fill_sentinel(rbuf, kVecInts);
    CHECK_MPI(MPI_Startall(2, pr));
    CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
    check_ints("persistent", rbuf, kVecInts, pos, 12, 20 + round, prev);
  }
  CHECK_MPI(MPI_Request_free(&pr[0]));
  CHECK_MPI(MPI_Request_free(&pr[1]));

  /* 12. Bsend with a derived type: the data is taken at the call. */
  int bsize = 0;
  CHECK_MPI(MPI_Pack_size(kItems, vec, MPI_COMM_WORLD, &bsize));
  bsize += MPI_BSEND_OVERHEAD;
  char *attach = (char *)malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(attach, bsize));
  int bcopy[kVecInts];
  memcpy(bcopy, sbuf, sizeof bcopy);
  CHECK_MPI(MPI_Bsend(bcopy, kItems, vec, next, 13, MPI_COMM_WORLD));
  fill_sentinel(bcopy, kVecInts);
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Recv(rbuf, kItems, vec, prev, 13, MPI_COMM_WORLD, &st));
  check_ints("bsend", rbuf, kVecInts, pos, kElems, 1, prev);
  void *detached;
  CHECK_MPI(MPI_Buffer_detach(&detached, &bsize));
  free(attach);

  /* 13. MPI_BOTTOM with absolute addresses. */
  int x = val(14, rank, 0), y[2] = {val(14, rank, 1), val(14, rank, 2)}, rx = SENTINEL,
      ry[2] = {SENTINEL, SENTINEL};
  MPI_Aint ax[2], arx[2];
  CHECK_MPI(MPI_Get_address(&x, &ax[0]));
  CHECK_MPI(MPI_Get_address(y, &ax[1]));
  CHECK_MPI(MPI_Get_address(&rx, &arx[0]));
  CHECK_MPI(MPI_Get_address(ry, &arx[1]));
  int abl[2] = {1, 2};
  MPI_Datatype aty[2] = {MPI_INT, MPI_INT}, abs_s, abs_r;
  CHECK_MPI(MPI_Type_create_struct(2, abl, ax, aty, &abs_s));
  CHECK_MPI(MPI_Type_create_struct(2, abl, arx, aty, &abs_r));
  CHECK_MPI(MPI_Type_commit(&abs_s));
  CHECK_MPI(MPI_Type_commit(&abs_r));
  ring(MPI_BOTTOM, 1, abs_s, MPI_BOTTOM, 1, abs_r, &st);
  CHECK(rx == val(14, prev, 0) && ry[0] == val(14, prev, 1) && ry[1] == val(14, prev, 2));
  CHECK_MPI(MPI_Type_free(&abs_s));
  CHECK_MPI(MPI_Type_free(&abs_r));
  /* One absolute block: a contiguous type whose data is at MPI_BOTTOM + its lower bound. */
  CHECK_MPI(MPI_Type_create_struct(1, abl + 1, ax + 1, aty, &abs_s));
  CHECK_MPI(MPI_Type_create_struct(1, abl + 1, arx + 1, aty, &abs_r));
  CHECK_MPI(MPI_Type_commit(&abs_s));
  CHECK_MPI(MPI_Type_commit(&abs_r));
  ry[0] = ry[1] = SENTINEL;
  y[0] = val(14, rank, 3);
  ring(MPI_BOTTOM, 1, abs_s, MPI_BOTTOM, 1, abs_r, &st);
  CHECK(ry[0] == val(14, prev, 3) && ry[1] == val(14, prev, 2));
  CHECK_MPI(
      MPI_Sendrecv(MPI_BOTTOM, 1, abs_s, next, 17, MPI_BOTTOM, 1, abs_r, prev, 17, MPI_COMM_WORLD, &st));
  CHECK(ry[0] == val(14, prev, 3));
  CHECK_MPI(MPI_Type_free(&abs_s));
  CHECK_MPI(MPI_Type_free(&abs_r));

  /* 14. MPI_Type_free while a receive and a send with the type are in flight. */
  MPI_Datatype tmp;
  CHECK_MPI(MPI_Type_dup(vec, &tmp));
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Irecv(rbuf, kItems, tmp, prev, 15, MPI_COMM_WORLD, &pr[0]));
  CHECK_MPI(MPI_Isend(sbuf, kItems, tmp, next, 15, MPI_COMM_WORLD, &pr[1]));
  CHECK_MPI(MPI_Type_free(&tmp));
  CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
  check_ints("type freed in flight", rbuf, kVecInts, pos, kElems, 1, prev);

  /* 15. Truncation into a derived type: MPI_ERR_TRUNCATE, the typemap's prefix delivered, holes kept. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int longer[kElems + 6];
  for (int k = 0; k < kElems + 6; ++k) longer[k] = val(3, rank, k);
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Isend(longer, kElems + 6, MPI_INT, next, 18, MPI_COMM_WORLD, &q));
  int rc = MPI_Recv(rbuf, kItems, vec, prev, 18, MPI_COMM_WORLD, &st);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  check_ints("truncated", rbuf, kVecInts, pos, kElems, 3, prev);
  PRINT0("truncated receive into a vector: MPI_ERR_TRUNCATE, prefix delivered\n");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* 16. Request_get_status: once it says complete, the data is in the user's buffer (before Wait). */
  fill_sentinel(rbuf, kVecInts);
  CHECK_MPI(MPI_Irecv(rbuf, kItems, vec, prev, 16, MPI_COMM_WORLD, &pr[0]));
  CHECK_MPI(MPI_Isend(sbuf, kItems, vec, next, 16, MPI_COMM_WORLD, &pr[1]));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Request_get_status(pr[0], &flag, &st));
  check_ints("request_get_status", rbuf, kVecInts, pos, kElems, 1, prev);
  counts("request_get_status", &st, vec);
  CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
  check_ints("request_get_status then wait", rbuf, kVecInts, pos, kElems, 1, prev);

  /* 17. A contiguous type whose lower bound is not 0 (4 ints at displacement 3 ints): blocking MPI_Recv
   * and MPI_Sendrecv (their eager fast paths) and Isend/Irecv put the data at buf + lb and leave the
   * 3 ints before it alone. */
  {
    MPI_Datatype shifted;
    int disp = 3;
    CHECK_MPI(MPI_Type_create_indexed_block(1, 4, &disp, MPI_INT, &shifted));
    CHECK_MPI(MPI_Type_commit(&shifted));
    int out[7], in[7], at[4] = {3, 4, 5, 6};
    for (int k = 0; k < 4; ++k) out[3 + k] = val(17, rank, k);
    for (int round = 0; round < 3; ++round) {
      fill_sentinel(in, 7);
      if (round == 0) { /* blocking: even ranks send first (a ring needs someone to start) */
        if (rank % 2 == 0) {
          CHECK_MPI(MPI_Send(out, 1, shifted, next, 17, MPI_COMM_WORLD));
          CHECK_MPI(MPI_Recv(in, 1, shifted, prev, 17, MPI_COMM_WORLD, &st));
        } else {
          CHECK_MPI(MPI_Recv(in, 1, shifted, prev, 17, MPI_COMM_WORLD, &st));
          CHECK_MPI(MPI_Send(out, 1, shifted, next, 17, MPI_COMM_WORLD));
        }
      } else if (round == 1) {
        CHECK_MPI(MPI_Sendrecv(out, 1, shifted, next, 17, in, 1, shifted, prev, 17, MPI_COMM_WORLD, &st));
      } else {
        ring(out, 1, shifted, in, 1, shifted, &st);
      }
      check_ints("lower bound 12", in, 7, at, 4, 17, prev);
    }
    counts("lower bound 12", &st, shifted);
    CHECK_MPI(MPI_Type_free(&shifted));
  }

  /* 18. A non-contiguous receive freed while active (MPI_Irecv + MPI_Request_free): its data still
   * reaches the buffer. A second message from the same sender, received blocking, has arrived after
   * it (non-overtaking), so the first one is complete by then. */
  {
    int out2[5], in2[5], at2[3] = {0, 2, 4};
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    for (int k = 0; k < 5; ++k) out2[k] = k % 2 == 0 ? val(18, rank, k / 2) : -1;
    fill_sentinel(in2, 5);
    MPI_Request fr;
    int token = 0, got = 0;
    CHECK_MPI(MPI_Irecv(in2, 1, strided, prev, 18, MPI_COMM_WORLD, &fr));
    CHECK_MPI(MPI_Request_free(&fr));
    CHECK(fr == MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Send(out2, 1, strided, next, 18, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, next, 19, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, prev, 19, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_ints("freed active receive", in2, 5, at2, 3, 18, prev);
    CHECK_MPI(MPI_Type_free(&strided));
    PRINT0("freed active non-contiguous receive: delivered\n");
  }

  free(bs);
  free(br);
  CHECK_MPI(MPI_Type_free(&every2));
  CHECK_MPI(MPI_Type_free(&stype));
  CHECK_MPI(MPI_Type_free(&stype_r));
  CHECK_MPI(MPI_Type_free(&idx));
  CHECK_MPI(MPI_Type_free(&vec));
  PRINT0("send_recv: done\n");
  MPI_Finalize();
  return 0;
}
