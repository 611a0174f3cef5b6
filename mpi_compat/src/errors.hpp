// SPDX-License-Identifier: MIT
// MPI errors inside libtakyon_mpi: the exception every check throws, the guard that turns it into
// an error code at each extern "C" entry point, error-class strings and the error handlers.
// Predefined error codes are error classes (MPI_Error_class is the identity); MPI_Error_string adds
// the most recent detailed message of that class ("MPI_Send: invalid rank 5 (argument dest, size 2)").
// Classes and codes added by the program (MPI_Add_error_class/code/string) lie above MPI_ERR_LASTCODE.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "mpi.h"
#include "pt2pt/engine.hpp"

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

/// Applies `comm`'s error handler (MPI_COMM_WORLD's if `comm` is not a valid communicator) to an
/// error raised in `fn`: MPI_ERRORS_RETURN returns `error_class`; MPI_ERRORS_ARE_FATAL / ABORT print
/// the message and end the job.
int raise_error(MPI_Comm comm, int error_class, const std::string& message);

/// A user error handler (MPI_Comm_create_errhandler): the function, and how many handles to it the
/// program holds (MPI_Comm_create_errhandler and MPI_Comm_get_errhandler each give one,
/// MPI_Errhandler_free takes one back). Communicators using it keep it whatever the count; the
/// object lives until the process ends.
struct UserErrhandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  int handles = 1;
};
/// A new user error handler's handle.
MPI_Errhandler create_user_errhandler(MPI_Comm_errhandler_function* fn);
/// The user error handler behind `h`, or nullptr if `h` is not one (never dereferences `h`).
UserErrhandler* find_user_errhandler(MPI_Errhandler h);

/// Runs `body` (returning an MPI error code) and turns exceptions into MPI errors for `comm`.
template <class Body>
int guarded(const char* fn, MPI_Comm comm, const Body& body) noexcept {
  try {
    return body();
  } catch (const MpiError& e) {
    return raise_error(comm, e.error_class(), e.what());
  } catch (const PeerFailure& e) {
    return raise_error(comm, MPI_ERR_OTHER, std::string(fn) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return raise_error(comm, MPI_ERR_NO_MEM, std::string(fn) + ": out of memory");
  } catch (const std::exception& e) {
    return raise_error(comm, MPI_ERR_INTERN, std::string(fn) + ": " + e.what());
  }
}

}  // namespace takyon::mpi
