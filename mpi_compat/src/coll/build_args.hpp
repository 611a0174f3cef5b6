// SPDX-License-Identifier: MIT
// What the collectives' builders share (coll/build.cpp, and coll/build_inter.cpp for
// intercommunicators): the argument checks every collective makes alike (errors name `fn` and the
// argument) and Views, the packed bytes a schedule moves for a user buffer of any datatype.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/schedule.hpp"
#include "datatype/datatype.hpp"
#include "errors.hpp"
#include "mpi.h"

namespace takyon::mpi {

/// MPI_ERR_COUNT for a negative `count` (argument `arg`).
void check_coll_count(const char* fn, int count, const char* arg);
/// count items of dt at buf: a valid datatype, and a buffer unless nothing is there.
void check_buf(const char* fn, const void* buf, int count, MPI_Datatype dt, const char* buf_arg,
               const char* count_arg, const char* type_arg);
/// p counts (and displacements, unless `displs_arg` is null), none negative.
void check_counts(const char* fn, const int* counts, const int* displs, int p, const char* counts_arg,
                  const char* displs_arg);
/// A reduction's count, datatype and op.
void check_reduction(const char* fn, int count, MPI_Datatype dt, MPI_Op op);
/// MPI_ERR_BUFFER when sendbuf and recvbuf are one buffer (and something moves).
void check_distinct(const char* fn, const void* sendbuf, const void* recvbuf, bool nonempty);
/// What a reduction of `count` items of `dt` with `op` reduces.
ReduceSpec spec(int count, MPI_Datatype dt, MPI_Op op);

/// Sends and receives through packed bytes: a contiguous datatype's items are used in place; any
/// other is packed into scratch when the schedule starts (data to send: Schedule::pack, so that a
/// persistent collective reads the buffer anew at each start) or unpacked after the algorithm
/// (data received).
class Views {
 public:
  explicit Views(Schedule& s) : s_(s) {}
  /// Data read by the collective. Every buffer of a collective passes here or through out(), where
  /// `count` items that overflow 64 bits (a whole gather's p x count) are MPI_ERR_COUNT.
  const char* in(const void* buf, std::size_t count, MPI_Datatype dt) {
    const std::size_t bytes = items_bytes(dt, count, s_.fn(), "count");
    if (type_is_contiguous(dt) || count == 0) return static_cast<const char*>(buf) + type_lb(dt);
    char* packed = s_.scratch(bytes);
    s_.pack(buf, count, dt, packed);
    return packed;
  }
  /// Data written by the collective; `keep`: it starts with buf's current data (MPI_IN_PLACE).
  char* out(void* buf, std::size_t count, MPI_Datatype dt, bool keep) {
    const std::size_t bytes = items_bytes(dt, count, s_.fn(), "count");
    if (type_is_contiguous(dt) || count == 0) return static_cast<char*>(buf) + type_lb(dt);
    char* packed = s_.scratch(bytes);
    if (keep) s_.pack(buf, count, dt, packed);
    unpacks_.push_back(Unpack{packed, count, dt, buf});
    return packed;
  }
  /// Blocks at buf + displ[i] * extent (or bytes when `byte_displs`), counts[i] items of types[i].
  /// Disp: int (the v-collectives) or MPI_Aint (the byte displacements of Neighbor_alltoallw).
  template <class Disp>
  Blocks blocks(void* buf, const int* counts, const Disp* displs, const MPI_Datatype* types,
                MPI_Datatype type, int p, bool byte_displs, bool write, int keep = -1) {
    Blocks b;
    for (int i = 0; i < p; ++i) {
      MPI_Datatype t = types != nullptr ? types[i] : type;
      auto d = MPI_Aint(displs[i]);
      if (!byte_displs && __builtin_mul_overflow(MPI_Aint(displs[i]), type_extent(t), &d)) {
        fail(MPI_ERR_COUNT, s_.fn(),
             "displacement " + std::to_string(displs[i]) + " x extent " + std::to_string(type_extent(t)) +
                 " overflows MPI_Aint (argument displs[" + std::to_string(i) + "])");
      }
      char* at = static_cast<char*>(buf) + d;
      auto n = std::size_t(counts[i]);
      b.at.push_back(write ? out(at, n, t, i == keep) : const_cast<char*>(in(at, n, t)));
      b.bytes.push_back(n * type_size(t));
    }
    return b;
  }
  /// After the algorithm: the unpacking round.
  void finish() {
    if (unpacks_.empty()) return;
    s_.next_round();
    for (const Unpack& u : unpacks_) s_.unpack(u.packed, u.count, u.dt, u.buf);
    s_.next_round();
  }

 private:
  struct Unpack {
    const char* packed;
    std::size_t count;
    MPI_Datatype dt;
    void* buf;
  };
  Schedule& s_;
  std::vector<Unpack> unpacks_;
};

}  // namespace takyon::mpi
