// SPDX-License-Identifier: MIT
// Error classes, codes and their strings (see errors.hpp).
#include "errors.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

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
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY",
     "invalid info key (empty, or MPI_MAX_INFO_KEY characters or more)"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "key not defined in the info object"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "invalid info value (MPI_MAX_INFO_VAL characters or more)"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid file access mode"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assertion argument"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base argument"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "error in a data conversion function"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement argument"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "data representation identifier already registered"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use by another process"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file handle"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "collective argument not identical on all processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "not enough space"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port name"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file or file system"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "target memory outside the window"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service name in MPI_Unpublish_name"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size argument"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "error in spawning processes"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {MPI_ERR_VALUE_TOO_LARGE, "MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    {MPI_ERR_SESSION, "MPI_ERR_SESSION", "invalid session"},
    {MPI_ERR_ABI, "MPI_ERR_ABI", "ABI mismatch"},
};

// One detailed message per class, the most recent (single-threaded: the MPI thread).
std::array<std::string, 64> g_details;

// Classes and codes added by MPI_Add_error_class/code, numbered upward from MPI_ERR_LASTCODE + 1 in
// one sequence (a class is also a code of itself). Never removed. A mutex: any thread may ask.
struct UserCode {
  int error_class;
  std::string text;  ///< MPI_Add_error_string's; "" until set
};
struct UserCodes {
  std::mutex mutex;
  std::map<int, UserCode> all;
  int last = MPI_ERR_LASTCODE;
};
UserCodes& user_codes() {
  static UserCodes u;
  return u;
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

int add_error_class() {
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  int c = ++u.last;
  u.all[c] = UserCode{c, {}};
  return c;
}

int add_error_code(int error_class, const char* fn) {
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  auto it = u.all.find(error_class);
  bool added_class = it != u.all.end() && it->second.error_class == error_class;
  if (find_class(error_class) == nullptr && !added_class) {
    fail(MPI_ERR_ARG, fn,
         "invalid error class " + std::to_string(error_class) +
             (it != u.all.end()
                  ? " (argument errorclass: an added error code, not a class)"
                  : " (argument errorclass: neither predefined nor added by MPI_Add_error_class)"));
  }
  int c = ++u.last;
  u.all[c] = UserCode{error_class, {}};
  return c;
}

void add_error_string(int code, const char* text, const char* fn) {
  if (text == nullptr) fail(MPI_ERR_ARG, fn, "string is NULL (argument string)");
  std::size_t n = strnlen(text, MPI_MAX_ERROR_STRING);
  if (n >= MPI_MAX_ERROR_STRING) {
    fail(MPI_ERR_ARG, fn,
         "the string is longer than MPI_MAX_ERROR_STRING - 1 = " + std::to_string(MPI_MAX_ERROR_STRING - 1) +
             " characters (argument string)");
  }
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  auto it = u.all.find(code);
  if (it == u.all.end()) {
    fail(MPI_ERR_ARG, fn,
         "error code " + std::to_string(code) +
             (find_class(code) != nullptr ? " is predefined; only added codes and classes take a string"
                                          : " was not added by MPI_Add_error_class/code") +
             " (argument errorcode)");
  }
  it->second.text.assign(text, n);
}

int class_of_code(int code) {
  if (find_class(code) != nullptr) return code;
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  auto it = u.all.find(code);
  return it != u.all.end() ? it->second.error_class : -1;
}

bool added_error_string(int code, std::string& text) {
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  auto it = u.all.find(code);
  if (it == u.all.end()) return false;
  text = it->second.text;
  return true;
}

int last_used_code() {
  UserCodes& u = user_codes();
  std::lock_guard lock(u.mutex);
  return u.last;
}

void record_error_detail(int error_class, const std::string& message) {
  if (error_class >= 0 && std::size_t(error_class) < g_details.size())
    g_details[std::size_t(error_class)] = message;
}

}  // namespace takyon::mpi
