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
    return raise_error(comm, e.gone() ? MPI_ERR_PROC_ABORTED : MPI_ERR_OTHER,
                       std::string(fn) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return raise_error(comm, MPI_ERR_NO_MEM, std::string(fn) + ": out of memory");
  } catch (const std::exception& e) {
    return raise_error(comm, MPI_ERR_INTERN, std::string(fn) + ": " + e.what());
  }
}

}  // namespace takyon::mpi
