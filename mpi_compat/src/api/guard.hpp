// SPDX-License-Identifier: MIT
// The guard of every extern "C" entry point: runs the call's body, turns what it throws into an MPI
// error code and applies the communicator's error handler (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or
// a user function).
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "errors.hpp"
#include "mpi.h"
#include "pt2pt/peer_failure.hpp"

namespace takyon::mpi {

/// Applies `comm`'s error handler (MPI_COMM_WORLD's if `comm` is not a valid communicator) to an
/// error raised in `fn`: MPI_ERRORS_RETURN returns `error_class`; MPI_ERRORS_ARE_FATAL / ABORT print
/// the message and end the job.
int raise_error(MPI_Comm comm, int error_class, const std::string& message);
/// The same with communicator error handler `handler` (predefined or a communicators' user handler,
/// which is called with `target`), for an error raised before the communicator it belongs to exists.
int raise_with_errhandler(MPI_Errhandler handler, MPI_Comm target, int error_class,
                          const std::string& message);

/// A user error handler (MPI_Comm_create_errhandler, MPI_Session_create_errhandler,
/// MPI_Win_create_errhandler): the function (exactly one of the three is set: the handler is for
/// communicators or for sessions), and how many handles to it the program holds (creating it and each
/// get_errhandler give one, MPI_Errhandler_free takes one back). Objects using it keep it whatever the count;
/// the object lives until the process ends.
struct UserErrhandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  MPI_Session_errhandler_function* session_fn = nullptr;
  MPI_Win_errhandler_function* win_fn = nullptr;  ///< MPI_Win_create_errhandler
  int handles = 1;
};
/// A new user error handler's handle, for communicators or (session_fn) for sessions.
MPI_Errhandler create_user_errhandler(MPI_Comm_errhandler_function* fn);
MPI_Errhandler create_session_errhandler(MPI_Session_errhandler_function* session_fn);
MPI_Errhandler create_win_errhandler(MPI_Win_errhandler_function* win_fn);
/// check_settable_errhandler for a window: a predefined handler or a live window handler.
void check_win_errhandler(MPI_Errhandler h, const char* fn);
/// Applies window `win`'s error handler (`handler`) to an error raised in a window call.
int raise_win_error(MPI_Win win, MPI_Errhandler handler, int error_class, const std::string& message);
/// The user error handler behind `h`, or nullptr if `h` is not one (never dereferences `h`).
UserErrhandler* find_user_errhandler(MPI_Errhandler h);
/// Checks that `h` may be set on a communicator (`for_session` false) or a session: a predefined
/// handler, or a live user handler of that kind. Throws MPI_ERR_ARG naming `fn` otherwise.
void check_settable_errhandler(MPI_Errhandler h, bool for_session, const char* fn);
/// Applies session `session`'s error handler (`handler`) to an error raised in a session call, as
/// raise_error() does for a communicator's.
int raise_session_error(MPI_Session session, MPI_Errhandler handler, int error_class,
                        const std::string& message);

/// Runs `body` (returning an MPI error code) and turns exceptions into MPI error classes, handing
/// each with its message to `raise(error_class, message)`, whose result is returned.
template <class Raise, class Body>
int guarded_with(const char* fn, const Raise& raise, const Body& body) noexcept {
  try {
    return body();
  } catch (const MpiError& e) {
    return raise(e.error_class(), e.what());
  } catch (const PeerFailure& e) {
    return raise(e.gone() ? MPI_ERR_PROC_ABORTED : MPI_ERR_OTHER, std::string(fn) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return raise(MPI_ERR_NO_MEM, std::string(fn) + ": out of memory");
  } catch (const std::exception& e) {
    return raise(MPI_ERR_INTERN, std::string(fn) + ": " + e.what());
  }
}

/// Runs `body` (returning an MPI error code) and turns exceptions into MPI errors for `comm`.
template <class Body>
int guarded(const char* fn, MPI_Comm comm, const Body& body) noexcept {
  return guarded_with(
      fn,
      [comm](int error_class, const std::string& message) { return raise_error(comm, error_class, message); },
      body);
}

}  // namespace takyon::mpi
