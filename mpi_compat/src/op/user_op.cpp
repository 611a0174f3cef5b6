// SPDX-License-Identifier: MIT
// User ops: creation, freeing (while a pending reduction may hold them), lookup and application (see
// user_op.hpp and op.hpp).
#include "op/user_op.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "datatype/datatype.hpp"
#include "errors.hpp"
#include "op/op.hpp"

namespace takyon::mpi {
namespace {

/// Live user ops; a handle is the address of its UserOp, checked against this list before use.
std::vector<std::shared_ptr<UserOp>>& user_ops() {
  static std::vector<std::shared_ptr<UserOp>> ops;
  return ops;
}

/// Freed user ops that a pending reduction still holds (hold_op): its steps name them by handle. A
/// live op's address is no other op's handle, so only that reduction finds one.
std::vector<std::weak_ptr<UserOp>>& retired_ops() {
  static std::vector<std::weak_ptr<UserOp>> ops;
  return ops;
}

bool maybe_user(MPI_Op op) {
  return reinterpret_cast<std::uintptr_t>(op) >= 0x100;  // predefined ops: 0x020..0x03d
}

/// A non-contiguous datatype: pieces of the packed operands are unpacked into scratch laid out like
/// the user's buffer, combined, and the result packed back. Pieces of at most kPiece bytes of span
/// (one item at least).
void apply_unpacked(const UserOp& u, MPI_Datatype dt, const char* in, char* inout, std::size_t count) {
  constexpr MPI_Aint kPiece = MPI_Aint(1) << 20;
  const std::size_t size = type_size(dt);
  const MPI_Aint extent = type_extent(dt);
  const MPI_Aint true_lb = type_true_lb(dt);
  const MPI_Aint true_extent = type_true_extent(dt);
  std::size_t per = 1;
  if (extent > 0 && true_extent < kPiece) per = std::size_t((kPiece - true_extent) / extent + 1);
  std::vector<char> a, b;
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(per, count - done);
    const MPI_Aint span = MPI_Aint(n - 1) * std::max<MPI_Aint>(extent, 0) + true_extent;
    a.assign(std::size_t(span), 0);
    b.assign(std::size_t(span), 0);
    char* xa = a.data() - true_lb;  // where the user's buffer would start
    char* xb = b.data() - true_lb;
    unpack(in + done * size, n * size, n, dt, xa);
    unpack(inout + done * size, n * size, n, dt, xb);
    int len = int(n);
    MPI_Datatype d = dt;
    u.fn(xa, xb, &len, &d);
    pack(xb, n, dt, inout + done * size);
    done += n;
  }
}

}  // namespace

UserOp* find_user(MPI_Op op) {
  if (!maybe_user(op)) return nullptr;
  for (auto& u : user_ops()) {
    if (reinterpret_cast<MPI_Op>(u.get()) == op) return u.get();
  }
  return nullptr;
}

UserOp* find_user_in_use(MPI_Op op) {
  if (UserOp* u = find_user(op)) return u;
  if (!maybe_user(op)) return nullptr;
  for (auto& w : retired_ops()) {
    std::shared_ptr<UserOp> u = w.lock();
    if (u != nullptr && reinterpret_cast<MPI_Op>(u.get()) == op) return u.get();  // the holder keeps it
  }
  return nullptr;
}

void apply_user_op(const UserOp& u, MPI_Datatype dt, const void* in, void* inout, std::size_t count) {
  if (!type_is_contiguous(dt)) {
    apply_unpacked(u, dt, static_cast<const char*>(in), static_cast<char*>(inout), count);
    return;
  }
  // The user function takes an int length: very large reductions go in pieces.
  std::size_t extent = std::size_t(type_extent(dt));
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(inout);
  for (std::size_t done = 0; done < count;) {
    int len = int(std::min<std::size_t>(count - done, 1U << 30));
    MPI_Datatype d = dt;
    u.fn(const_cast<char*>(src + done * extent), dst + done * extent, &len, &d);
    done += std::size_t(len);
  }
}

MPI_Op create_user_op(MPI_User_function* fn, bool commute) {
  auto u = std::make_shared<UserOp>();
  u->fn = fn;
  u->commute = commute;
  MPI_Op h = reinterpret_cast<MPI_Op>(u.get());
  user_ops().push_back(std::move(u));
  return h;
}

std::shared_ptr<const void> hold_op(MPI_Op op) {
  if (!maybe_user(op)) return nullptr;
  for (auto& u : user_ops()) {
    if (reinterpret_cast<MPI_Op>(u.get()) == op) return u;
  }
  return nullptr;
}

void free_user_op(MPI_Op op, const char* fn) {
  auto& ops = user_ops();
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    if (reinterpret_cast<MPI_Op>(it->get()) == op) {
      auto& old = retired_ops();
      std::erase_if(old, [](const auto& w) { return w.expired(); });
      if (it->use_count() > 1) old.emplace_back(*it);
      ops.erase(it);
      return;
    }
  }
  if (is_predefined_op(op)) fail(MPI_ERR_OP, fn, "a predefined op cannot be freed (argument op)");
  fail(MPI_ERR_OP, fn, "invalid op (argument op): not a live user op (freed twice?)");
}

}  // namespace takyon::mpi
