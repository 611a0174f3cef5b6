// SPDX-License-Identifier: MIT
// Error classes, their strings, and the error handlers (see errors.hpp).
#include "errors.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "comm_basic.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

struct ClassInfo {
  int error_class;
  const char* name;
  const char* text;
};

constexpr ClassInfo kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduce operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid communicator topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument of some other kind"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "known error not in this list"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid keyval"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {MPI_ERR_PROC_ABORTED, "MPI_ERR_PROC_ABORTED", "operation failed because a peer process aborted"},
    {MPI_ERR_ERRHANDLER, "MPI_ERR_ERRHANDLER", "invalid error handler"},
};

// One detailed message per class, the most recent (single-threaded: the MPI thread).
std::array<std::string, 64> g_details;

// User error handlers by handle (single-threaded: the MPI thread). Never erased: a communicator may
// still use a freed handler, and handles must not be reused while it does.
std::unordered_map<const void*, std::unique_ptr<UserErrhandler>>& user_errhandlers() {
  static std::unordered_map<const void*, std::unique_ptr<UserErrhandler>> handlers;
  return handlers;
}

const ClassInfo* find_class(int error_class) {
  for (const auto& c : kClasses) {
    if (c.error_class == error_class) return &c;
  }
  return nullptr;
}

}  // namespace

void fail(int error_class, const char* fn, const std::string& what) {
  throw MpiError(error_class, std::string(fn) + ": " + what);
}

const char* error_class_name(int error_class) {
  const ClassInfo* c = find_class(error_class);
  return c != nullptr ? c->name : nullptr;
}

const char* error_class_text(int error_class) {
  const ClassInfo* c = find_class(error_class);
  return c != nullptr ? c->text : "unknown error class";
}

std::string last_error_detail(int error_class) {
  if (error_class < 0 || std::size_t(error_class) >= g_details.size()) return {};
  return g_details[std::size_t(error_class)];
}

int raise_error(MPI_Comm comm, int error_class, const std::string& message) {
  if (error_class >= 0 && std::size_t(error_class) < g_details.size()) g_details[std::size_t(error_class)] = message;
  MPI_Errhandler handler = errhandler_of(comm);
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (UserErrhandler* user = find_user_errhandler(handler)) {
    MPI_Comm target = find_comm(comm) != nullptr ? comm : MPI_COMM_WORLD;
    int code = error_class;
    user->fn(&target, &code);
    return error_class;
  }
  const char* name = error_class_name(error_class);
  std::fprintf(stderr, "takyon-mpi: rank %d: %s (%s); MPI_ERRORS_ARE_FATAL: aborting the job\n", world_rank_or_minus1(),
               message.c_str(), name != nullptr ? name : "unknown error class");
  std::fflush(stderr);
  abort_job(error_class == 0 ? 1 : error_class, message);
}

MPI_Errhandler create_user_errhandler(MPI_Comm_errhandler_function* fn) {
  auto h = std::make_unique<UserErrhandler>();
  h->fn = fn;
  auto handle = reinterpret_cast<MPI_Errhandler>(h.get());
  user_errhandlers().emplace(h.get(), std::move(h));
  return handle;
}

UserErrhandler* find_user_errhandler(MPI_Errhandler h) {
  auto it = user_errhandlers().find(reinterpret_cast<const void*>(h));
  return it != user_errhandlers().end() ? it->second.get() : nullptr;
}

}  // namespace takyon::mpi
