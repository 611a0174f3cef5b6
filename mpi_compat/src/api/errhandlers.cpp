// SPDX-License-Identifier: MIT
// Error strings and classes (predefined, and added by MPI_Add_error_class/code/string), and
// communicators' error handlers: the predefined ones and user functions (MPI_Comm_create_errhandler).
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "api/common.hpp"
#include "api/export.hpp"

namespace takyon::mpi {
namespace {

// User error handlers by handle (single-threaded: the MPI thread). Never erased: a communicator may
// still use a freed handler, and handles must not be reused while it does.
std::unordered_map<const void*, std::unique_ptr<UserErrhandler>>& user_errhandlers() {
  static std::unordered_map<const void*, std::unique_ptr<UserErrhandler>> handlers;
  return handlers;
}

}  // namespace

namespace {

/// The predefined fatal handlers' action: print the message with the rank, end the job.
[[noreturn]] void abort_on_error(int error_class, const std::string& message) {
  const char* name = error_class_name(error_class);
  std::string added;
  std::string what =
      name != nullptr ? name
      : added_error_string(error_class, added)
          ? "added error code " + std::to_string(error_class) + (added.empty() ? "" : ": " + added)
          : "unknown error class";
  std::fprintf(stderr, "takyon-mpi: rank %d: %s (%s); MPI_ERRORS_ARE_FATAL: aborting the job\n",
               world_rank_or_minus1(), message.c_str(), what.c_str());
  std::fflush(stderr);
  // the exit status keeps 8 bits: added codes (> MPI_ERR_LASTCODE) would wrap, possibly to 0
  abort_job(error_class <= 0 || error_class > 255 ? 1 : error_class, message);
}

MPI_Errhandler register_user_errhandler(std::unique_ptr<UserErrhandler> h) {
  auto handle = reinterpret_cast<MPI_Errhandler>(h.get());
  user_errhandlers().emplace(h.get(), std::move(h));
  return handle;
}

}  // namespace

int raise_error(MPI_Comm comm, int error_class, const std::string& message) {
  return raise_with_errhandler(errhandler_of(comm), find_comm(comm) != nullptr ? comm : MPI_COMM_WORLD,
                               error_class, message);
}

int raise_with_errhandler(MPI_Errhandler handler, MPI_Comm target, int error_class,
                          const std::string& message) {
  record_error_detail(error_class, message);
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (UserErrhandler* user = find_user_errhandler(handler); user != nullptr && user->fn != nullptr) {
    int code = error_class;
    user->fn(&target, &code);
    return error_class;
  }
  abort_on_error(error_class, message);
}

int raise_session_error(MPI_Session session, MPI_Errhandler handler, int error_class,
                        const std::string& message) {
  record_error_detail(error_class, message);
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (UserErrhandler* user = find_user_errhandler(handler); user != nullptr && user->session_fn != nullptr) {
    int code = error_class;
    user->session_fn(&session, &code);
    return error_class;
  }
  abort_on_error(error_class, message);
}

void check_settable_errhandler(MPI_Errhandler h, bool for_session, const char* fn) {
  if (h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT) return;
  UserErrhandler* user = find_user_errhandler(h);
  if (user == nullptr) {
    fail(MPI_ERR_ARG, fn,
         std::string("invalid error handler (argument errhandler: neither predefined nor made by ") +
             (for_session ? "MPI_Session_create_errhandler)" : "MPI_Comm_create_errhandler)"));
  }
  if (user->win_fn != nullptr)
    fail(MPI_ERR_ARG, fn, "the error handler is for windows (argument errhandler)");
  if ((user->session_fn != nullptr) != for_session) {
    fail(MPI_ERR_ARG, fn,
         std::string("the error handler is for ") + (for_session ? "communicators" : "sessions") +
             " (argument errhandler)");
  }
  if (user->handles == 0) fail(MPI_ERR_ARG, fn, "the error handler was freed (argument errhandler)");
}

MPI_Errhandler create_user_errhandler(MPI_Comm_errhandler_function* fn) {
  auto h = std::make_unique<UserErrhandler>();
  h->fn = fn;
  return register_user_errhandler(std::move(h));
}

MPI_Errhandler create_session_errhandler(MPI_Session_errhandler_function* session_fn) {
  auto h = std::make_unique<UserErrhandler>();
  h->session_fn = session_fn;
  return register_user_errhandler(std::move(h));
}

MPI_Errhandler create_win_errhandler(MPI_Win_errhandler_function* win_fn) {
  auto h = std::make_unique<UserErrhandler>();
  h->win_fn = win_fn;
  return register_user_errhandler(std::move(h));
}

void check_win_errhandler(MPI_Errhandler h, const char* fn) {
  if (h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT) return;
  UserErrhandler* user = find_user_errhandler(h);
  if (user == nullptr) {
    fail(MPI_ERR_ARG, fn,
         "invalid error handler (argument errhandler: neither predefined nor made by "
         "MPI_Win_create_errhandler)");
  }
  if (user->win_fn == nullptr) {
    fail(MPI_ERR_ARG, fn,
         std::string("the error handler is for ") +
             (user->session_fn != nullptr ? "sessions" : "communicators") +
             ", not windows (argument errhandler)");
  }
  if (user->handles == 0) fail(MPI_ERR_ARG, fn, "the error handler was freed (argument errhandler)");
}

int raise_win_error(MPI_Win win, MPI_Errhandler handler, int error_class, const std::string& message) {
  record_error_detail(error_class, message);
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (UserErrhandler* user = find_user_errhandler(handler); user != nullptr && user->win_fn != nullptr) {
    int code = error_class;
    user->win_fn(&win, &code);
    return error_class;
  }
  abort_on_error(error_class, message);
}

UserErrhandler* find_user_errhandler(MPI_Errhandler h) {
  auto it = user_errhandlers().find(reinterpret_cast<const void*>(h));
  return it != user_errhandlers().end() ? it->second.get() : nullptr;
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  return guarded("MPI_Error_string", MPI_COMM_WORLD, [&] {
    if (string == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "MPI_Error_string", "NULL argument");
    std::string text;
    if (!added_error_string(errorcode, text)) {  // an added code's string is exactly the program's
      const char* name = error_class_name(errorcode);
      if (name == nullptr)
        fail(MPI_ERR_ARG, "MPI_Error_string", "invalid error code " + std::to_string(errorcode));
      text = std::string(name) + ": " + error_class_text(errorcode);
      std::string detail = last_error_detail(errorcode);
      if (!detail.empty()) text += " (last: " + detail + ")";
    }
    auto n = text.size() < MPI_MAX_ERROR_STRING - 1 ? text.size() : std::size_t(MPI_MAX_ERROR_STRING - 1);
    std::memcpy(string, text.data(), n);
    string[n] = '\0';
    *resultlen = int(n);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Error_string)

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  return guarded("MPI_Error_class", MPI_COMM_WORLD, [&] {
    if (errorclass == nullptr) fail(MPI_ERR_ARG, "MPI_Error_class", "errorclass is NULL");
    int c = class_of_code(errorcode);  // predefined codes are classes; added codes have theirs
    if (c < 0) fail(MPI_ERR_ARG, "MPI_Error_class", "invalid error code " + std::to_string(errorcode));
    *errorclass = c;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Error_class)

extern "C" int PMPI_Add_error_class(int* errorclass) {
  return guarded("MPI_Add_error_class", MPI_COMM_WORLD, [&] {
    if (errorclass == nullptr)
      fail(MPI_ERR_ARG, "MPI_Add_error_class", "errorclass is NULL (argument errorclass)");
    *errorclass = add_error_class();
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return guarded("MPI_Add_error_code", MPI_COMM_WORLD, [&] {
    if (errorcode == nullptr)
      fail(MPI_ERR_ARG, "MPI_Add_error_code", "errorcode is NULL (argument errorcode)");
    *errorcode = add_error_code(errorclass, "MPI_Add_error_code");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  return guarded("MPI_Add_error_string", MPI_COMM_WORLD, [&] {
    add_error_string(errorcode, string, "MPI_Add_error_string");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Add_error_string)

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return guarded("MPI_Comm_set_errhandler", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_set_errhandler");
    check_settable_errhandler(errhandler, false, "MPI_Comm_set_errhandler");
    c.errhandler = errhandler;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return guarded("MPI_Comm_get_errhandler", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_get_errhandler");
    if (errhandler == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_get_errhandler", "errhandler is NULL");
    *errhandler = c.errhandler;
    if (UserErrhandler* user = find_user_errhandler(c.errhandler)) ++user->handles;  // a new handle
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_get_errhandler)

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  return guarded("MPI_Comm_call_errhandler", comm, [&] {
    check_comm(comm, "MPI_Comm_call_errhandler");
    raise_error(comm, errorcode, "MPI_Comm_call_errhandler: error code " + std::to_string(errorcode));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_call_errhandler)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  return guarded("MPI_Errhandler_free", MPI_COMM_WORLD, [&] {
    if (errhandler == nullptr) fail(MPI_ERR_ARG, "MPI_Errhandler_free", "errhandler is NULL");
    UserErrhandler* user = find_user_errhandler(*errhandler);
    if (user != nullptr) {
      if (user->handles == 0) fail(MPI_ERR_ARG, "MPI_Errhandler_free", "the error handler was already freed");
      --user->handles;  // communicators that use it keep it
    } else if (*errhandler != MPI_ERRORS_ARE_FATAL && *errhandler != MPI_ERRORS_RETURN &&
               *errhandler != MPI_ERRORS_ABORT) {
      fail(MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler");
    }
    *errhandler = MPI_ERRHANDLER_NULL;  // freeing a predefined handler only clears the handle
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Errhandler_free)

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                                           MPI_Errhandler* errhandler) {
  return guarded("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&] {
    check_initialized("MPI_Comm_create_errhandler");
    if (comm_errhandler_fn == nullptr)
      fail(MPI_ERR_ARG, "MPI_Comm_create_errhandler", "the function is NULL");
    if (errhandler == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_create_errhandler", "errhandler is NULL");
    *errhandler = create_user_errhandler(comm_errhandler_fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_create_errhandler)
