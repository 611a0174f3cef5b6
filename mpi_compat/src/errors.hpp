// SPDX-License-Identifier: MIT
// MPI errors inside libtakyon_mpi: the exception every check throws and the error classes, codes and
// their strings. Turning an exception into an error code and applying a communicator's error handler
// is the entry points' business (api/guard.hpp).
// Predefined error codes are error classes (MPI_Error_class is the identity); MPI_Error_string adds
// the most recent detailed message of that class ("MPI_Send: invalid rank 5 (argument dest, size 2)").
// Classes and codes added by the program (MPI_Add_error_class/code/string) lie above MPI_ERR_LASTCODE.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "mpi.h"

namespace takyon::mpi {

class MpiError : public std::runtime_error {
 public:
  MpiError(int error_class, const std::string& message) : std::runtime_error(message), class_(error_class) {}
  [[nodiscard]] int error_class() const { return class_; }

 private:
  int class_;
};

/// Throws MpiError(error_class, "<fn>: <what>").
[[noreturn]] void fail(int error_class, const char* fn, const std::string& what);

/// The name of an error class ("MPI_ERR_RANK"), or nullptr if it is none.
const char* error_class_name(int error_class);
/// The standard description of an error class.
const char* error_class_text(int error_class);
/// The last detailed message raised with this class ("" if none).
std::string last_error_detail(int error_class);

/// MPI_Add_error_class: a new error class (also an error code of itself), above MPI_ERR_LASTCODE.
int add_error_class();
/// MPI_Add_error_code: a new error code of `error_class` (predefined or added); throws MPI_ERR_ARG
/// naming `fn` if it is no class.
int add_error_code(int error_class, const char* fn);
/// MPI_Add_error_string: sets the string of an added code or class; throws MPI_ERR_ARG naming `fn` for
/// a predefined or unknown code, a NULL string or one of MPI_MAX_ERROR_STRING characters or more.
void add_error_string(int code, const char* text, const char* fn);
/// The class of an error code: a predefined class is its own, an added code has the class it was
/// added to; -1 if `code` is neither.
int class_of_code(int code);
/// Whether `code` was added (MPI_Add_error_class/code); if so, `text` is its string ("" if none set).
bool added_error_string(int code, std::string& text);
/// The largest error code or class in use (attribute MPI_LASTUSEDCODE): MPI_ERR_LASTCODE until one
/// is added. The add/query functions may be called from any thread.
int last_used_code();

/// Keeps `message` as the latest detailed message of `error_class` (last_error_detail).
void record_error_detail(int error_class, const std::string& message);

}  // namespace takyon::mpi
